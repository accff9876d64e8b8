/**
 * The contact form's behaviour in the browser (src/pages/contact.astro renders the markup and
 * imports this from its bundled <script>; CSP allows no inline handlers or style attributes, so
 * every state is an attribute or a class).
 *
 * It sends the form as JSON with fetch and an Idempotency-Key per attempt, disables the button
 * while sending, and shows the server's answer in place: field errors beside their inputs
 * (aria-invalid + aria-describedby, focus on the first), form-level problems in a summary with
 * role="alert", the wait after a 429, a friendly note after a 502, and on success a message
 * that receives focus. Without this script the page still shows the email address to write to.
 */
import { findHooks } from '../../lib/dom-hooks.ts';
import { PATHS } from '../../lib/paths.ts';
import type { FieldError } from './contact.ts';
import {
  AttemptKeys,
  FORM_ALTCHA,
  FORM_FIELDS,
  FORM_HONEYPOT,
  contactBody,
  describeWait,
  isFormField,
  outcomeOf,
  precheck,
  uuidFromBytes,
  type FormField,
  type FormValues,
  type Outcome,
} from './contact-form.ts';
import { mountAltcha } from './altcha-widget.client.ts';
import { mountMessageCounter } from './message-counter.client.ts';

/** The server answers within 5 s by contract; past this the connection is taken as lost. */
const REQUEST_TIMEOUT_MS = 20_000;
/** One automatic resend (same key) after a network failure, after this pause. */
const NETWORK_RETRY_DELAY_MS = 1_500;

function newKey(): string {
  // randomUUID exists only in secure contexts (https, localhost); the fallback is as random.
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return uuidFromBytes(crypto.getRandomValues(new Uint8Array(16)));
}

export interface ContactForm {
  /** Back to an empty form, e.g. for "Send another message". */
  reset(): void;
}

