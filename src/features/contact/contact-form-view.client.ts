/**
 * The contact form on the page: its parts (the `data-contact-*` hooks of ContactForm.astro), the
 * values typed, errors beside their inputs (aria-invalid + aria-describedby, focus on the
 * first), form-level problems in a summary with role="alert", the button while sending or held
 * after a 429, and the success message. CSP allows no style attributes, so every state is an
 * attribute or a class.
 */
import { findHooks } from '../../lib/dom-hooks.ts';
import type { FieldError } from './contact-parse.ts';
import { FORM_FIELDS, FORM_HONEYPOT, isFormField, type FormField, type FormValues } from './contact-form.ts';

const HOOKS = {
  form: HTMLFormElement,
  altcha: HTMLElement,
  submit: HTMLButtonElement,
  summary: HTMLElement,
  success: HTMLElement,
  successDetail: HTMLElement,
  again: HTMLButtonElement,
};

/** One line of the summary: text, or nodes such as a link. */
export type SummaryLine = string | Node[];

function setDescribedBy(element: HTMLElement, id: string, on: boolean): void {
  const ids = (element.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((x) => x && x !== id);
  // The error first: it is what the person needs to hear before the hint.
  if (on) ids.unshift(id);
  if (ids.length > 0) element.setAttribute('aria-describedby', ids.join(' '));
  else element.removeAttribute('aria-describedby');
}

/** The parts that say what is wrong: each field's error and the summary box. */
function errorsView(root: HTMLElement, form: HTMLFormElement, summary: HTMLElement) {
  /** The inputs of a field (several radios for priority). */
  const inputsOf = (field: FormField) => Array.from(form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(`[name="${field}"]`));
  const errorSlot = (field: FormField) => root.querySelector<HTMLElement>(`[data-error-for="${field}"]`);
  /** The element whose description lists the error: the fieldset of a radio group, else the input. */
  const describedElement = (field: FormField): HTMLElement | undefined => {
    const first = inputsOf(field)[0];
    if (!first) return undefined;
    return first.type === 'radio' ? (first.closest('fieldset') ?? first) : first;
  };

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

  /** The summary box (role="alert", so it is announced when filled): a heading, then lines. */
  function showSummary(heading: string, lines: readonly SummaryLine[]): void {
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

  return {
    inputsOf,
    showFieldError,
    showSummary,
    clearErrors(): void {
      for (const field of FORM_FIELDS) showFieldError(field, undefined);
      summary.replaceChildren();
      summary.classList.remove('is-shown');
    },
    /** Each error beside its field and in the summary, focus on the first field (or the summary). */
    showFieldErrors(errors: readonly FieldError[]): void {
      const lines: SummaryLine[] = [];
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
    },
  };
}

/** The submit button: off while sending, and for the announced wait after a 429. */
function submitButton(form: HTMLFormElement, submit: HTMLButtonElement) {
  const label = submit.textContent ?? 'Send';
  let sending = false;
  let holdTimer: ReturnType<typeof setTimeout> | undefined;
  return {
    /** Whether a submission may start now. */
    ready: () => !sending && !submit.disabled,
    setSending(on: boolean): void {
      sending = on;
      submit.disabled = on;
      submit.textContent = on ? 'Sending…' : label;
      // aria-busy tells assistive technology the form is mid-update (WAI-ARIA 1.2, aria-busy).
      if (on) form.setAttribute('aria-busy', 'true');
      else form.removeAttribute('aria-busy');
    },
    holdFor(seconds: number): void {
      clearTimeout(holdTimer);
      submit.disabled = true;
      // setTimeout's delay is a 32-bit int; a day-long wait stays well inside it.
      holdTimer = setTimeout(() => {
        holdTimer = undefined;
        if (!sending) submit.disabled = false;
      }, seconds * 1000);
    },
  };
}

export function contactFormView(root: HTMLElement) {
  const hooks = findHooks(root, 'contact', HOOKS);
  const { form, summary, success, successDetail } = hooks;
  const fallbackEmail = root.dataset['contactEmail'] ?? '';
  return {
    hooks,
    ...errorsView(root, form, summary),
    button: submitButton(form, hooks.submit),
    /** What the inputs hold now, the honeypot included. */
    values(): FormValues {
      const data = new FormData(form);
      const out: FormValues = {};
      for (const field of [...FORM_FIELDS, FORM_HONEYPOT] as const) {
        const value = data.get(field);
        if (typeof value === 'string') out[field] = value;
      }
      return out;
    },
    /** "email us at x@y" as a summary line with a mailto link; none when the page has no address. */
    emailUs(prefix: string): SummaryLine[] {
      if (!fallbackEmail) return [];
      const link = document.createElement('a');
      link.href = `mailto:${fallbackEmail}`;
      link.textContent = fallbackEmail;
      return [[document.createTextNode(prefix), link, document.createTextNode('.')]];
    },
    /** The success message in the form's place, with focus, naming the address the answer goes to. */
    showSent(email: string | undefined): void {
      successDetail.textContent = email
        ? `It is safely stored, and we will answer by email at ${email}. There is nothing more you need to do.`
        : 'We answer by email at the address you gave.';
      form.hidden = true;
      success.hidden = false;
      success.focus();
    },
    /** The form again instead of the success message. */
    showForm(): void {
      success.hidden = true;
      form.hidden = false;
    },
  };
}

export type ContactFormView = ReturnType<typeof contactFormView>;
