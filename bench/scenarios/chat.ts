/**
 * `POST /api/chat` with the built-in assistant: time to first byte at 10 concurrent clients,
 * each sending the site's own Origin (the chat refuses others) and reading the whole reply.
 */
import { median, timeToFirstByte, type TtfbResult } from '../lib/load.ts';
import type { Running } from '../lib/proc.ts';
import type { Settings } from '../lib/settings.ts';

export const CHAT_TARGET = { p50Ms: 20, p99Ms: 50 };

const QUESTIONS = [
  'How do I use the data API?',
  'What are the rate limits?',
  'Where is your sellers.json?',
  'How can I contact the team about a high priority issue?',
  'What does the transparency report say?',
];

export interface ChatOutcome {
  result: TtfbResult;
  invalid?: string;
  met: boolean;
}

export async function runChat(server: Running, settings: Settings): Promise<ChatOutcome> {
  const spec = {
    url: `${server.url}/api/chat`,
    headers: { 'content-type': 'application/json', origin: server.url },
    bodies: QUESTIONS.map((q) => JSON.stringify({ messages: [{ role: 'user', content: q }] })),
    workers: settings.chatWorkers,
  };
  await timeToFirstByte({ ...spec, seconds: settings.warmupSeconds });
  const rounds: TtfbResult[] = [];
  for (let round = 0; round < settings.rounds; round++) rounds.push(await timeToFirstByte({ ...spec, seconds: settings.seconds }));
  const statuses: Record<string, number> = {};
  for (const r of rounds) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const result: TtfbResult = {
    requests: rounds.reduce((a, r) => a + r.requests, 0),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    max: Math.max(...rounds.map((r) => r.max)),
    statuses,
  };
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  const invalid = (statuses['200'] ?? 0) < total * 0.99 ? `responses by status: ${JSON.stringify(statuses)}` : undefined;
  return { result, ...(invalid ? { invalid } : {}), met: !invalid && result.p50 <= CHAT_TARGET.p50Ms && result.p99 <= CHAT_TARGET.p99Ms };
}
