/**
 * The chat's sources and stopping through the real server (`node src/app/main.ts`, edge and
 * Astro's Node adapter), with an LLM configured against the local fake provider: the `Link`
 * header survives the edge and is readable cross-origin, and a client that hangs up mid-answer
 * makes the server hang up on the provider and log the stopped reply. The help pages' numbers
 * are the running configuration's, for the provider and for the built-in assistant alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSourcesLink } from '../../../../src/features/chat/sources.ts';
import { startFakeLlm, type FakeLlm } from '../../../fixtures/fake-llm.ts';
import { startServer, type RunningServer } from '../../../helpers/server.ts';

const PARTNER = 'https://partner.test';
let llm: FakeLlm;
let server: RunningServer;

beforeAll(async () => {
  llm = await startFakeLlm();
  // Limits other than the defaults: the help pages must state these, not numbers of their own.
  server = await startServer({
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'fake-model',
    LLM_TIMEOUT_MS: '20000',
    ALLOWED_ORIGINS: PARTNER,
    RATE_LIMIT_PAGE_MINUTE: '123',
    RATE_LIMIT_IPV6_PREFIX: '48',
  });
});
afterAll(async () => {
  await server?.stop();
  await llm?.close();
});

const ask = (content: string, signal?: AbortSignal) =>
  fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: PARTNER },
    body: JSON.stringify({ messages: [{ role: 'user', content }] }),
    ...(signal ? { signal } : {}),
  });

/** The provider request that carried `question` (the server's warm-up sends one of its own). */
const upstreamFor = (question: string) => llm.requests.find((request) => request.body.messages?.at(-1)?.content === question);

const logLines = (msg: string) => server.output.filter((line) => line.includes(`"msg":"${msg}"`)).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('POST /api/chat through the server', () => {
  it('sends the sources in a Link header that a cross-origin page may read, and the body unchanged', async () => {
    llm.behaviour = { kind: 'reply', tokens: ['Our ', 'sellers.json ', 'lists ', 'every ', 'seller.'] };
    const response = await ask('What is sellers.json?');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('Our sellers.json lists every seller.');
    const sources = parseSourcesLink(response.headers.get('link'));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.every((source) => source.url.startsWith('/'))).toBe(true);
    expect(response.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(response.headers.get('access-control-expose-headers')?.split(', ')).toContain('Link');
    // Each source is a page the server serves.
    for (const source of sources) expect((await fetch(`${server.url}${source.url}`)).status).toBe(200);
  });

  it('stops generating when the client hangs up mid-answer', async () => {
    const tokens = Array.from({ length: 300 }, (_, i) => `t${i} `);
    llm.behaviour = { kind: 'reply', tokens, delayMs: 50 };
    const question = 'Who is listed in sellers.json?';
    const before = logLines('chat reply stopped early').length;
    const client = new AbortController();
    const response = await ask(question, client.signal);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('t2 ')) text += new TextDecoder().decode((await reader.read()).value);
    client.abort();

    const upstream = upstreamFor(question)!;
    await upstream.finished;
    expect(upstream.abortedByClient).toBe(true);
    expect(upstream.tokensSent).toBeLessThan(tokens.length / 2);
    await expect.poll(() => logLines('chat reply stopped early').length).toBe(before + 1);
    const stopped = logLines('chat reply stopped early').at(-1)!;
    expect(stopped).toMatchObject({ assistant: 'llm' });
    expect(stopped['pieces']).toBeGreaterThanOrEqual(3);
    expect(stopped['pieces']).toBeLessThan(tokens.length / 2);
    // The edge's request line says the response was cut short too.
    await expect.poll(() => logLines('request').some((line) => line['path'] === '/api/chat' && line['aborted'] === true)).toBe(true);
  });

  it('states the limits the server was started with, to the provider and in the built-in reply', async () => {
    llm.behaviour = { kind: 'reply', tokens: ['See ', 'the ', 'limits.'] };
    const question = 'What are the rate limits, and how are IPv6 clients counted?';
    expect(await (await ask(question)).text()).toBe('See the limits.');
    const system = String(upstreamFor(question)!.body.messages?.[0]?.content);
    expect(system).toContain('Pages: 123 requests a minute.');
    expect(system).toContain('counted as its /48 network');
    expect(system).not.toContain('{{');

    llm.behaviour = { kind: 'refuse', status: 503 };
    expect(await (await ask('What are the rate limits?')).text()).toContain('Pages: 123 requests a minute.');
    expect(await (await ask('How are IPv6 clients counted?')).text()).toContain('counted as its /48 network');
  });

  it("sends the built-in assistant's sources when it answers instead of the provider", async () => {
    llm.behaviour = { kind: 'refuse', status: 503 };
    const response = await ask("What's new?");
    const sources = parseSourcesLink(response.headers.get('link'));
    expect(sources).toHaveLength(3);
    const text = await response.text();
    for (const source of sources) expect(text).toContain(source.url);
  });
});
