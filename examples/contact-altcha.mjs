/**
 * Submits the contact form from a script, solving the proof of work (ALTCHA) when the server asks
 * for one, and prints each step. docs/integrators.md ("Contact from code") shows this file below
 * this comment; test/e2e/contact-altcha-example.test.ts runs it against a server with the check on
 * and checks that the guide's copy is this file, and `npm run first-hour` runs it as the guide
 * writes it, against the demo (check off). Plain JavaScript, so that Node.js 20 or later runs it
 * (global `fetch` and `crypto`), the system one included.
 *
 *   node examples/contact-altcha.mjs [SITE]     (default http://127.0.0.1:4321)
 */
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';

const site = process.argv[2] ?? 'http://127.0.0.1:4321';

// 200: a challenge to solve; 204: the check is off and no solution is needed.
const answer = await fetch(`${site}/api/contact/challenge`);
const challenge = answer.status === 200 ? await answer.json() : undefined;
console.log(`challenge: ${answer.status}${challenge ? '' : ' (the check is off)'}`);

let altcha;
if (challenge) {
  const started = Date.now();
  const solution = await solveChallenge({ challenge, deriveKey });
  console.log(`solved in ${Date.now() - started} ms`);
  altcha = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

const response = await fetch(`${site}/api/contact`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
  body: JSON.stringify({ name: 'Ada', work_email: 'ada@example.com', priority: 'standard', altcha }),
});
console.log(`contact: ${response.status} ${await response.text()}`);
