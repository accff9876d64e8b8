import { describe, expect, it } from 'vitest';
import { CHAT_LIMITS, parseChatRequest } from '../../../../src/features/chat/chat-request.ts';
import { PATHS } from '../../../../src/lib/paths.ts';
import { routeOf } from '../../../../src/server/routes.ts';

describe('ChatRequest', () => {
  it('documents the byte limit the route table enforces', () => {
    expect(CHAT_LIMITS.maxBodyBytes).toBe(routeOf(PATHS.chat).bodyLimit);
  });

  it('parses body text with the same rules as the route, for callers that hold the text', () => {
    expect(parseChatRequest('application/json', '{"messages":[{"role":"user","content":"hi"}],"extra":1}')).toEqual({ messages: [{ role: 'user', content: 'hi' }] });
    expect(() => parseChatRequest('application/json; charset=utf-16', '{}')).toThrow(expect.objectContaining({ status: 415 }));
    expect(() => parseChatRequest('application/json', '{"messages":[{"role":"user","content":"\\u0000"}]}')).toThrow(
      expect.objectContaining({ status: 400, code: 'validation_failed' }),
    );
  });
});
