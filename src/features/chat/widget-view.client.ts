/**
 * The chat panel on the page: its parts (ChatWidget.astro's `data-chat-*` hooks), the message
 * bubbles and source lists, the status line, opening and closing, the Send/Stop swap, and the
 * hold on Send after a 429.
 */
import { findHooks } from '../../lib/dom-hooks.ts';
import { describeWait } from '../../lib/retry-after.ts';
import type { ChatSource } from './sources.ts';
import { renderText, sourcesBox } from './widget-dom.client.ts';
import type { Turn } from './widget-state.client.ts';

const HOOKS = {
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
};

export function chatView(root: HTMLElement) {
  const hooks = findHooks(root, 'chat', HOOKS);
  const { toggle, panel, log, notice, input, send, stop } = hooks;
  let holdUntil = 0;
  let holds = 0;
  let sourceLists = 0;

  const setNotice = (text: string) => {
    notice.textContent = text;
  };

  return {
    hooks,
    setNotice,
    scrollToEnd(): void {
      log.scrollTop = log.scrollHeight;
    },
    bubble(turn: Turn): HTMLElement {
      const element = document.createElement('p');
      element.className = `chat-msg chat-msg--${turn.role}`;
      renderText(element, turn.content);
      log.append(element);
      log.scrollTop = log.scrollHeight;
      return element;
    },
    /** An answer's sources, right after its bubble (a list cannot sit inside its paragraph). */
    showSources(answer: HTMLElement, sources: readonly ChatSource[]): HTMLElement | undefined {
      const box = sourcesBox(sources, `chat-sources-${++sourceLists}`);
      if (box) answer.after(box);
      return box;
    },
    open(): void {
      panel.hidden = false;
      toggle.setAttribute('aria-expanded', 'true');
      log.scrollTop = log.scrollHeight;
      input.focus();
    },
    close(): void {
      panel.hidden = true;
      toggle.setAttribute('aria-expanded', 'false');
      toggle.focus();
    },
    /**
     * While a reply streams, Stop stands where Send was. Focus follows the button the visitor was
     * on, so a keyboard user can stop with the same key press and is not left on a hidden button.
     */
    setStreaming(streaming: boolean): void {
      const hadFocus = document.activeElement === (streaming ? send : stop);
      send.hidden = streaming;
      stop.hidden = !streaming;
      if (hadFocus) (streaming ? stop : input).focus();
    },
    /** After a 429, hold the send button for the announced wait. */
    holdFor(seconds: number): void {
      holdUntil = Date.now() + seconds * 1000;
      const hold = ++holds;
      send.disabled = true;
      setNotice(`You've reached the assistant's limit for now. Please wait ${describeWait(seconds)} and try again.`);
      setTimeout(() => {
        if (hold !== holds) return; // a later 429 set its own wait
        send.disabled = false;
        setNotice('');
      }, seconds * 1000);
    },
    /** Send works again once a reply has ended, unless a 429's wait is still running. */
    releaseSend(): void {
      if (Date.now() >= holdUntil) send.disabled = false;
    },
  };
}

export type ChatView = ReturnType<typeof chatView>;
