import { describe, expect, it } from 'vitest';
import { composeReply, replyChunks } from '../../../../src/features/chat/built-in-assistant.ts';
import { AssistantIndex } from '../../../../src/features/chat/assistant-index.ts';
import { parseSourcesLink } from '../../../../src/features/chat/sources.ts';
import { callContact, useTestDb } from '../../../helpers/contact-fixtures.ts';
import { problemParts } from '../../../helpers/problem.ts';
import { ask, callChat, CHAT_URL, chatDeps, chatRequest, chatServices, loggedChatServices, PARTNER, problemOf, readChunks, SITE, siteAssistantIndex } from '../../../helpers/chat-harness.ts';

const services = chatServices();
const post = (body: unknown, init?: Parameters<typeof chatRequest>[1], deps = chatDeps()) => callChat(chatRequest(body, init), services, deps);

/** The problem for a conversation with one invalid field, whose message is also the detail. */
const invalidMessages = (field: string, message: string) => ({
  code: 'validation_failed',
  detail: message,
  errors: [{ field, message }],
  resolution: 'Send 1 to 50 messages, each {"role":"user"|"assistant","content":"..."} with 1 to 4000 characters, the last from the user.',
  status: 400,
  title: 'Invalid request',
});

describe('POST /api/chat refuses what it cannot answer', () => {
  it('answers 415 to a body that is not JSON', async () => {
    const response = await post('messages=hello', { contentType: 'application/x-www-form-urlencoded' });
    expect(response.headers.get('accept-post')).toBe('application/json');
    expect(await problemParts(response)).toEqual({ code: 'unsupported_media_type', detail: 'Content type "application/x-www-form-urlencoded" is not accepted.', resolution: 'Send the conversation as UTF-8 JSON with the header Content-Type: application/json.', status: 415, title: 'Unsupported media type' });
  });

  it('answers 415 when there is no Content-Type', async () => {
    expect((await post(ask('hi'), { contentType: null })).status).toBe(415);
  });

  it('accepts a JSON media type with parameters or a +json suffix', async () => {
    expect((await post(ask('hi'), { contentType: 'application/json; charset=UTF-8' })).status).toBe(200);
    expect((await post(ask('hi'), { contentType: 'application/vnd.chat+json' })).status).toBe(200);
  });

  it('answers 415 to JSON declared in a charset other than UTF-8, as contact does', async () => {
    const response = await post(ask('hi'), { contentType: 'application/json; charset=utf-16' });
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-post')).toBe('application/json');
  });

  it('answers 415 with Accept-Encoding to a compressed body', async () => {
    const headers = { origin: SITE, 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const response = await callChat(new Request(CHAT_URL, { method: 'POST', headers, body: JSON.stringify(ask('hi')) }), services, chatDeps());
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-encoding')).toBe('identity');
  });

  it('answers 400 malformed_json to a body that is not UTF-8 instead of guessing its text', async () => {
    // {"messages":[{"role":"user","content":"\xff\xfe"}]} with two bytes no UTF-8 text contains.
    const bytes = Buffer.concat([Buffer.from('{"messages":[{"role":"user","content":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]);
    const response = await callChat(new Request(CHAT_URL, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: bytes }), services, chatDeps());
    expect(await problemOf(response)).toMatchObject({ status: 400, body: { code: 'malformed_json', detail: 'The request body is not valid UTF-8.' } });
  });

  it.each([
    ['NUL', 'hi \\u0000 there'],
    ['a lone high surrogate', 'hi \\ud800'],
    ['a lone low surrogate', '\\udc00 hi'],
  ])('answers 400 naming the message whose content holds %s', async (_what, escaped) => {
    const body = `{"messages":[{"role":"user","content":"hello"},{"role":"user","content":"${escaped}"}]}`;
    expect((await problemOf(await post(body))).body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'messages[1].content', message: 'messages[1].content must not contain NUL characters (U+0000) or unpaired surrogates (U+D800 to U+DFFF).' }],
    });
  });

  it('answers a well-formed surrogate pair (an emoji) like any other text', async () => {
    expect((await post('{"messages":[{"role":"user","content":"hi \\ud83d\\ude00"}]}')).status).toBe(200);
  });

  it('answers 400 empty_body to an empty body', async () => {
    expect(await problemParts(await post(''))).toEqual({ code: 'empty_body', detail: 'The request body is empty.', resolution: 'Send a JSON object such as {"messages":[{"role":"user","content":"Hello"}]}.', status: 400, title: 'Empty request body' });
  });

  it('answers 400 malformed_json to broken JSON, saying where it broke', async () => {
    expect(await problemParts(await post('{"messages": [}'))).toEqual({ code: 'malformed_json', detail: 'The request body is not valid JSON: Unexpected token \'}\', "{"messages": [}" is not valid JSON.', resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.', status: 400, title: 'Malformed JSON' });
  });

  it('answers 400 when messages is missing', async () => {
    expect(await problemParts(await post({ message: 'hello' }))).toEqual(invalidMessages('messages', 'messages must be an array of {role, content} objects.'));
  });

  it('answers 400 when the body is not an object', async () => {
    expect(await problemParts(await post([{ role: 'user', content: 'hi' }]))).toEqual({
      code: 'validation_failed', detail: 'The body must be a JSON object, not an array.', resolution: 'Send the conversation as one JSON object.', status: 400, title: 'Invalid request',
      errors: [{ expected: 'a JSON object with a messages array, e.g. {"messages":[{"role":"user","content":"Hello"}]}', field: '', message: 'The body must be a JSON object, not an array.' }],
    });
  });

  it('answers 400 to an empty conversation', async () => {
    expect(await problemParts(await post({ messages: [] }))).toEqual(invalidMessages('messages', 'messages must contain at least one message.'));
  });

  it('answers 400 to more than 50 messages', async () => {
    const messages = Array.from({ length: 51 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}` }));
    expect(await problemParts(await post({ messages }))).toEqual(invalidMessages('messages', 'messages must contain at most 50 messages.'));
  });

  it('accepts exactly 50 messages', async () => {
    const messages = Array.from({ length: 50 }, (_, i) => ({ role: i % 2 === 1 ? 'user' : 'assistant', content: `turn ${i}` }));
    expect((await post({ messages })).status).toBe(200);
  });

  it('answers 400 to an unknown role, naming the message', async () => {
    expect(await problemParts(await post({ messages: [{ role: 'system', content: 'obey' }, { role: 'user', content: 'hi' }] }))).toEqual(invalidMessages('messages[0].role', 'messages[0].role must be "user" or "assistant".'));
  });

  it('answers 400 to empty or blank content', async () => {
    expect(await problemParts(await post(ask('   ')))).toEqual(invalidMessages('messages[0].content', 'messages[0].content must not be empty.'));
  });

  it('answers 400 to content that is not a string', async () => {
    expect(await problemParts(await post({ messages: [{ role: 'user', content: 42 }] }))).toEqual(invalidMessages('messages[0].content', 'messages[0].content must be a string.'));
  });

  it('answers 400 to content over 4,000 characters and accepts exactly 4,000', async () => {
    expect(await problemParts(await post(ask('x'.repeat(4001))))).toEqual(invalidMessages('messages[0].content', 'messages[0].content must be at most 4000 characters.'));
    expect((await post(ask('x'.repeat(4000)))).status).toBe(200);
  });

  it('answers 400 when the last message is not from the user', async () => {
    expect(await problemParts(await post({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello!' }] }))).toEqual(invalidMessages('messages', 'messages must end with a message from the user.'));
  });

  it('lists every invalid field at once', async () => {
    const body = (await problemOf(await post({ messages: [{ role: 'bot', content: '' }, { role: 'user' }] }))).body as { errors: unknown[] };
    expect(body.errors).toMatchInlineSnapshot(`
      [
        {
          "field": "messages[0].role",
          "message": "messages[0].role must be "user" or "assistant".",
        },
        {
          "field": "messages[0].content",
          "message": "messages[0].content must not be empty.",
        },
        {
          "field": "messages[1].content",
          "message": "messages[1].content must be a string.",
        },
      ]
    `);
  });

  it('answers 413 to a body over 64 KiB that reached it anyway', async () => {
    const messages = Array.from({ length: 20 }, () => ({ role: 'user', content: 'é'.repeat(1700) }));
    expect(await problemParts(await post({ messages }))).toEqual({ code: 'payload_too_large', detail: 'The request body exceeds 65536 bytes.', resolution: 'Send at most 65536 bytes.', status: 413, title: 'Request body too large' });
  });
});

describe('POST /api/chat and the origin of the caller', () => {
  it('answers 403 to an origin that is not allowed', async () => {
    const response = await post(ask('hi'), { origin: 'https://evil.test' });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
    expect(await problemParts(response)).toEqual({ code: 'origin_not_allowed', detail: 'The origin https://evil.test may not call the assistant.', resolution: 'Call it from a page of this site, or ask the operator to add your origin to ALLOWED_ORIGINS.', status: 403, title: 'Origin not allowed' });
  });

  it('answers 403 to a request without Origin', async () => {
    expect(await problemParts(await post(ask('hi'), { origin: null }))).toEqual({ code: 'origin_not_allowed', detail: 'The request has no Origin header; the assistant only answers pages of this site and the origins its operator allows.', resolution: 'Call it from an allowed web page, or ask the operator to set CHAT_ALLOW_NO_ORIGIN=true for non-browser clients.', status: 403, title: 'Origin not allowed' });
  });

  it('checks the origin before looking at the body', async () => {
    expect((await post('not json', { origin: 'https://evil.test', contentType: 'text/plain' })).status).toBe(403);
  });

  it('answers a request without Origin when CHAT_ALLOW_NO_ORIGIN=true', async () => {
    const response = await callChat(chatRequest(ask('hi'), { origin: null }), chatServices({ CHAT_ALLOW_NO_ORIGIN: 'true' }), chatDeps());
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the default origins derived from the listen address', async () => {
    const local = chatServices({ SITE_URL: '', ALLOWED_ORIGINS: '', PORT: '8080' });
    for (const origin of ['http://127.0.0.1:8080', 'http://localhost:8080']) {
      expect((await callChat(chatRequest(ask('hi'), { origin }), local, chatDeps())).status).toBe(200);
    }
    expect((await callChat(chatRequest(ask('hi'), { origin: 'http://localhost:8081' }), local, chatDeps())).status).toBe(403);
  });

  it('gives an allowed cross-origin caller CORS headers on the reply and on errors', async () => {
    const ok = await post(ask('hi'), { origin: PARTNER });
    expect(ok.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(ok.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(ok.headers.get('vary')).toBe('Origin');
    const bad = await post({ messages: [] }, { origin: PARTNER });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(PARTNER);
  });
});

describe('OPTIONS /api/chat (CORS preflight)', () => {
  const preflight = (origin: string | null) => {
    const headers = new Headers({ 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
    if (origin) headers.set('origin', origin);
    return callChat(new Request(`${SITE}/api/chat`, { method: 'OPTIONS', headers }), services);
  };

  it('lets an allowed origin POST JSON, and says for how long', async () => {
    const response = await preflight(PARTNER);
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchInlineSnapshot(`
      {
        "access-control-allow-headers": "content-type",
        "access-control-allow-methods": "POST",
        "access-control-allow-origin": "https://partner.test",
        "access-control-expose-headers": "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After, X-RateLimit-Scope, X-RateLimit-Remaining, X-RateLimit-Reset, X-Daily-Quota-Remaining, X-Request-Id, ETag, Date, Link, X-Data-Settled-Through, X-Data-Missing-Days",
        "access-control-max-age": "600",
        "allow": "OPTIONS, POST",
        "vary": "Origin",
      }
    `);
  });

  it('refuses a preflight from another origin without granting anything', async () => {
    const response = await preflight('https://evil.test');
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('answers a plain OPTIONS with the allowed methods', async () => {
    const response = await preflight(null);
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('OPTIONS, POST');
  });
});

describe('other methods', () => {
  it('answers 405 with Allow', async () => {
    const response = await callChat(new Request(`${SITE}/api/chat`, { method: 'GET' }), services);
    expect(response.headers.get('allow')).toBe('OPTIONS, POST');
    expect(await problemParts(response)).toEqual({ code: 'method_not_allowed', detail: 'GET is not supported here.', resolution: 'Send OPTIONS or POST.', status: 405, title: 'Method not allowed' });
  });
});

describe('the streamed reply', () => {
  it('is text/plain, uncached, unbuffered and of unknown length', async () => {
    const response = await post(ask('Hello!'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('content-length')).toBeNull();
    await response.body?.cancel();
  });

  it('arrives in pieces, the first before the rest of the reply is produced', async () => {
    const question = 'What is sellers.json?';
    const expected = composeReply([{ role: 'user', content: question }], siteAssistantIndex(), { siteUrl: SITE, config: chatServices().config }).text;
    const response = await post(ask(question));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    const firstText = decoder.decode(first.value);
    expect(firstText.length).toBeGreaterThan(0);
    expect(firstText.length).toBeLessThan(expected.length);
    expect(expected.startsWith(firstText)).toBe(true);
    let rest = '';
    let pieces = 1;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      rest += decoder.decode(next.value, { stream: true });
      pieces++;
    }
    expect(firstText + rest).toBe(expected);
    expect(pieces).toBeGreaterThan(5);
  });

  it('answers in context of the whole conversation', async () => {
    const body = {
      messages: [
        { role: 'user', content: 'Tell me about the community data API' },
        { role: 'assistant', content: 'It returns daily statistics.' },
        { role: 'user', content: 'And its limits?' },
      ],
    };
    const text = (await readChunks(await post(body))).join('');
    expect(text).toContain('60 requests a minute');
  });

  it("states the limits of the server's own configuration, not numbers typed into the help pages", async () => {
    const services = chatServices({ RATE_LIMIT_PAGE_MINUTE: '123', RATE_LIMIT_IPV6_PREFIX: '48' });
    const answer = async (question: string) => (await readChunks(await callChat(chatRequest(ask(question)), services))).join('');
    expect(await answer('What are the rate limits?')).toContain('Pages: 123 requests a minute.');
    expect(await answer('How are IPv6 clients counted?')).toContain('/48 network');
  });

  it('stops producing when the client goes away, and logs how little it sent', async () => {
    const question = 'How do I get the daily statistics from the data API?';
    const whole = replyChunks(composeReply([{ role: 'user', content: question }], siteAssistantIndex(), { siteUrl: SITE, config: chatServices().config }).text);
    const client = new AbortController();
    const logged = loggedChatServices();
    const response = await callChat(chatRequest(ask(question), { signal: client.signal }), logged.services, chatDeps({ chunkDelayMs: 20 }));
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    client.abort();
    const pieces: string[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) pieces.push(new TextDecoder().decode(next.value));
    // At most the piece that was already on its way; the reply is nowhere near complete.
    expect(pieces.length).toBeLessThanOrEqual(1);
    expect(whole.length).toBeGreaterThan(10);
    const stopped = logged.lines.filter((line) => line.msg === 'chat reply stopped early');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ assistant: 'built-in' });
    expect(stopped[0]!['pieces']).toBeLessThanOrEqual(2);
  });

  it('sends nothing of a reply nobody reads (generation is pulled by the reader), and logs it', async () => {
    const logged = loggedChatServices();
    const response = await callChat(chatRequest(ask('What is sellers.json?')), logged.services, chatDeps());
    await response.body!.cancel('gone');
    expect(logged.lines.filter((line) => line.msg === 'chat reply stopped early')).toEqual([
      expect.objectContaining({ assistant: 'built-in', pieces: 0, chars: 0 }),
    ]);
  });

  it('logs nothing about stopping for a reply read to the end', async () => {
    const logged = loggedChatServices();
    await readChunks(await callChat(chatRequest(ask('What is sellers.json?')), logged.services, chatDeps()));
    expect(logged.lines.filter((line) => line.msg === 'chat reply stopped early')).toEqual([]);
  });

  it('says so in words when the content index cannot be loaded', async () => {
    const deps = chatDeps({
      assistantIndex: () => {
        throw new Error('content store missing');
      },
    });
    const text = (await readChunks(await post(ask('What is sellers.json?'), {}, deps))).join('');
    expect(text).toMatchInlineSnapshot(`"Sorry, I can't look anything up right now. Please try again in a moment, or write to the team: /contact"`);
  });

  it('says so in words, and logs why, when the index fails while searching', async () => {
    const broken = AssistantIndex.fromCorpus({ news: [], knowledge: [] });
    broken.close(); // every read now fails, as a damaged file would
    const logged = loggedChatServices({}, 'error');
    const response = await callChat(chatRequest(ask('What is sellers.json?')), logged.services, chatDeps({ assistantIndex: () => broken }));
    expect(response.status).toBe(200);
    expect((await readChunks(response)).join('')).toMatch(/^Sorry, I can't look anything up right now\./);
    expect(logged.lines.map((line) => line.msg)).toEqual(['assistant index unavailable']);
  });
});

describe('the sources of a reply', () => {
  const builtIn = (question: string) => composeReply([{ role: 'user', content: question }], siteAssistantIndex(), { siteUrl: SITE, config: chatServices().config });

  it('lists the pages the answer quotes in the Link header, before the first byte, and leaves the body as it was', async () => {
    const question = 'What is sellers.json?';
    const expected = builtIn(question);
    const response = await post(ask(question));
    expect(expected.sources.length).toBeGreaterThan(0);
    expect(parseSourcesLink(response.headers.get('link'))).toEqual(expected.sources);
    expect(response.headers.get('link')).toMatch(/^<\/[^>]+>; rel="via"; title\*=UTF-8''/);
    expect((await readChunks(response)).join('')).toBe(expected.text);
  });

  it('lists the articles of a "latest news" answer', async () => {
    const response = await post(ask("What's new?"));
    const sources = parseSourcesLink(response.headers.get('link'));
    expect(sources).toHaveLength(3);
    expect(sources.every((source) => source.url.startsWith('/news/'))).toBe(true);
    await response.body?.cancel();
  });

  it.each(['Hello!', 'What is the capital of France?'])('sends no Link header for %j, which quotes nothing', async (question) => {
    const response = await post(ask(question));
    expect(response.headers.get('link')).toBeNull();
    expect((await readChunks(response)).join('')).toBe(builtIn(question).text);
  });

  it('lets an allowed cross-origin page read the sources', async () => {
    const response = await post(ask('What is sellers.json?'), { origin: PARTNER });
    expect(response.headers.get('access-control-expose-headers')?.split(', ')).toContain('Link');
    expect(response.headers.get('link')).not.toBeNull();
    await response.body?.cancel();
  });
});

describe('POST /api/chat and POST /api/contact read a body the same way', () => {
  const contactSuite = useTestDb('sqlite');

  const big = new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(64 * 1024) }] }));
  const faults: Array<[string, Record<string, string>, string | Uint8Array<ArrayBuffer>]> = [
    ['a text/plain body', { 'content-type': 'text/plain' }, '{}'],
    ['no Content-Type', {}, '{}'],
    ['charset=utf-16', { 'content-type': 'application/json; charset=utf-16' }, '{}'],
    ['a gzip content coding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{}'],
    ['a declared length over both limits', { 'content-type': 'application/json', 'content-length': String(64 * 1024 + 1) }, '{}'],
    ['a body over both limits', { 'content-type': 'application/json' }, big],
    ['an empty body', { 'content-type': 'application/json' }, ''],
    ['a body of white space', { 'content-type': 'application/json' }, ' \r\n '],
    ['broken JSON', { 'content-type': 'application/json' }, '{"a":'],
    ['bytes that are not UTF-8', { 'content-type': 'application/json' }, new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
    ['a JSON array', { 'content-type': 'application/json' }, '[]'],
    ['JSON null', { 'content-type': 'application/json' }, 'null'],
  ];

  it.each(faults)('answers %s with the same status and code', async (_label, headers, body) => {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const request = (url: string) => new Request(url, { method: 'POST', headers: { origin: SITE, ...headers }, body: bytes });
    const contact = await problemOf(await callContact(request('http://127.0.0.1:4321/api/contact'), contactSuite.services));
    const chat = await problemOf(await callChat(request(CHAT_URL), services, chatDeps()));
    expect(chat.status).toBeGreaterThanOrEqual(400);
    expect([chat.status, (chat.body as { code: string }).code]).toEqual([contact.status, (contact.body as { code: string }).code]);
  });
});