export function mountContactForm(root: HTMLElement): ContactForm {
  const { form, submit, summary, success, successDetail, again, altcha: altchaHost } = findHooks(root, 'contact', {
    form: HTMLFormElement,
    altcha: HTMLElement,
    submit: HTMLButtonElement,
    summary: HTMLElement,
    success: HTMLElement,
    successDetail: HTMLElement,
    again: HTMLButtonElement,
  });
  const fallbackEmail = root.dataset['contactEmail'] ?? '';
  const submitLabel = submit.textContent ?? 'Send';

  const keys = new AttemptKeys(newKey);
  let sending = false;
  let holdTimer: ReturnType<typeof setTimeout> | undefined;

  // The script is running, so it validates and reports errors itself; the browser's own
  // bubbles would show different words in a different place.
  form.noValidate = true;
  const altcha = mountAltcha(altchaHost);

  /** The inputs of a field (several radios for priority). */
  const inputsOf = (field: FormField) => Array.from(form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(`[name="${field}"]`));
  const errorSlot = (field: FormField) => root.querySelector<HTMLElement>(`[data-error-for="${field}"]`);
  /** The element whose description lists the error: the fieldset of a radio group, else the input. */
  const describedElement = (field: FormField): HTMLElement | undefined => {
    const first = inputsOf(field)[0];
    if (!first) return undefined;
    return first.type === 'radio' ? (first.closest('fieldset') ?? first) : first;
  };

  function values(): FormValues {
    const data = new FormData(form);
    const out: FormValues = {};
    for (const field of [...FORM_FIELDS, FORM_HONEYPOT] as const) {
      const value = data.get(field);
      if (typeof value === 'string') out[field] = value;
    }
    return out;
  }

  function setDescribedBy(element: HTMLElement, id: string, on: boolean): void {
    const ids = (element.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((x) => x && x !== id);
    // The error first: it is what the person needs to hear before the hint.
    if (on) ids.unshift(id);
    if (ids.length > 0) element.setAttribute('aria-describedby', ids.join(' '));
    else element.removeAttribute('aria-describedby');
  }

  function showFieldError(field: FormField, message: string | undefined): void {
    const slot = errorSlot(field);
    const described = describedElement(field);
    if (slot) {
      slot.textContent = message ?? '';
      slot.hidden = message === undefined;
      if (described) setDescribedBy(described, slot.id, message !== undefined);
    }
    for (const input of inputsOf(field)) {
      if (message === undefined) input.removeAttribute('aria-invalid');
      else input.setAttribute('aria-invalid', 'true');
    }
    const group = field === 'priority' ? described : undefined;
    group?.classList.toggle('is-invalid', message !== undefined);
  }

  function clearErrors(): void {
    for (const field of FORM_FIELDS) showFieldError(field, undefined);
    summary.replaceChildren();
    summary.classList.remove('is-shown');
  }

  /** The summary box (role="alert", so it is announced when filled): a heading, then lines. */
  function showSummary(heading: string, lines: Array<string | Node[]>): void {
    const title = document.createElement('h2');
    title.textContent = heading;
    const list = document.createElement('ul');
    for (const line of lines) {
      const item = document.createElement('li');
      if (typeof line === 'string') item.textContent = line;
      else item.append(...line);
      list.append(item);
    }
    summary.replaceChildren(title, list);
    summary.classList.add('is-shown');
  }

  /** "email us at x@y" as nodes, with a mailto link; nothing when the page has no address. */
  function emailUs(prefix: string): Node[] {
    if (!fallbackEmail) return [];
    const link = document.createElement('a');
    link.href = `mailto:${fallbackEmail}`;
    link.textContent = fallbackEmail;
    return [document.createTextNode(prefix), link, document.createTextNode('.')];
  }

  function showFieldErrors(errors: readonly FieldError[]): void {
    const lines: Array<string | Node[]> = [];
    let first: HTMLElement | undefined;
    for (const error of errors) {
      if (isFormField(error.field) && errorSlot(error.field)) {
        showFieldError(error.field, error.message);
        // Each line links to its field (WCAG 2.2 SC 3.3.1 Error Identification).
        const link = document.createElement('a');
        link.href = `#${inputsOf(error.field)[0]?.id ?? ''}`;
        link.textContent = error.message;
        lines.push([link]);
        first ??= inputsOf(error.field).find((i) => (i as HTMLInputElement).checked) ?? inputsOf(error.field)[0];
      } else {
        lines.push(error.message);
      }
    }
    showSummary(errors.length === 1 ? 'Please correct this before sending:' : `Please correct these ${errors.length} things before sending:`, lines);
    (first ?? summary).focus();
  }

  function setSending(on: boolean): void {
    sending = on;
    submit.disabled = on;
    submit.textContent = on ? 'Sending…' : submitLabel;
    // aria-busy tells assistive technology the form is mid-update (WAI-ARIA 1.2, aria-busy).
    if (on) form.setAttribute('aria-busy', 'true');
    else form.removeAttribute('aria-busy');
  }

  /** After a 429, keep the button off for the announced wait. */
  function holdFor(seconds: number): void {
    clearTimeout(holdTimer);
    submit.disabled = true;
    // setTimeout's delay is a 32-bit int; a day-long wait stays well inside it.
    holdTimer = setTimeout(() => {
      holdTimer = undefined;
      if (!sending) submit.disabled = false;
    }, seconds * 1000);
  }

  function showSent(body: Record<string, string>): void {
    keys.settle();
    const email = body['work_email']?.trim();
    successDetail.textContent = email
      ? `It is safely stored, and we will answer by email at ${email}. There is nothing more you need to do.`
      : 'We answer by email at the address you gave.';
    form.hidden = true;
    success.hidden = false;
    success.focus();
  }

  function show(outcome: Outcome, body: Record<string, string>): void {
    switch (outcome.kind) {
      case 'sent':
        altcha.reset();
        showSent(body);
        return;
      case 'invalid':
        keys.settle();
        showFieldErrors(outcome.errors);
        return;
      case 'rate-limited':
        holdFor(outcome.seconds);
        showSummary('Too many messages from your connection', [
          `To keep spam out, the form takes a limited number of messages from one connection. Please wait ${describeWait(outcome.seconds)}, then send it again: what you wrote is still here.`,
          ...(fallbackEmail ? [emailUs('If it cannot wait, email us at ')] : []),
        ]);
        summary.focus();
        return;
      case 'unavailable':
        showSummary('Your message was not sent', [
          outcome.detail ?? 'We could not store your message just now, so it was not received.',
          'Please try again in a minute: what you wrote is still here, and sending it again never stores it twice.',
          ...(fallbackEmail ? [emailUs('Or email us at ')] : []),
        ]);
        summary.focus();
        return;
      case 'refused':
        // A refused proof of work (or anything else final) needs a fresh solution next time.
        altcha.reset();
        keys.settle();
        showSummary('Your message was not sent', [outcome.message, ...(fallbackEmail ? [emailUs('You can also email us at ')] : [])]);
        summary.focus();
        return;
    }
  }

  async function post(body: string, key: string): Promise<Outcome> {
    const response = await fetch(PATHS.contact, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, application/problem+json', 'idempotency-key': key },
      body,
      credentials: 'same-origin',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const parsed: unknown = response.headers.get('content-type')?.includes('json') ? await response.json().catch(() => undefined) : undefined;
    return outcomeOf(response.status, parsed, response.headers.get('retry-after'));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (sending || submit.disabled) return;
    clearErrors();
    const current = values();
    const problems = precheck(current);
    if (problems.length > 0) {
      showFieldErrors(problems);
      return;
    }
    const payload = contactBody(current);
    setSending(true);
    void (async () => {
      let outcome: Outcome;
      try {
        // The proof of work, when the check is on: solved in the background since the form was
        // first focused, so usually ready; a retry sends the same one with the same key.
        const solution = await altcha.solution();
        if (solution !== undefined) payload[FORM_ALTCHA] = solution;
        const body = JSON.stringify(payload);
        const key = keys.keyFor(body);
        try {
          outcome = await post(body, key);
        } catch (error) {
          // A lost connection, not a timeout: resend once with the same key, which is safe.
          if ((error as Error).name === 'TimeoutError') throw error;
          await new Promise((resolve) => setTimeout(resolve, NETWORK_RETRY_DELAY_MS));
          outcome = await post(body, key);
        }
      } catch {
        outcome = { kind: 'unavailable', detail: 'We could not reach the server, so your message may not have been received.' };
      }
      setSending(false);
      show(outcome, payload);
    })();
  });

  // Editing a field clears its error: the message described what was, not what is.
  form.addEventListener('input', (event) => {
    const target = event.target as HTMLInputElement | null;
    if (target && isFormField(target.name) && target.getAttribute('aria-invalid') === 'true') showFieldError(target.name, undefined);
  });

  const updateCounter = mountMessageCounter(root);

  const reset = () => {
    form.reset();
    clearErrors();
    keys.settle();
    success.hidden = true;
    form.hidden = false;
    updateCounter();
    inputsOf('name')[0]?.focus();
  };
  again.addEventListener('click', reset);
  return { reset };
}
