/**
 * The chat widget's behaviour, loaded on the first click of its button (see
 * src/components/ChatWidget.astro, which renders the markup this module wires up).
 *
 * It posts the conversation to PATHS.chat (/api/chat), shows the reply growing as the bytes arrive
 * (fetch + body.getReader()), keeps the conversation in sessionStorage (this tab only, gone when
 * it closes), and on 429 says how long to wait from Retry-After (RFC 9110 section 10.2.3).
 * Text is inserted as text nodes, never as HTML; only site paths and http(s) URLs become links.
 */
import { findHooks } from '../../lib/dom-hooks.ts';
import { PATHS } from '../../lib/paths.ts';
import { describeWait, retryAfterSeconds } from '../../lib/retry-after.ts';

interface Turn {
  role: 'user' | 'assistant';
  content: string;
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

/** Site paths ("/contact") and http(s) URLs in a reply. */
const LINKS = /(https?:\/\/[^\s<>"']+|(?<![\w/.])\/[a-z0-9][\w\-./?=&#%]*)/gi;

function loadTurns(): Turn[] {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]');
    if (!Array.isArray(saved)) return [];
    return saved.filter(
      (t): t is Turn => typeof t === 'object' && t !== null && (t.role === 'user' || t.role === 'assistant') && typeof t.content === 'string' && t.content !== '',
    );
  } catch {
    return []; // storage disabled or corrupt: start afresh
  }
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

/** Write `text` into `element` as text nodes and links. */
function renderText(element: HTMLElement, text: string): void {
  const nodes: Node[] = [];
  let last = 0;
  for (const match of text.matchAll(LINKS)) {
    let href = match[0];
    // Sentence punctuation after a link is not part of it.
    const trailing = /[.,;:!?)'"]+$/.exec(href)?.[0] ?? '';
    href = href.slice(0, href.length - trailing.length);
    if (href.length <= 1) continue;
    const start = match.index;
    if (start > last) nodes.push(document.createTextNode(text.slice(last, start)));
    const link = document.createElement('a');
    link.href = href;
    link.textContent = href;
    if (/^https?:/.test(href) && new URL(href).origin !== location.origin) link.rel = 'noopener noreferrer';
    nodes.push(link);
    last = start + href.length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  element.replaceChildren(...nodes);
}

export function mountChat(root: HTMLElement): ChatWidget {
  const { toggle, close: closeButton, panel, log, notice, form, input, send, clear } = findHooks(root, 'chat', {
    toggle: HTMLButtonElement,
    close: HTMLButtonElement,
    panel: HTMLElement,
    log: HTMLElement,
    notice: HTMLElement,
    form: HTMLFormElement,
    input: HTMLTextAreaElement,
    send: HTMLButtonElement,
    clear: HTMLButtonElement,
  });

  let turns = loadTurns();
  let busy = false;
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
  for (const turn of turns) bubble(turn);

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

    const undo = (message: string) => {
      // The question was not answered: take it back and return it to the field to retry.
      turns = turns.filter((turn) => turn !== userTurn);
      userBubble.remove();
      replyBubble.remove();
      input.value = question;
      if (message) setNotice(message);
    };

    try {
      const response = await fetch(PATHS.chat, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: turnsToSend(turns) }),
      });
      if (!response.ok || !response.body) {
        undo(await explain(response));
        if (response.status === 429) holdFor(retryAfterSeconds(response.headers.get('retry-after')));
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let reply = '';
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
      turns.push({ role: 'assistant', content: reply });
      saveTurns(turns);
    } catch {
      undo("Couldn't reach the assistant. Check your connection and try again.");
    } finally {
      replyBubble.removeAttribute('aria-busy');
      busy = false;
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
