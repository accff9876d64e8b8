/**
 * The contact form's markup as one function of its state, so the page and the server render the
 * same template: <ContactForm> (src/components/ContactForm.astro) puts the empty form into the
 * prerendered /contact/ page at build time, and contact.endpoint.ts, answering a form posted
 * without JavaScript, renders it again with the values kept and the errors beside their fields
 * (contact-page.server.ts swaps one for the other in the built page).
 *
 * Accessibility follows the pattern the page's script applies (contact-form.client.ts): each
 * error sits in its field's `*-error` slot, named first in the control's aria-describedby, the
 * control carries aria-invalid, and an error summary (role="alert") links to every field (WCAG
 * 2.2 SC 3.3.1 and 3.3.3). CSP: no inline handlers or style attributes, only classes.
 */
import type { FieldError } from '../../lib/field-error.ts';
import { PATHS } from '../../lib/paths.ts';
import { CONTACT_LIMITS } from './contact-limits.ts';
import { PRIORITIES } from './contact-payload.ts';
import { HONEYPOT_FIELD } from './honeypot.ts';
import { describeRemaining, type FormValues } from './contact-form.ts';

/** What the form shows. */
export interface FormView {
  /** What the person typed; absent fields render empty. */
  values?: FormValues;
  /** Field errors, in form order; field "" (or an unknown field) goes to the summary only. */
  errors?: readonly FieldError[];
  /** A problem with the whole submission (not one field): shown in the summary. */
  problem?: { heading: string; lines: readonly string[] };
  /** The proof-of-work check is on: say that it needs JavaScript. */
  altcha?: boolean;
}

/** Text and attribute values escaped for HTML (the five characters that matter). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]!};`);
}

type Attrs = Record<string, string | number | boolean | undefined>;

function attrs(values: Attrs): string {
  let out = '';
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`;
  }
  return out;
}

/** The priority choice in words (content/assistant/contact.md explains the same three). */
const CHOICES: ReadonlyArray<{ value: (typeof PRIORITIES)[number]; label: string; hint: string }> = [
  { value: 'high', label: 'High: something is broken now', hint: 'A campaign stopped delivering or bids are rejected. Pages the on-call team during business hours.' },
  { value: 'standard', label: 'Standard: a question', hint: 'A commercial or technical question, such as joining as a publisher or buyer.' },
  { value: 'message', label: 'Message: no rush', hint: 'Feedback and everything else.' },
];

interface FieldSpec {
  id: string;
  name: 'name' | 'job_title' | 'work_email' | 'message';
  label: string;
  required: boolean;
  hint?: string;
  control: Attrs;
  /** A textarea of this many rows instead of an input. */
  rows?: number;
}

const MESSAGE_LIMIT = CONTACT_LIMITS.messageChars.toLocaleString('en');

const FIELDS: Record<FieldSpec['name'], FieldSpec> = {
  name: { id: 'contact-name', name: 'name', label: 'Name', required: true, control: { type: 'text', autocomplete: 'name', maxlength: CONTACT_LIMITS.nameChars } },
  job_title: {
    id: 'contact-job-title',
    name: 'job_title',
    label: 'Job title',
    required: false,
    control: { type: 'text', autocomplete: 'organization-title', maxlength: CONTACT_LIMITS.jobTitleChars },
  },
  work_email: {
    id: 'contact-email',
    name: 'work_email',
    label: 'Work email',
    required: true,
    hint: 'We answer at this address, for example ada@example.com.',
    control: { type: 'email', autocomplete: 'work email', spellcheck: 'false', maxlength: CONTACT_LIMITS.emailChars },
  },
  message: {
    id: 'contact-message',
    name: 'message',
    label: 'Message',
    required: false,
    hint: `What can we help with? At most ${MESSAGE_LIMIT} characters.`,
    rows: 7,
    control: { maxlength: CONTACT_LIMITS.messageChars, 'data-counter-limit': CONTACT_LIMITS.messageChars },
  },
};

/** The id of the control a field's summary line links to. */
function controlId(field: string): string | undefined {
  if (field === 'priority') return `contact-priority-${PRIORITIES[0]}`;
  return Object.hasOwn(FIELDS, field) ? FIELDS[field as FieldSpec['name']].id : undefined;
}

/** aria-describedby: the error first (what the person must hear before the hint), then the hint. */
function describedBy(errorId: string | undefined, hintId: string | undefined): string | undefined {
  return [errorId, hintId].filter(Boolean).join(' ') || undefined;
}

function errorSlot(id: string, field: string, message: string | undefined): string {
  return `<p class="field-error"${attrs({ id, 'data-error-for': field, hidden: message === undefined })}>${escapeHtml(message ?? '')}</p>`;
}

