/**
 * The chat widget's behaviour, loaded on the first click of its button (see
 * src/components/ChatWidget.astro, which renders the markup this module wires up).
 *
 * It posts the conversation to PATHS.chat and shows the reply growing as the bytes arrive
 * (widget-network.client.ts), keeps the conversation in sessionStorage (widget-state.client.ts),
 * and on 429 says how long to wait from Retry-After (RFC 9110 section 10.2.3).
 * While a reply streams, a Stop button takes the Send button's place and aborts the request
 * (AbortController); the server then stops generating. The pages an answer came from arrive in
 * the reply's `Link` header (rel="via", see sources.ts) and are listed as links under it.
 * Text is inserted as text nodes, never as HTML; only site paths and http(s) URLs without userinfo
 * become links, and sources restored from sessionStorage are checked as strictly as new ones.
 */
import { retryAfterSeconds } from '../../lib/retry-after.ts';
import type { ChatSource } from './sources.ts';
import { renderText, sourcesFrom } from './widget-dom.client.ts';
import { explain, postConversation, readReply } from './widget-network.client.ts';
import { loadTurns, saveTurns, type Turn } from './widget-state.client.ts';
import { chatView, type ChatView } from './widget-view.client.ts';

export interface ChatWidget {
  open(): void;
  close(): void;
}

/** The conversation and the request in progress, shared by the panel's handlers. */
interface Conversation {
  turns: Turn[];
  busy: boolean;
  /** Aborts the reply being received; set while one is. */
  inFlight: AbortController | undefined;
}

/** Send `question` and show the reply as it streams; on failure the question goes back to the field. */
async function ask(view: ChatView, state: Conversation, question: string): Promise<void> {
  const { input, send } = view.hooks;
  state.busy = true;
  send.disabled = true;
  view.setNotice('');
  const userTurn: Turn = { role: 'user', content: question };
  state.turns.push(userTurn);
  const userBubble = view.bubble(userTurn);
  const replyBubble = view.bubble({ role: 'assistant', content: '' });
  replyBubble.setAttribute('aria-busy', 'true');
  input.value = '';
  const controller = new AbortController();
  state.inFlight = controller;
  view.setStreaming(true);
  let sourcesBox: HTMLElement | undefined;
  let sources: ChatSource[] = [];
  let reply = '';

  const undo = (message: string) => {
    // The question was not answered: take it back and return it to the field to retry.
    state.turns = state.turns.filter((turn) => turn !== userTurn);
    userBubble.remove();
    replyBubble.remove();
    sourcesBox?.remove();
    input.value = question;
    if (message) view.setNotice(message);
  };
  const keep = () => {
    state.turns.push({ role: 'assistant', content: reply, sources });
    saveTurns(state.turns);
  };

  try {
    const response = await postConversation(state.turns, controller.signal);
    if (!response.ok || !response.body) {
      undo(await explain(response));
      if (response.status === 429) view.holdFor(retryAfterSeconds(response.headers.get('retry-after')));
      return;
    }
    // Known before the text: retrieval comes first. Marked busy with the reply, so a screen
    // reader reads the answer and then its sources, once.
    sources = sourcesFrom(response);
    sourcesBox = view.showSources(replyBubble, sources);
    sourcesBox?.setAttribute('aria-busy', 'true');
    reply = await readReply(response.body, (text) => {
      reply = text;
      renderText(replyBubble, reply);
      view.scrollToEnd();
    });
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
      view.setNotice('Stopped. The answer above is incomplete.');
    }
  } finally {
    replyBubble.removeAttribute('aria-busy');
    sourcesBox?.removeAttribute('aria-busy');
    state.inFlight = undefined;
    state.busy = false;
    view.setStreaming(false);
    view.releaseSend();
  }
}

export function mountChat(root: HTMLElement): ChatWidget {
  const view = chatView(root);
  const { toggle, close: closeButton, panel, log, form, input, send, stop, clear } = view.hooks;
  const state: Conversation = { turns: loadTurns(), busy: false, inFlight: undefined };
  for (const turn of state.turns) {
    const element = view.bubble(turn);
    if (turn.role === 'assistant') view.showSources(element, turn.sources ?? []);
  }

  toggle.addEventListener('click', () => (panel.hidden ? view.open() : view.close()));
  closeButton.addEventListener('click', view.close);
  root.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !panel.hidden) {
      event.preventDefault();
      view.close();
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
    if (question === '' || state.busy || send.disabled) return;
    void ask(view, state, question);
  });
  stop.addEventListener('click', () => state.inFlight?.abort());
  clear.addEventListener('click', () => {
    if (state.busy) return;
    state.turns = [];
    saveTurns(state.turns);
    log.replaceChildren();
    view.setNotice('');
    input.focus();
  });

  return { open: view.open, close: view.close };
}
