import { describe, expect, it } from 'vitest';
import { turnsToSend } from '../../../../src/features/chat/widget-state.client.ts';

describe('the widget', () => {
  it('sends at most the 50 most recent turns, each within 4,000 characters', () => {
    const turns = Array.from({ length: 70 }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `turn ${i} ${'x'.repeat(i === 69 ? 5000 : 10)}` }));
    const sent = turnsToSend(turns);
    expect(sent).toHaveLength(50);
    expect(sent[0]!.content.startsWith('turn 20 ')).toBe(true);
    expect(sent.at(-1)!.content).toHaveLength(4000);
  });

  it('keeps the request body under the server limit by dropping the oldest turns', () => {
    const turns = Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `${i} ${'é'.repeat(3990)}` }));
    const sent = turnsToSend(turns);
    expect(new TextEncoder().encode(JSON.stringify({ messages: sent })).length).toBeLessThanOrEqual(64 * 1024);
    expect(sent.at(-1)!.content.startsWith('29 ')).toBe(true);
    expect(sent.length).toBeLessThan(30);
  });
});
