/**
 * A receiver for the contact outbox's signed webhooks: docs/operators.md ("Signed webhooks") shows
 * the code below this comment, and test/integration/examples/webhook-receiver.test.ts runs this
 * file against the real outbox and checks that the guide still shows it as it is here.
 *
 *   CONTACT_WEBHOOK_SECRET=whsec_... PORT=8787 node examples/webhook-receiver.ts
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env['CONTACT_WEBHOOK_SECRET'] ?? '');
const seen = new Set<string>(); // webhook-ids already handled; a real receiver keeps them in its database

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8'); // verify the raw bytes, before any JSON parsing
  let submission: unknown;
  try {
    // Checks webhook-signature against the secret and refuses a webhook-timestamp over 5 minutes off.
    submission = webhook.verify(body, req.headers as Record<string, string>);
  } catch {
    res.writeHead(401).end();
    return;
  }
  const id = String(req.headers['webhook-id']); // the same on every retry of one submission
  if (!seen.has(id)) {
    seen.add(id);
    console.log(JSON.stringify(submission)); // hand it to the team here
  }
  res.writeHead(204).end();
});
server.listen(Number(process.env['PORT'] ?? 8787), '127.0.0.1', () => console.error(`listening on ${JSON.stringify(server.address())}`));
