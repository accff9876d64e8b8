import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ENGINES,
  callContact,
  answer,
  contactRequest,
  countRows,
  json,
  testServices,
  useTestDb,
  validPayload,
} from '../../../helpers/contact-fixtures.ts';
import { problemParts } from '../../../helpers/problem.ts';

/** What each field of the form expects, as a validation problem puts it. */
const EXPECTED = {
  name: 'text of 1 to 200 characters',
  job_title: 'text of at most 200 characters, or leave it out',
  work_email: 'an email address such as ada@example.com, at most 254 characters',
  priority: 'one of "high", "standard", "message"',
  message: 'text of at most 5,000 characters, or leave it out',
} as const;

const fieldError = (field: keyof typeof EXPECTED, message: string) => ({ expected: EXPECTED[field], field, message });

/** The problem for a form with invalid fields: every error listed, the count and names in the detail. */
const invalidFields = (detail: string, errors: ReturnType<typeof fieldError>[]) => ({
  code: 'validation_failed',
  detail,
  errors,
  resolution: 'Correct the fields listed in errors and send the form again.',
  status: 400,
  title: 'Invalid request',
});

describe.each(ENGINES)('POST /api/contact on %s', (engine) => {
  const suite = useTestDb(engine);
  beforeEach(async () => {
    await suite.db.handle.kysely.deleteFrom('contact_submission').execute();
  });

  const post = (body: Parameters<typeof contactRequest>[0], headers?: Record<string, string>) => callContact(contactRequest(body, headers), suite.services);

  describe('refusals, none of which stores anything', () => {
    afterAll(async () => {
      expect(await countRows(suite.db.handle)).toBe(0);
    });

    it('answers 415 for a text/plain body, naming the content type it takes', async () => {
      const response = await post('name=Ada', { 'content-type': 'text/plain' });
      expect(response.headers.get('accept-post')).toBe('application/json');
      expect(await problemParts(response)).toEqual({ code: 'unsupported_media_type', detail: 'Content type "text/plain" is not accepted.', resolution: 'Send the form as UTF-8 JSON with the header Content-Type: application/json.', status: 415, title: 'Unsupported media type' });
    });

    const SEND_JSON = 'Send the JSON body with the header Content-Type: application/json (curl: -H "Content-Type: application/json").';

    it('answers 415 for a JSON body sent as text/plain, saying it is JSON and which type came', async () => {
      const response = await post(json(validPayload), { 'content-type': 'text/plain' });
      expect(response.headers.get('accept-post')).toBe('application/json, application/x-www-form-urlencoded');
      expect(await problemParts(response)).toEqual({ code: 'unsupported_media_type', detail: 'The body is JSON but came with Content-Type "text/plain", so it was not read as JSON.', resolution: SEND_JSON, status: 415, title: 'Unsupported media type' });
    });

    it('answers 415 for a JSON body without Content-Type, saying so', async () => {
      expect(await problemParts(await post(json(validPayload), {}))).toEqual({ code: 'unsupported_media_type', detail: 'The body is JSON but came with no Content-Type, so it was not read as JSON.', resolution: SEND_JSON, status: 415, title: 'Unsupported media type' });
    });

    it('answers 415 for a JSON body sent as a form (curl -d), saying it was read as a form, instead of "Name is required" three times', async () => {
      const response = await post(json(validPayload), { 'content-type': 'application/x-www-form-urlencoded' });
      expect(await problemParts(response)).toEqual({
        code: 'unsupported_media_type',
        detail: 'The body is JSON but came with Content-Type "application/x-www-form-urlencoded", so it was read as a form (application/x-www-form-urlencoded) and none of its fields were found.',
        resolution: SEND_JSON,
        status: 415,
        title: 'Unsupported media type',
      });
    });

    it('answers 400 naming a misspelt field and the field it was meant to be, for JSON and form bodies alike', async () => {
      const misspelt = { ...validPayload, mesage: 'Please call me back.' };
      const fromJson = (await (await post(json(misspelt))).json()) as { status: number; errors: unknown[] };
      expect(fromJson.status).toBe(400);
      const error = { field: 'mesage', message: 'Unknown field "mesage": did you mean "message"?', expected: 'one of the fields name, job_title, work_email, priority, message' };
      expect(fromJson.errors).toEqual([error]);
      const form = new URLSearchParams({ ...misspelt, website: '' }).toString();
      const fromForm = (await (await post(form, { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' })).json()) as { status: number; errors: unknown[] };
      expect(fromForm).toMatchObject({ status: 400, errors: [error] });
    });

    it('names an unknown field with no near one, beside the errors of the fields themselves', async () => {
      const response = await post(json({ name: 'Ada', priority: 'high', email: 'ada@example.com', company: 'Acme' }));
      const body = (await response.json()) as { errors: Array<{ field: string; message: string }> };
      expect(body.errors.map((e) => [e.field, e.message])).toEqual([
        ['work_email', 'Work email is required.'],
        ['email', 'Unknown field "email": the contact fields are name, job_title, work_email, priority, message.'],
        ['company', 'Unknown field "company": the contact fields are name, job_title, work_email, priority, message.'],
      ]);
    });

    it('answers 415 for a multipart body', async () => {
      const response = await post('--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n--x--\r\n', { 'content-type': 'multipart/form-data; boundary=x' });
      expect(response.status).toBe(415);
    });

    it('answers 415 for JSON declared in a charset other than UTF-8', async () => {
      const response = await post(json(validPayload), { 'content-type': 'application/json; charset=iso-8859-1' });
      expect(response.status).toBe(415);
    });

    it('answers 415 with Accept-Encoding for a compressed body', async () => {
      const response = await post(json(validPayload), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(response.headers.get('accept-encoding')).toBe('identity');
      expect(await problemParts(response)).toEqual({ code: 'unsupported_media_type', detail: 'Content-Encoding "gzip" is not accepted.', resolution: 'Send the body uncompressed.', status: 415, title: 'Unsupported media type' });
    });

    // The body is read within the route's limit before the endpoint sees it: these are the
    // edge's 413 (src/lib/endpoint.ts bodyTooLarge), the one the interface documents.
    const tooLarge = { code: 'payload_too_large', detail: 'The request body exceeds 32768 bytes.', resolution: 'Send at most 32768 bytes.', status: 413, title: 'Request body too large' };

    it('answers 413 for a body declared larger than 32 KiB, before reading it', async () => {
      const response = await post(json(validPayload), { 'content-type': 'application/json', 'content-length': String(32 * 1024 + 1) });
      expect(await problemParts(response)).toEqual(tooLarge);
    });

    it('answers 413 for a body of 32 KiB + 1 byte', async () => {
      const body = json({ ...validPayload, message: 'x'.repeat(32 * 1024) });
      expect(await problemParts(await post(body))).toEqual(tooLarge);
    });

    it('stops reading an endless body at the limit and cancels the rest', async () => {
      let pulled = 0;
      let cancelled = false;
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 1;
          controller.enqueue(new Uint8Array(4096).fill(0x20));
        },
        cancel() {
          cancelled = true;
        },
      });
      const response = await post(endless);
      expect(response.status).toBe(413);
      expect(cancelled).toBe(true);
      // 32 KiB in 4 KiB chunks is 8; the 9th crosses the limit. A little read-ahead is allowed.
      expect(pulled).toBeLessThan(16);
    });

    it('answers 400 empty_body for an empty body', async () => {
      expect(await problemParts(await post(''))).toEqual({ code: 'empty_body', detail: 'The request body is empty.', resolution: 'Send a JSON object such as {"name":"Ada","work_email":"ada@example.com","priority":"standard"}.', status: 400, title: 'Empty request body' });
    });

    it('answers 400 empty_body for a body of only whitespace', async () => {
      const { status, body } = await answer(await post(' \r\n\t '));
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 'empty_body' });
    });

    it('answers 400 malformed_json with the parser position for broken JSON', async () => {
      expect(await problemParts(await post('{"name": "Ada",}'))).toEqual({ code: 'malformed_json', detail: 'The request body is not valid JSON: Expected double-quoted property name in JSON at position 15 (line 1 column 16).', resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.', status: 400, title: 'Malformed JSON' });
    });

    it('answers 400 malformed_json for a body that is not UTF-8', async () => {
      expect(await problemParts(await post(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])))).toEqual({ code: 'malformed_json', detail: 'The request body is not valid UTF-8.', resolution: 'Encode the JSON body as UTF-8.', status: 400, title: 'Malformed JSON' });
    });

    it('answers 400 validation_failed for a JSON array', async () => {
      expect(await problemParts(await post('[{"name":"Ada"}]'))).toEqual({
        code: 'validation_failed', detail: 'The body must be a JSON object, not an array.', resolution: 'Send the form as one JSON object.', status: 400, title: 'Invalid request',
        errors: [{ expected: 'a JSON object with name, work_email and priority, e.g. {"name":"Ada","work_email":"ada@example.com","priority":"standard"}', field: '', message: 'The body must be a JSON object, not an array.' }],
      });
    });

    it.each([
      ['a string', '"hello"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ])('answers 400 validation_failed for %s as the body', async (_label, body) => {
      const { status, body: problem } = await answer(await post(body));
      expect(status).toBe(400);
      expect(problem).toMatchObject({ code: 'validation_failed', errors: [{ field: '' }] });
    });

    it('answers 400 listing every missing required field for an empty object', async () => {
      expect(await problemParts(await post('{}'))).toEqual(invalidFields('3 fields are invalid: name, work_email, priority.', [
        fieldError('name', 'Name is required.'),
        fieldError('work_email', 'Work email is required.'),
        fieldError('priority', 'Priority is required.'),
      ]));
    });

    it('answers 400 explaining each wrong field and what it expects', async () => {
      const body = json({
        name: '   ',
        job_title: 42,
        work_email: 'ada at example.com',
        priority: 'urgent',
        message: ['hello'],
      });
      expect(await problemParts(await post(body))).toEqual(invalidFields('5 fields are invalid: name, job_title, work_email, priority, message.', [
        fieldError('name', 'Name is required.'),
        fieldError('job_title', 'Job title must be text, not a number.'),
        fieldError('work_email', 'Work email must be an email address such as ada@example.com.'),
        fieldError('priority', 'Priority must be one of high, standard, message.'),
        fieldError('message', 'Message must be text, not an array.'),
      ]));
    });

    it('answers 400 for values past their length bounds, saying how long they were', async () => {
      const body = json({
        name: 'n'.repeat(201),
        job_title: 'j'.repeat(201),
        work_email: `${'e'.repeat(250)}@example.com`,
        priority: 'standard',
        message: 'm'.repeat(5001),
      });
      expect(await problemParts(await post(body))).toEqual(invalidFields('4 fields are invalid: name, job_title, work_email, message.', [
        fieldError('name', 'Name is too long: 201 characters, at most 200 allowed.'),
        fieldError('job_title', 'Job title is too long: 201 characters, at most 200 allowed.'),
        fieldError('work_email', 'Work email is too long: 262 characters, at most 254 allowed.'),
        fieldError('message', 'Message is too long: 5,001 characters, at most 5,000 allowed.'),
      ]));
    });

    it('answers 400 naming the one invalid field in the detail', async () => {
      const { body } = await answer(await post(json({ ...validPayload, work_email: 'nobody' })));
      expect(body).toMatchObject({ detail: 'Work email must be an email address such as ada@example.com.', errors: [{ field: 'work_email' }] });
    });

    it('answers 400 for an Idempotency-Key that is blank or over 255 characters', async () => {
      const tooLong = await post(json(validPayload), { 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(256) });
      expect(await problemParts(tooLong)).toEqual({
        code: 'validation_failed', detail: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', resolution: 'Send a fresh UUID per submission in Idempotency-Key, or leave the header out.', status: 400, title: 'Invalid request',
        errors: [{ expected: 'a unique value per submission, such as a UUID (crypto.randomUUID())', field: 'Idempotency-Key', message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.' }],
      });
      const blank = await post(json(validPayload), { 'content-type': 'application/json', 'idempotency-key': '""' });
      expect(blank.status).toBe(400);
    });

    it.each([
      ['name', 'NUL', 'Ada\\u0000Lovelace'],
      ['message', 'NUL', 'Hello\\u0000'],
      ['job_title', 'a lone high surrogate', 'Analyst \\ud800'],
      ['message', 'a lone low surrogate', '\\udfff hello'],
    ])('answers 400 naming %s when it holds %s', async (field, _what, escaped) => {
      // Written as JSON escapes, the way a client would send them: the bytes are valid UTF-8.
      const body = `${json(validPayload).slice(0, -1)},"${field}":"${escaped}"}`;
      const { status, body: problem } = await answer(await post(body));
      expect(status).toBe(400);
      expect(problem).toMatchObject({ code: 'validation_failed', errors: [{ field }] });
    });

    it('explains a NUL in words a person can act on', async () => {
      const { body } = await answer(await post(`${json(validPayload).slice(0, -1)},"name":"Ada\\u0000"}`));
      expect((body as { detail: string }).detail).toMatchInlineSnapshot(`"Name contains a character that cannot be stored: NUL (U+0000) or an unpaired surrogate (U+D800 to U+DFFF)."`);
    });

    it('answers 405 with Allow: POST for other methods', async () => {
      const response = await callContact(contactRequest(null, {}, 'GET'), suite.services);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await problemParts(response)).toEqual({ code: 'method_not_allowed', detail: 'GET is not supported here.', resolution: 'Send POST.', status: 405, title: 'Method not allowed' });
    });
  });

  describe('accepted submissions', () => {
    it('stores exactly one row with the trimmed fields and answers {"success": true}', async () => {
      const before = Date.now();
      const response = await post(
        json({ name: '  Ada Lovelace ', job_title: ' Analyst', work_email: ' ada@example.com ', priority: 'high', message: ' Hello.\nSecond line. ' }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({ success: true });

      const rows = await suite.db.handle.kysely.selectFrom('contact_submission').selectAll().execute();
      expect(rows).toHaveLength(1);
      const [row] = rows;
      expect(row).toEqual({
        id: expect.any(Number),
        created_at: expect.any(Number),
        name: 'Ada Lovelace',
        job_title: 'Analyst',
        work_email: 'ada@example.com',
        priority: 'high',
        message: 'Hello.\nSecond line.',
        idempotency_key: null,
        delivery_status: 'none',
        delivery_attempts: 0,
        next_attempt_at: null,
        delivered_at: null,
        last_error: null,
        spam_reason: null,
      });
      expect(row!.created_at).toBeGreaterThanOrEqual(before);
    });

    it('refuses unknown fields, stores nothing, and accepts the honeypot and proof-of-work fields beside the form', async () => {
      const body = `${json(validPayload).slice(0, -1)},"company":"UNKNOWN-MARKER","admin":true,"__proto__":{"polluted":"UNKNOWN-MARKER"}}`;
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toEqual(['company', 'admin', '__proto__']);
      expect(await suite.db.handle.kysely.selectFrom('contact_submission').selectAll().execute()).toEqual([]);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      // The honeypot (empty) and the proof of work (ignored while the check is off) are no strangers.
      expect((await post(json({ ...validPayload, website: '', altcha: 'not-checked' }))).status).toBe(200);
      const rows = await suite.db.handle.kysely.selectFrom('contact_submission').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain('not-checked');
    });

    it('stores absent and blank optional fields as null', async () => {
      expect((await post(json({ name: 'Bo', work_email: 'bo@example.com', priority: 'message', job_title: '  ' }))).status).toBe(200);
      const row = await suite.db.handle.kysely.selectFrom('contact_submission').select(['job_title', 'message']).executeTakeFirstOrThrow();
      expect(row).toEqual({ job_title: null, message: null });
    });

    it('takes application/json with parameters and +json types', async () => {
      expect((await post(json(validPayload), { 'content-type': 'Application/JSON; charset="UTF-8"' })).status).toBe(200);
      expect((await post(json(validPayload), { 'content-type': 'application/vnd.contact+json' })).status).toBe(200);
      expect(await countRows(suite.db.handle)).toBe(2);
    });

    it('takes a body of exactly 32 KiB', async () => {
      const base = json(validPayload);
      const body = base + ' '.repeat(32 * 1024 - base.length);
      expect(new TextEncoder().encode(body).byteLength).toBe(32 * 1024);
      expect((await post(body)).status).toBe(200);
    });

    it('queues the submission for the outbox when a webhook is configured', async () => {
      const withWebhook = testServices(suite.db.handle, { CONTACT_WEBHOOK_URL: 'http://127.0.0.1:9/hook', CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' });
      expect((await callContact(contactRequest(json(validPayload)), withWebhook)).status).toBe(200);
      const row = await suite.db.handle.kysely.selectFrom('contact_submission').selectAll().executeTakeFirstOrThrow();
      expect(row.delivery_status).toBe('pending');
      expect(row.next_attempt_at).toBe(row.created_at);
    });
  });

  describe('Idempotency-Key', () => {
    const withKey = (key: string) => ({ 'content-type': 'application/json', 'idempotency-key': key });

    it('stores a retried submission once and answers the retry the same way', async () => {
      const first = await post(json(validPayload), withKey('9b2f6c1e-retry'));
      const second = await post(json(validPayload), withKey('9b2f6c1e-retry'));
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(await second.json()).toEqual(await first.json());
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await countRows(suite.db.handle)).toBe(1);
      const row = await suite.db.handle.kysely.selectFrom('contact_submission').select('idempotency_key').executeTakeFirstOrThrow();
      expect(row.idempotency_key).toBe('9b2f6c1e-retry');
    });

    it('stores concurrent retries of one key once', async () => {
      const responses = await Promise.all(Array.from({ length: 8 }, () => post(json(validPayload), withKey('concurrent-key'))));
      expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(await countRows(suite.db.handle)).toBe(1);
    });

    it('treats a quoted key (structured-field string) like the bare key', async () => {
      await post(json(validPayload), withKey('"abc-123"'));
      const again = await post(json(validPayload), withKey('abc-123'));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await countRows(suite.db.handle)).toBe(1);
    });

    it('answers 422 when a key is reused for a different submission, and keeps the first', async () => {
      await post(json(validPayload), withKey('reused-key'));
      const response = await post(json({ ...validPayload, message: 'Something else' }), withKey('reused-key'));
      expect(await problemParts(response)).toEqual({ code: 'idempotency_key_reused', detail: 'This Idempotency-Key was already used for a submission with different content.', resolution: 'Use a new Idempotency-Key for each new submission; reuse a key only to retry the very same one.', status: 422, title: 'Idempotency key reused' });
      const rows = await suite.db.handle.kysely.selectFrom('contact_submission').select('message').execute();
      expect(rows).toEqual([{ message: validPayload.message }]);
    });

    it('keeps a well-formed surrogate pair (an emoji) intact, so an identical retry replays', async () => {
      const payload = { ...validPayload, message: 'Thanks \u{1F600}' };
      const first = await post(json(payload), withKey('emoji-key'));
      const second = await post(json(payload), withKey('emoji-key'));
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const rows = await suite.db.handle.kysely.selectFrom('contact_submission').select('message').execute();
      expect(rows).toEqual([{ message: 'Thanks \u{1F600}' }]);
    });

    it('answers an identical retry carrying a lone surrogate 400 both times, never 422, and stores nothing', async () => {
      const body = `${json(validPayload).slice(0, -1)},"message":"broken \\ud83d"}`;
      const first = await post(body, withKey('surrogate-key'));
      const second = await post(body, withKey('surrogate-key'));
      expect([first.status, second.status]).toEqual([400, 400]);
      expect(await countRows(suite.db.handle)).toBe(0);
    });

    it('stores submissions with different keys separately', async () => {
      await post(json(validPayload), withKey('key-a'));
      await post(json(validPayload), withKey('key-b'));
      await post(json(validPayload));
      await post(json(validPayload));
      expect(await countRows(suite.db.handle)).toBe(4);
    });
  });

  describe('spam', () => {
    const spamRows = () => suite.db.handle.kysely.selectFrom('contact_submission').select(['name', 'spam_reason', 'delivery_status']).orderBy('id').execute();

    it('answers a filled honeypot exactly like a stored submission, and keeps it as spam that is never queued', async () => {
      const withWebhook = testServices(suite.db.handle, { CONTACT_WEBHOOK_URL: 'http://127.0.0.1:9/hook', CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' });
      const person = await callContact(contactRequest(json(validPayload)), withWebhook);
      const bot = await callContact(contactRequest(json({ ...validPayload, name: 'Bot', website: 'https://spam.example' })), withWebhook);
      expect([bot.status, [...bot.headers], await bot.text()]).toEqual([person.status, [...person.headers], await person.text()]);
      expect(await spamRows()).toEqual([
        { name: validPayload.name, spam_reason: null, delivery_status: 'pending' },
        { name: 'Bot', spam_reason: 'honeypot', delivery_status: 'none' },
      ]);
    });

    it('keeps a submission the heuristics judge spam, with the reason', async () => {
      const response = await post(json({ ...validPayload, name: 'Cheap https://pills.example' }));
      expect(await response.json()).toEqual({ success: true });
      expect(await spamRows()).toEqual([{ name: 'Cheap https://pills.example', spam_reason: 'heuristic: a link in the name or job title', delivery_status: 'none' }]);
    });

    it('answers a bot 200 even when the rest of its submission is invalid, and stores nothing it could not', async () => {
      const response = await post(json({ name: 'x', website: 'spam' }));
      expect(response.status).toBe(200);
      expect(await countRows(suite.db.handle)).toBe(0);
    });

    it('stores a person whose honeypot stayed empty', async () => {
      expect((await post(json({ ...validPayload, website: '' }))).status).toBe(200);
      expect(await countRows(suite.db.handle)).toBe(1);
    });
  });
});
