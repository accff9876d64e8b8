/**
 * The console's passkey ceremonies in the browser, through @simplewebauthn/browser: sign-in
 * (`[data-passkey-sign-in]`) and enrolment from an invite (`[data-passkey-enrol]`, the invite in
 * the link's fragment, which no server log, proxy or Referer ever sees). Each asks the server
 * for options, lets the authenticator answer, sends the answer back with the page's CSRF token,
 * and follows where the server says to go; a refusal is shown in `[data-passkey-message]`.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { PATHS } from '../../lib/paths.ts';

async function post(path: string, csrf: string, body: unknown): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: response.ok, body: parsed };
}

function problemText(body: Record<string, unknown>): string {
  return typeof body['detail'] === 'string' ? body['detail'] : typeof body['title'] === 'string' ? body['title'] : 'Something went wrong. Reload the page and try again.';
}

async function signIn(csrf: string): Promise<string> {
  const options = await post(PATHS.consoleSignInOptions, csrf, {});
  if (!options.ok) throw new Error(problemText(options.body));
  const response = await startAuthentication({ optionsJSON: options.body as never });
  const verified = await post(PATHS.consoleSignIn, csrf, { response });
  if (!verified.ok) throw new Error(problemText(verified.body));
  return String(verified.body['redirect'] ?? `${PATHS.console}/`);
}

async function enrol(csrf: string, invite: string): Promise<string> {
  const options = await post(PATHS.consoleEnrolOptions, csrf, { invite });
  if (!options.ok) throw new Error(problemText(options.body));
  const response = await startRegistration({ optionsJSON: options.body as never });
  const verified = await post(PATHS.consoleEnrol, csrf, { invite, response });
  if (!verified.ok) throw new Error(problemText(verified.body));
  return String(verified.body['redirect'] ?? `${PATHS.console}/`);
}

function wire(button: HTMLButtonElement, message: HTMLElement, run: (csrf: string) => Promise<string>, reload: boolean): void {
  button.addEventListener('click', () => {
    button.disabled = true;
    message.textContent = '';
    run(button.dataset['csrf'] ?? '')
      .then((next) => (reload ? location.reload() : location.assign(next)))
      .catch((error: unknown) => {
        message.textContent = error instanceof Error ? error.message : String(error);
        button.disabled = false;
      });
  });
}

export function mountPasskeys(root: Document): void {
  const message = root.querySelector<HTMLElement>('[data-passkey-message]');
  if (!message) return;
  const signInButton = root.querySelector<HTMLButtonElement>('button[data-passkey-sign-in]');
  // Signed in, the page asked for is shown again (a reload), so a deep link survives sign-in.
  if (signInButton) wire(signInButton, message, signIn, true);
  const enrolButton = root.querySelector<HTMLButtonElement>('button[data-passkey-enrol]');
  if (enrolButton) {
    const invite = decodeURIComponent(location.hash.slice(1));
    if (invite === '') {
      message.textContent = 'This page needs the invite link exactly as it was printed (the part after # is the invite).';
      enrolButton.disabled = true;
      return;
    }
    wire(enrolButton, message, (csrf) => enrol(csrf, invite), false);
  }
}
