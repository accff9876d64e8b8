/**
 * The chat widget's behaviour, loaded on the first click of its button (see
 * src/components/ChatWidget.astro, which renders the markup this module wires up).
 *
 * It posts the conversation to PATHS.chat (/api/chat), shows the reply growing as the bytes arrive
 * (fetch + body.getReader()), keeps the conversation in sessionStorage (this tab only, gone when
 * it closes), and on 429 says how long to wait from Retry-After (RFC 9110 section 10.2.3).
 * While a reply streams, a Stop button takes the Send button's place and aborts the request
 * (AbortController); the server then stops generating. The pages an answer came from arrive in
 * the reply's `Link` header (rel="via", see sources.ts) and are listed as links under it.
 * Text is inserted as text nodes, never as HTML; only site paths and http(s) URLs without userinfo
 * become links, and sources restored from sessionStorage are checked as strictly as new ones.
 */
import { findHooks } from '../../lib/dom-hooks.ts';
import { PATHS } from '../../lib/paths.ts';
import { describeWait, retryAfterSeconds } from '../../lib/retry-after.ts';
import type { ChatSource } from './sources.ts';
import { linkTarget, renderText, sourcesBox, sourcesFrom } from './widget-dom.client.ts';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  /** Pages the answer came from (assistant turns), kept so they show again after a reload. */
  sources?: ChatSource[];
}

export interface ChatWidget {
  open(): void;
  close(): void;
}

const STORAGE_KEY = 'site-assistant:conversation:v1';
/** The server's limits (src/features/chat/chat-request.ts): stay inside them when sending. */
const MAX_MESSAGES = 50;
const MAX_CONTENT_CHARS = 4000;
const MAX_BODY_BYTES = 60_000;