function textField(spec: FieldSpec, value: string, error: string | undefined, extra = ''): string {
  const hintId = spec.hint ? `${spec.id}-hint` : undefined;
  const errorId = `${spec.id}-error`;
  const control: Attrs = {
    id: spec.id,
    name: spec.name,
    class: 'form-control',
    required: spec.required,
    'aria-required': spec.required ? 'true' : undefined,
    'aria-invalid': error === undefined ? undefined : 'true',
    'aria-describedby': describedBy(error === undefined ? undefined : errorId, hintId),
    ...(spec.rows === undefined ? {} : { rows: spec.rows }),
    ...spec.control,
  };
  const mark = spec.required ? '<span class="required-mark">(required)</span>' : '<span class="optional-mark">(optional)</span>';
  const input = spec.rows === undefined ? `<input${attrs({ ...control, value: value || undefined })}>` : `<textarea${attrs(control)}>${escapeHtml(value)}</textarea>`;
  return (
    `<div class="field"><label for="${spec.id}">${escapeHtml(spec.label)} ${mark}</label>` +
    (spec.hint ? `<p class="hint" id="${hintId}">${escapeHtml(spec.hint)}</p>` : '') +
    errorSlot(errorId, spec.name, error) +
    input +
    extra +
    '</div>'
  );
}

function priorityField(value: string | undefined, error: string | undefined): string {
  const errorId = 'contact-priority-error';
  const choices = CHOICES.map(
    (p) =>
      `<div class="choice"><input${attrs({
        id: `contact-priority-${p.value}`,
        name: 'priority',
        type: 'radio',
        value: p.value,
        required: true,
        checked: value === p.value,
        'aria-invalid': error === undefined ? undefined : 'true',
        'aria-describedby': `contact-priority-${p.value}-hint`,
      })}><label for="contact-priority-${p.value}">${escapeHtml(p.label)}</label><p class="hint" id="contact-priority-${p.value}-hint">${escapeHtml(p.hint)}</p></div>`,
  ).join('');
  return (
    `<fieldset${attrs({ class: error === undefined ? 'field choices' : 'field choices is-invalid', 'aria-describedby': describedBy(error === undefined ? undefined : errorId, 'contact-priority-hint') })}>` +
    '<legend>Priority <span class="required-mark">(required)</span></legend>' +
    '<p class="hint" id="contact-priority-hint">How soon do you need us? When in doubt, choose standard.</p>' +
    errorSlot(errorId, 'priority', error) +
    choices +
    '</fieldset>'
  );
}

function summary(view: FormView): string {
  const errors = view.errors ?? [];
  let heading: string | undefined;
  let items: string[] = [];
  if (errors.length > 0) {
    heading = errors.length === 1 ? 'Please correct this before sending:' : `Please correct these ${errors.length} things before sending:`;
    items = errors.map((e) => {
      const id = controlId(e.field);
      return id ? `<li><a href="#${id}">${escapeHtml(e.message)}</a></li>` : `<li>${escapeHtml(e.message)}</li>`;
    });
  } else if (view.problem) {
    heading = view.problem.heading;
    items = view.problem.lines.map((line) => `<li>${escapeHtml(line)}</li>`);
  }
  // Focused on arrival (autofocus), so a screen reader starts at what went wrong.
  const shown = heading !== undefined;
  const open = `<div${attrs({ class: shown ? 'summary is-shown' : 'summary', role: 'alert', tabindex: '-1', autofocus: shown, 'data-contact-summary': true })}>`;
  return shown ? `${open}<h2>${escapeHtml(heading!)}</h2><ul>${items.join('')}</ul></div>` : `${open}</div>`;
}

/** The summary, the form and (when the check is on) the note that it needs JavaScript. */
export function renderContactForm(view: FormView = {}): string {
  const values = view.values ?? {};
  const errorOf = (field: string) => view.errors?.find((e) => e.field === field)?.message;
  const messageValue = values.message ?? '';
  const counter =
    `<p class="counter" aria-hidden="true" data-contact-counter>${describeRemaining(messageValue.length, CONTACT_LIMITS.messageChars)}</p>` +
    '<p class="visually-hidden" role="status" data-contact-counter-status></p>';
  const note = view.altcha
    ? '<noscript><p class="notice">This form checks that a person is sending it with a short computation that needs JavaScript, which is off or blocked in your browser. Please turn JavaScript on, or email us at the address beside the form.</p></noscript>'
    : '';
  return (
    note +
    summary(view) +
    `<form class="form" method="post"${attrs({ action: PATHS.contact, 'aria-labelledby': 'form-title', 'data-contact-form': true })}>` +
    '<h2 id="form-title" class="visually-hidden">Contact form</h2>' +
    '<p class="meta" id="form-note">Fields marked <span class="required-mark">(required)</span> must be filled in.</p>' +
    textField(FIELDS.name, values.name ?? '', errorOf('name')) +
    textField(FIELDS.job_title, values.job_title ?? '', errorOf('job_title')) +
    textField(FIELDS.work_email, values.work_email ?? '', errorOf('work_email')) +
    priorityField(values.priority, errorOf('priority')) +
    textField(FIELDS.message, messageValue, errorOf('message'), counter) +
    // Honeypot: people never see or reach it; bots that fill every input do (honeypot.ts).
    `<div class="trap" aria-hidden="true"><label for="contact-website">Leave this empty</label><input id="contact-website" name="${HONEYPOT_FIELD}" type="text" class="form-control" tabindex="-1" autocomplete="off"></div>` +
    // Filled by the page's script when the proof-of-work check is on (altcha-widget.client.ts).
    '<div class="contact-altcha" data-contact-altcha hidden></div>' +
    '<button type="submit" class="button" data-contact-submit>Send message</button>' +
    '</form>'
  );
}
