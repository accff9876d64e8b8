import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { useFakeLlm } from '../../../fixtures/fake-llm.ts';
import { ask, callChat, chatDeps, chatRequest, chatServices, readChunks } from '../../../helpers/chat-harness.ts';

const llm = useFakeLlm();
const valueOf = (text: string, sample: string) => Number(text.split('\n').find((line) => line.startsWith(`${sample} `))?.split(' ')[1] ?? 0);

describe('the chat endpoint\'s metrics', () => {
  it('counts replies by assistant, provider failures, and times the first byte of each reply', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const deps = chatDeps({ meter: metrics.meter });
    const withLlm = chatServices({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake-model', LLM_API_KEY: 'test-key', LLM_TIMEOUT_MS: '2000' });
    llm.behaviour = { kind: 'reply', tokens: ['Hello', '!'] };
    await readChunks(await callChat(chatRequest(ask('Hello')), withLlm, deps));
    llm.behaviour = { kind: 'refuse', status: 503, message: 'overloaded' };
    await readChunks(await callChat(chatRequest(ask('Hello')), withLlm, deps));
    await readChunks(await callChat(chatRequest(ask('What is sellers.json?')), chatServices(), deps));
    const text = await metrics.scrape();
    expect(valueOf(text, 'chat_replies_total{assistant="llm"}')).toBe(1);
    expect(valueOf(text, 'chat_replies_total{assistant="built-in"}')).toBe(2);
    expect(valueOf(text, 'chat_provider_failures_total')).toBe(1);
    expect(valueOf(text, 'chat_first_byte_seconds_count{assistant="llm"}')).toBe(1);
    expect(valueOf(text, 'chat_first_byte_seconds_count{assistant="built-in"}')).toBe(2);
  });
});
