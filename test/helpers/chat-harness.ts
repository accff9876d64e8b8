/**
 * Shared by the chat tests: services with a chosen configuration, requests as a browser would
 * send them, and readers for streamed and problem responses.
 */
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/app/config.ts';
import { chatEndpoint, type ChatDeps } from '../../src/features/chat/chat.endpoint.ts';
import { CHAT_LIMITS } from '../../src/features/chat/chat-request.ts';
import { callEndpoint } from './endpoint.ts';
import { AssistantIndex } from '../../src/features/chat/assistant-index.ts';
import { siteKnowledge, siteNews } from './site-corpus.ts';

export const SITE = 'https://meridian.test';
export const PARTNER = 'https://partner.test';
export const CHAT_URL = `${SITE}/api/chat`;

/** What the chat takes from the process-wide services (the whole configuration, as the server has it). */
export interface ChatServices {
  config: Config;
  log: ChatDeps['log'];
}

export function chatServices(env: Record<string, string> = {}): ChatServices {
  return {
    config: loadConfig({ NODE_ENV: 'test', SITE_URL: SITE, ALLOWED_ORIGINS: `${SITE},${PARTNER}`, ...env }),
    log: pino({ level: 'silent' }),
  };
}

let siteIndex: AssistantIndex | undefined;
/** The index over the real content/ files, built once per test file. */
export function siteAssistantIndex(): AssistantIndex {
  siteIndex ??= AssistantIndex.fromCorpus({ news: siteNews(), knowledge: siteKnowledge() });
  return siteIndex;
}

/** The chat's own dependencies besides the services: the index and the pacing. */
export type ChatOwnDeps = Omit<ChatDeps, 'config' | 'log'>;

export function chatDeps(overrides: Partial<ChatOwnDeps> = {}): ChatOwnDeps {
  return { assistantIndex: siteAssistantIndex, chunkDelayMs: 0, ...overrides };
}

/** The chat endpoint called as the Astro adapter calls it, with the route's body limit. */
export function callChat(request: Request, services: ChatServices, deps: ChatOwnDeps = chatDeps()): Promise<Response> {
  return callEndpoint(chatEndpoint, request, { ...services, ...deps }, { bodyLimit: CHAT_LIMITS.maxBodyBytes });
}

export interface ChatRequestInit {
  /** Origin header; null leaves it out. Default: the site itself. */
  origin?: string | null;
  /** Content-Type header; null leaves it out. */
  contentType?: string | null;
  method?: string;
  signal?: AbortSignal;
}

/** A request as a browser page sends it. A string body goes out as bytes, so no type is implied. */
export function chatRequest(body: unknown, init: ChatRequestInit = {}): Request {
  const headers = new Headers();
  const origin = init.origin === undefined ? SITE : init.origin;
  if (origin !== null) headers.set('origin', origin);
  const contentType = init.contentType === undefined ? 'application/json' : init.contentType;
  if (contentType !== null) headers.set('content-type', contentType);
  const method = init.method ?? 'POST';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Request(CHAT_URL, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? {} : { body: new TextEncoder().encode(text) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

export const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

/** Status, content type and parsed problem body, for inline snapshots. */
export async function problemOf(response: Response): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: text ? JSON.parse(text) : null };
}

/** Read a streamed body to the end, keeping the pieces as they arrived. */
export async function readChunks(response: Response): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value, { stream: true }));
  }
}

/** One JSON log line as pino writes it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** Chat services whose log lines (at `level` and above) are kept in `lines`. */
export function loggedChatServices(env: Record<string, string> = {}, level = 'info'): { services: ChatServices; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { services: { ...chatServices(env), log }, lines };
}
