/**
 * The contact form's behaviour in the browser (src/pages/contact.astro renders the markup and
 * imports this from its bundled <script>; CSP allows no inline handlers or style attributes, so
 * every state is an attribute or a class).
 *
 * It sends the form as JSON with fetch and an Idempotency-Key per attempt
 * (contact-form-network.client.ts), disables the button while sending, and shows the server's
 * answer in place (contact-form-view.client.ts): field errors beside their inputs, form-level
 * problems in a summary, the wait after a 429, a friendly note after a 502, and on success a
 * message that receives focus. Without this script the page still shows the email address to
 * write to.
 */
import { AttemptKeys, FORM_ALTCHA, contactBody, describeWait, isFormField, precheck, type Outcome } from './contact-form.ts';
import { newKey, sendContact } from './contact-form-network.client.ts';
import { contactFormView, type ContactFormView } from './contact-form-view.client.ts';
import { mountAltcha, type AltchaCheck } from './altcha-widget.client.ts';
import { mountMessageCounter } from './message-counter.client.ts';

export interface ContactForm {
  /** Back to an empty form, e.g. for "Send another message". */
  reset(): void;
}

/** What the form does with the server's answer: the attempt's key and proof of work are spent or kept. */
function showOutcome(view: ContactFormView, keys: AttemptKeys, altcha: AltchaCheck, outcome: Outcome, body: Record<string, string>): void {
  const { summary } = view.hooks;
  switch (outcome.kind) {
    case 'sent':
      altcha.reset();
      keys.finish();
      view.showSent(body['work_email']?.trim());
      return;
    case 'invalid':
      keys.finish();
      view.showFieldErrors(outcome.errors);
      return;
    case 'rate-limited':
      view.button.holdFor(outcome.seconds);
      view.showSummary('Too many messages from your connection', [
        `To keep spam out, the form takes a limited number of messages from one connection. Please wait ${describeWait(outcome.seconds)}, then send it again: what you wrote is still here.`,
        ...view.emailUs('If it cannot wait, email us at '),
      ]);
      summary.focus();
      return;
    case 'unavailable':
      view.showSummary('Your message was not sent', [
        outcome.detail ?? 'We could not store your message just now, so it was not received.',
        'Please try again in a minute: what you wrote is still here, and sending it again never stores it twice.',
        ...view.emailUs('Or email us at '),
      ]);
      summary.focus();
      return;
    case 'refused':
      // A refused proof of work (or anything else final) needs a fresh solution next time.
      altcha.reset();
      keys.finish();
      view.showSummary('Your message was not sent', [outcome.message, ...view.emailUs('You can also email us at ')]);
      summary.focus();
      return;
  }
}

export function mountContactForm(root: HTMLElement): ContactForm {
  const view = contactFormView(root);
  const { form, again } = view.hooks;
  const keys = new AttemptKeys(newKey);
  // The script is running, so it validates and reports errors itself; the browser's own
  // bubbles would show different words in a different place.
  form.noValidate = true;
  const altcha = mountAltcha(view.hooks.altcha);

  async function submit(payload: Record<string, string>): Promise<void> {
    let outcome: Outcome;
    try {
      // The proof of work, when the check is on: solved in the background since the form was
      // first focused, so usually ready; a retry sends the same one with the same key.
      const solution = await altcha.solution();
      if (solution !== undefined) payload[FORM_ALTCHA] = solution;
      const body = JSON.stringify(payload);
      outcome = await sendContact(body, keys.keyFor(body));
    } catch {
      outcome = { kind: 'unavailable', detail: 'We could not reach the server, so your message may not have been received.' };
    }
    view.button.setSending(false);
    showOutcome(view, keys, altcha, outcome, payload);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!view.button.ready()) return;
    view.clearErrors();
    const current = view.values();
    const problems = precheck(current);
    if (problems.length > 0) {
      view.showFieldErrors(problems);
      return;
    }
    view.button.setSending(true);
    void submit(contactBody(current));
  });

  // Editing a field clears its error: the message described what was, not what is.
  form.addEventListener('input', (event) => {
    const target = event.target as HTMLInputElement | null;
    if (target && isFormField(target.name) && target.getAttribute('aria-invalid') === 'true') view.showFieldError(target.name, undefined);
  });

  const updateCounter = mountMessageCounter(root);

  const reset = () => {
    form.reset();
    view.clearErrors();
    keys.finish();
    view.showForm();
    updateCounter();
    view.inputsOf('name')[0]?.focus();
  };
  again.addEventListener('click', reset);
  return { reset };
}
