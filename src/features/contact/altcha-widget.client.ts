/**
 * The contact form's proof-of-work check in the browser: asks `HEAD /api/contact/challenge`
 * whether the check is on (200) or off (204), and only when it is on loads the
 * `altcha` widget (v3) into the form's `data-contact-altcha` slot, so pages of a site that leaves
 * it off never download it.
 *
 * The widget's strict-CSP build (`altcha/external`: no inline styles or blob workers) with its
 * stylesheet and its PBKDF2 worker as files of our own origin, which the page's CSP allows.
 * It starts solving when the person first focuses the form; a send waits for it if needed.
 */
import { PATHS } from '../../lib/paths.ts';
import { FORM_ALTCHA } from './contact-form.ts';

export interface AltchaCheck {
  /** The payload for the next submission (solving first if needed); undefined when the check is off. */
  solution(): Promise<string | undefined>;
  /** The last solution was spent: the next send solves a new challenge. */
  reset(): void;
}

type Widget = HTMLElementTagNameMap['altcha-widget'];

/** How long the page waits for the check to be set up, and for a solution, before sending without one. */
const SETUP_TIMEOUT_MS = 10_000;
const SOLVE_TIMEOUT_MS = 30_000;

/**
 * The promise's value, or undefined once `ms` have passed: a stalled probe, widget or solver must
 * never leave the form on "Sending"; without a solution the server answers `challenge_required`,
 * which the form shows.
 */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(resolve, ms, undefined))]);
}

async function loadWidget(host: HTMLElement): Promise<Widget | undefined> {
  // HEAD: whether the check is on (200) or off (204), without the server deriving a challenge
  // nobody solves; the widget GETs its own when it starts.
  const probe = await fetch(PATHS.contactChallenge, { method: 'HEAD', credentials: 'same-origin', signal: AbortSignal.timeout(SETUP_TIMEOUT_MS) });
  // Read to its (empty) end: a response left unread is reported as aborted by Chromium.
  await probe.arrayBuffer();
  if (probe.status !== 200) return undefined;
  const [{ default: Pbkdf2Worker }, { default: stylesheet }] = await Promise.all([
    import('altcha/workers/pbkdf2?worker'),
    // As a URL, linked here: imported as CSS, the build would put it on the page for everyone.
    import('altcha/altcha.css?url'),
    import('altcha/external'),
  ]);
  $altcha.algorithms.set('PBKDF2/SHA-256', () => new Pbkdf2Worker());
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = stylesheet;
  document.head.append(link);
  const widget = document.createElement('altcha-widget');
  widget.setAttribute('challenge', PATHS.contactChallenge);
  widget.setAttribute('name', FORM_ALTCHA);
  widget.setAttribute('auto', 'onfocus');
  const loaded = new Promise((resolve) => widget.addEventListener('load', resolve, { once: true }));
  host.append(widget);
  host.hidden = false;
  await loaded;
  return widget;
}

export function mountAltcha(host: HTMLElement): AltchaCheck {
  const widget = within(loadWidget(host), SETUP_TIMEOUT_MS).catch(() => undefined);
  return {
    async solution() {
      const check = await widget;
      if (!check) return undefined;
      if (check.getState() !== 'verified') return (await within(check.verify(), SOLVE_TIMEOUT_MS))?.payload;
      return host.querySelector<HTMLInputElement>(`input[name="${FORM_ALTCHA}"]`)?.value;
    },
    reset() {
      void widget.then((check) => check?.reset());
    },
  };
}