function loadTurns(): Turn[] {
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
 * A source worth restoring. sessionStorage is writable by any script of this origin (and by the
 * visitor), so what comes back is checked as strictly as a Link header is (sourcesFrom): a
 * `javascript:` or userinfo URL there must not become a link either.
 */
export function isSource(value: unknown): value is ChatSource {
  if (typeof value !== 'object' || value === null) return false;
  const { url, title } = value as Partial<ChatSource>;
  return typeof url === 'string' && typeof title === 'string' && linkTarget(url, location.href) !== undefined;
}

function saveTurns(turns: readonly Turn[]): void {
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


// Shared with the other pages' scripts (src/lib/retry-after.ts); re-exported for tests.
export { describeWait, retryAfterSeconds } from '../../lib/retry-after.ts';

export function mountChat(root: HTMLElement): ChatWidget {
  const { toggle, close: closeButton, panel, log, notice, form, input, send, stop, clear } = findHooks(root, 'chat', {
    toggle: HTMLButtonElement,
    close: HTMLButtonElement,
    panel: HTMLElement,
    log: HTMLElement,
    notice: HTMLElement,
    form: HTMLFormElement,
    input: HTMLTextAreaElement,
    send: HTMLButtonElement,
    stop: HTMLButtonElement,
    clear: HTMLButtonElement,
  });

  let turns = loadTurns();
  let busy = false;
  /** Aborts the reply being received; set while one is. */
  let inFlight: AbortController | undefined;
  let holdUntil = 0;
  let holds = 0;

  const bubble = (turn: Turn): HTMLElement => {
    const element = document.createElement('p');
    element.className = `chat-msg chat-msg--${turn.role}`;
    renderText(element, turn.content);
    log.append(element);
    log.scrollTop = log.scrollHeight;
    return element;
  };

  let sourceLists = 0;
  /** An answer's sources, right after its bubble (a list cannot sit inside its paragraph). */
  const showSources = (answer: HTMLElement, sources: readonly ChatSource[]): HTMLElement | undefined => {
    const box = sourcesBox(sources, `chat-sources-${++sourceLists}`);
    if (box) answer.after(box);
    return box;
  };
  for (const turn of turns) {
    const element = bubble(turn);
    if (turn.role === 'assistant') showSources(element, turn.sources ?? []);
  }

  const setNotice = (text: string) => {
    notice.textContent = text;
  };

  const open = () => {
    panel.hidden = false;
    toggle.setAttribute('aria-expanded', 'true');
    log.scrollTop = log.scrollHeight;
    input.focus();
  };
  const close = () => {
    panel.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
    toggle.focus();
  };

  /**
   * While a reply streams, Stop stands where Send was. Focus follows the button the visitor was
   * on, so a keyboard user can stop with the same key press and is not left on a hidden button.
   */
  const setStreaming = (streaming: boolean) => {
    const hadFocus = document.activeElement === (streaming ? send : stop);
    send.hidden = streaming;
    stop.hidden = !streaming;
    if (hadFocus) (streaming ? stop : input).focus();
  };

  /** After a 429, hold the send button for the announced wait. */
  const holdFor = (seconds: number) => {
    holdUntil = Date.now() + seconds * 1000;
    const hold = ++holds;
    send.disabled = true;
    setNotice(`You've reached the assistant's limit for now. Please wait ${describeWait(seconds)} and try again.`);
    setTimeout(() => {
      if (hold !== holds) return; // a later 429 set its own wait
      send.disabled = false;
      setNotice('');
    }, seconds * 1000);
  };

  async function explain(response: Response): Promise<string> {
    if (response.status === 429) return '';
    let detail = '';
    if (response.headers.get('content-type')?.includes('json')) {
      const problem = (await response.json().catch(() => ({}))) as { detail?: unknown };
      if (typeof problem.detail === 'string') detail = ` ${problem.detail}`;
    }
    return `Sorry, the assistant could not answer (HTTP ${response.status}).${detail}`;
  }

  async function ask(question: string): Promise<void> {
    busy = true;
    send.disabled = true;
    setNotice('');
    const userTurn: Turn = { role: 'user', content: question };
    turns.push(userTurn);
    const userBubble = bubble(userTurn);
    const replyBubble = bubble({ role: 'assistant', content: '' });
    replyBubble.setAttribute('aria-busy', 'true');
    input.value = '';
    const controller = new AbortController();
    inFlight = controller;
    setStreaming(true);
    let sourcesBox: HTMLElement | undefined;
    let sources: ChatSource[] = [];
    let reply = '';

    const undo = (message: string) => {
      // The question was not answered: take it back and return it to the field to retry.
      turns = turns.filter((turn) => turn !== userTurn);
      userBubble.remove();
      replyBubble.remove();
      sourcesBox?.remove();
      input.value = question;
      if (message) setNotice(message);
    };
    const keep = () => {
      turns.push({ role: 'assistant', content: reply, sources });
      saveTurns(turns);
    };

    try {
      const response = await fetch(PATHS.chat, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: turnsToSend(turns) }),
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        undo(await explain(response));
        if (response.status === 429) holdFor(retryAfterSeconds(response.headers.get('retry-after')));
        return;
      }
      // Known before the text: retrieval comes first. Marked busy with the reply, so a screen
      // reader reads the answer and then its sources, once.
      sources = sourcesFrom(response);
      sourcesBox = showSources(replyBubble, sources);
      sourcesBox?.setAttribute('aria-busy', 'true');
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        reply += decoder.decode(value, { stream: true });
        renderText(replyBubble, reply);
        log.scrollTop = log.scrollHeight;
      }
      reply += decoder.decode();
      if (reply.trim() === '') reply = 'Sorry, I have no answer to that. You can ask the team at /contact';
      renderText(replyBubble, reply);
      keep();
    } catch {
      if (!controller.signal.aborted) undo("Couldn't reach the assistant. Check your connection and try again.");
      else if (reply.trim() === '') undo('Stopped before the answer began.');
      else {
        // What arrived stays, marked as cut short, so the conversation can go on from it.
        reply = `${reply.trimEnd()} […]`;
        renderText(replyBubble, reply);
        replyBubble.classList.add('chat-msg--stopped');
        keep();
        setNotice('Stopped. The answer above is incomplete.');
      }
    } finally {
      replyBubble.removeAttribute('aria-busy');
      sourcesBox?.removeAttribute('aria-busy');
      inFlight = undefined;
      busy = false;
      setStreaming(false);
      if (Date.now() >= holdUntil) send.disabled = false;
    }
  }

  toggle.addEventListener('click', () => (panel.hidden ? open() : close()));
  closeButton.addEventListener('click', close);
  root.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !panel.hidden) {
      event.preventDefault();
      close();
    }
  });
  // Enter sends, Shift+Enter starts a new line (not while an input method is composing).
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (question === '' || busy || send.disabled) return;
    void ask(question);
  });
  stop.addEventListener('click', () => inFlight?.abort());
  clear.addEventListener('click', () => {
    if (busy) return;
    turns = [];
    saveTurns(turns);
    log.replaceChildren();
    setNotice('');
    input.focus();
  });

  return { open, close };
}
