/**
 * What the logs keep of a failed LLM call, through the production logger (src/server/log.ts)
 * with the configured secrets: the error's name, status and host, never the API key (which some
 * providers repeat in a 401) nor the prompt and the visitor's turns (which the AI SDK's errors
 * carry as `requestBodyValues`).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { secretValues } from '../../../../src/app/config.ts';
import { createLogger } from '../../../../src/server/log.ts';
import { useFakeLlm } from '../../../fixtures/fake-llm.ts';
import { ask, callChat, chatDeps, chatRequest, chatServices, readChunks } from '../../../helpers/chat-harness.ts';

const KEY = 'sk-live-7Hq2ZrX9mN4pL8wK3vB6yT1c';
const VISITOR = 'My name is Ada Lovelace and my phone is +44 20 7946 0958: what is sellers.json?';

const llm = useFakeLlm();

/** Services whose production logger writes into `text` (every line, debug and up). */
function logged(env: Record<string, string> = {}) {
  const base = chatServices({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake-model', LLM_API_KEY: KEY, LLM_TIMEOUT_MS: '2000', ...env });
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString('utf8'));
      done();
    },
  });
  const log = createLogger({ level: 'debug', stream, secrets: secretValues(base.config) });
  return { services: { ...base, log }, text: () => written.join(''), lines: () => written.join('').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('LLM failures in the logs', () => {
  it('never logs the API key a provider repeats in its 401, and says name, status and host', async () => {
    llm.behaviour = { kind: 'refuse', status: 401, echoKey: true };
    const { services, text, lines } = logged();
    await readChunks(await callChat(chatRequest(ask(VISITOR)), services, chatDeps()));
    expect(llm.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(text()).not.toContain(KEY);
    expect(text()).not.toContain('Ada Lovelace');
    const warned = lines().filter((l) => l['level'] === 'warn');
    expect(warned.map(({ msg, llm: failure }) => ({ msg, llm: failure }))).toEqual([
      { msg: 'LLM unavailable; the built-in assistant answers', llm: { name: 'AI_APICallError', status: 401, host: new URL(llm.baseUrl).host } },
    ]);
  });

  it('never logs the prompt or the visitor turns when the provider drops mid-stream', async () => {
    llm.behaviour = { kind: 'drop', tokens: ['Our ', 'sellers.json ', 'file'], after: 2 };
    const { services, text, lines } = logged();
    const reply = (await readChunks(await callChat(chatRequest({ messages: [{ role: 'user', content: 'Hello there' }, { role: 'user', content: VISITOR }] }), services, chatDeps()))).join('');
    expect(reply).toContain('(The answer was interrupted. Please ask again.)');
    // The provider was sent the visitor's text and our instructions; the log has neither.
    expect(JSON.stringify(llm.requests[0]?.body)).toContain('Ada Lovelace');
    for (const secretish of ['Ada Lovelace', '7946 0958', 'Hello there', 'You are the assistant on the website', 'requestBodyValues', KEY]) expect(text()).not.toContain(secretish);
    const warned = lines().filter((l) => l['level'] === 'warn');
    expect(warned).toHaveLength(1);
    expect(warned.map(({ msg, llm: failure }) => ({ msg, llm: failure }))).toEqual([
      { msg: 'LLM stream failed mid-reply; ended it', llm: { name: 'AI_APICallError', status: 200, code: 'UND_ERR_SOCKET', host: new URL(llm.baseUrl).host } },
    ]);
  });

  it('refuses a provider on a private address unless allowed, at once, and logs the refusal by code', async () => {
    const { services, lines } = logged({ LLM_BASE_URL: 'https://10.255.255.1/v1', LLM_TIMEOUT_MS: '15000' });
    // Refused before any connection: the logged code is the guard's, not a timeout's.
    await readChunks(await callChat(chatRequest(ask('What is sellers.json?')), services, chatDeps()));
    const warned = lines().filter((l) => l['level'] === 'warn');
    expect(warned.map((l) => l['llm'])).toEqual([{ name: 'AI_APICallError', code: 'ERR_OUTBOUND_REFUSED', host: '10.255.255.1' }]);
  });
});
