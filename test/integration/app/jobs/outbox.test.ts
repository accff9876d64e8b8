import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startOutbox } from '../../../../src/app/jobs/outbox.ts';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { callContact, contactRequest, json, openTestDb, testServices, validPayload, type TestDb } from '../../../helpers/contact-fixtures.ts';

const valueOf = (text: string, sample: string) => Number(text.split('\n').find((line) => line.startsWith(`${sample} `))?.split(' ')[1] ?? 0);

describe('the outbox job\'s metrics', () => {
  let db: TestDb | undefined;
  let receiver: Server | undefined;
  afterAll(async () => {
    receiver?.close();
    await db?.dispose();
  });

  it('counts delivery attempts by outcome', async () => {
    db = await openTestDb('sqlite');
    let status = 500;
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(status).end());
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver!.once('listening', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const metrics = createMetrics({ processMetrics: false });
    const services = { ...testServices(db.handle, { CONTACT_WEBHOOK_URL: url, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' }), meter: metrics.meter };
    const failed = 'contact_delivery_attempts_total{channel="webhook",outcome="failed"}';
    const delivered = 'contact_delivery_attempts_total{channel="webhook",outcome="delivered"}';

    expect((await callContact(contactRequest(json(validPayload)), services)).status).toBe(200);
    const failing = startOutbox({ services, intervalMs: 20 });
    await vi.waitFor(async () => expect(valueOf(await metrics.scrape(), failed)).toBe(1));
    await failing.stop();

    // The failed row waits for its retry; a new one is due at once and goes through.
    status = 200;
    expect((await callContact(contactRequest(json({ ...validPayload, name: 'Second' })), services)).status).toBe(200);
    const working = startOutbox({ services, intervalMs: 20 });
    await vi.waitFor(async () => expect(valueOf(await metrics.scrape(), delivered)).toBe(1));
    await working.stop();
    expect(valueOf(await metrics.scrape(), failed)).toBe(1);
  });
});
