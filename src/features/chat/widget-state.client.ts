/**
 * The chat widget's conversation: its turns, kept in sessionStorage (this tab only, gone when it
 * closes), and the part of it that fits one request. What comes back from storage is checked as
 * strictly as a new reply: any script of this origin, and the visitor, can write there.
 */
import type { ChatSource } from './sources.ts';
import { linkTarget } from './widget-dom.client.ts';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** Pages the answer came from (assistant turns), kept so they show again after a reload. */
  sources?: ChatSource[];
}

const STORAGE_KEY = 'site-assistant:conversation:v1';
/** The server's limits (src/features/chat/chat-request.ts): stay inside them when sending. */
const MAX_MESSAGES = 50;
const MAX_CONTENT_CHARS = 4000;
const MAX_BODY_BYTES = 60_000;

export function loadTurns(): Turn[] {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]');
    if (!Array.isArray(saved)) return [];
    return saved
      .filter((t): t is Turn => typeof t === 'object' && t !== null && (t.role === 'user' || t.role === 'assistant') && typeof t.content === 'string' && t.content !== '')
      .map((t) => ({ role: t.role, content: t.content, sources: Array.isArray(t.sources) ? t.sources.filter(isSource) : [] }));
  } catch {
    return []; // storage disabled or corrupt: start afresh
  }
}

/**
 * A source worth restoring: a `javascript:` or userinfo URL from storage must not become a link
 * any more than one from a Link header may (sourcesFrom).
 */
function isSource(value: unknown): value is ChatSource {
  if (typeof value !== 'object' || value === null) return false;
  const { url, title } = value as Partial<ChatSource>;
  return typeof url === 'string' && typeof title === 'string' && linkTarget(url, location.href) !== undefined;
}

export function saveTurns(turns: readonly Turn[]): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(turns.slice(-MAX_MESSAGES)));
  } catch {
    // Storage full or disabled: the conversation still works, it just won't survive a reload.
  }
}

/** The most recent turns that fit the request limits, starting with a user turn where possible. */
export function turnsToSend(turns: readonly Turn[]): Turn[] {
  const out: Turn[] = [];
  let bytes = 20;
  for (let i = turns.length - 1; i >= 0 && out.length < MAX_MESSAGES; i--) {
    const turn = turns[i]!;
    const content = turn.content.slice(0, MAX_CONTENT_CHARS);
    bytes += new TextEncoder().encode(JSON.stringify(content)).length + 40;
    if (bytes > MAX_BODY_BYTES && out.length > 0) break;
    out.unshift({ role: turn.role, content });
  }
  return out;
}
