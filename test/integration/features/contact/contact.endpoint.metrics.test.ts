import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { callContact, contactRequest, json, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';

/** One sample's value in an exposition, 0 when absent. */
const valueOf = (text: string, sample: string) => Number(text.split('\n').find((line) => line.startsWith(`${sample} `))?.split(' ')[1] ?? 0);

describe('the contact endpoint\'s metrics', () => {
  const suite = useTestDb('sqlite');

  it('counts a stored submission once (not its replay) and each refusal by the code answered', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const deps = { ...suite.services, meter: metrics.meter };
    const key = { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() };
    expect((await callContact(contactRequest(json(validPayload), key), deps)).status).toBe(200);
    expect((await callContact(contactRequest(json(validPayload), key), deps)).status).toBe(200);
    expect((await callContact(contactRequest(json({ ...validPayload, work_email: 'nope' })), deps)).status).toBe(400);
    expect((await callContact(contactRequest('{'), deps)).status).toBe(400);
    expect((await callContact(contactRequest(json({ ...validPayload, website: 'http://spam.example' })), deps)).status).toBe(200);
    expect((await callContact(contactRequest(json({ ...validPayload, name: 'Visit www.spam.example' })), deps)).status).toBe(200);
    const text = await metrics.scrape();
    expect(valueOf(text, 'contact_submissions_stored_total')).toBe(1);
    expect(valueOf(text, 'contact_submissions_refused_total{reason="validation_failed"}')).toBe(1);
    expect(valueOf(text, 'contact_submissions_refused_total{reason="malformed_json"}')).toBe(1);
    // Spam by its kind, the label values the dashboard and docs/operators.md name.
    expect(valueOf(text, 'contact_submissions_refused_total{reason="honeypot"}')).toBe(1);
    expect(valueOf(text, 'contact_submissions_refused_total{reason="heuristic"}')).toBe(1);
  });
});
