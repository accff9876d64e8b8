import { describe, expect, it } from 'vitest';
import { llmFetch } from '../../../../src/features/chat/chat.endpoint.ts';
import { publicFetch } from '../../../../src/lib/outbound-guard.ts';

describe('which fetch reaches the LLM provider', () => {
  it('is the guarded one for a provider elsewhere, and the plain one where the operator put it locally on purpose', () => {
    expect(llmFetch({ LLM_BASE_URL: 'https://api.example.com/v1', LLM_ALLOW_PRIVATE: false })).toBe(publicFetch());
    expect(llmFetch({ LLM_BASE_URL: 'https://10.0.0.5/v1', LLM_ALLOW_PRIVATE: false })).toBe(publicFetch());
    for (const base of ['http://127.0.0.1:11434/v1', 'http://localhost:11434/v1', 'http://[::1]:8080/v1']) {
      expect(llmFetch({ LLM_BASE_URL: base, LLM_ALLOW_PRIVATE: false }), base).toBeUndefined();
    }
    expect(llmFetch({ LLM_BASE_URL: 'https://10.0.0.5/v1', LLM_ALLOW_PRIVATE: true })).toBeUndefined();
  });
});
