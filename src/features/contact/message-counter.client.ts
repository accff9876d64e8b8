/**
 * The contact message's "characters left" counter: shown at once as the person types, and
 * announced to screen readers through a polite status only once typing pauses (announcing every
 * key would drown out what they type). Markup: src/components/ContactForm.astro.
 */
import { describeRemaining } from './contact-form.ts';

/** Screen readers hear the counter after typing pauses this long, not on every key. */
const COUNTER_ANNOUNCE_DELAY_MS = 1_000;

/** Wire the counter under `root`; returns the function that redraws it (silently), e.g. after a reset. */
export function mountMessageCounter(root: HTMLElement): () => void {
  const textarea = root.querySelector<HTMLTextAreaElement>('textarea[data-counter-limit]');
  const counter = root.querySelector<HTMLElement>('[data-contact-counter]');
  const status = root.querySelector<HTMLElement>('[data-contact-counter-status]');
  if (!textarea || !counter) return () => {};
  const limit = Number(textarea.dataset['counterLimit']);
  let announce: ReturnType<typeof setTimeout> | undefined;
  const update = (speak: boolean) => {
    const said = describeRemaining(textarea.value.length, limit);
    counter.textContent = said;
    counter.classList.toggle('is-near', limit - textarea.value.length < limit / 10);
    clearTimeout(announce);
    if (speak && status) announce = setTimeout(() => (status.textContent = said), COUNTER_ANNOUNCE_DELAY_MS);
  };
  textarea.addEventListener('input', () => update(true));
  update(false);
  return () => update(false);
}
