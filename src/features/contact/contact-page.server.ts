/**
 * The contact page as the server answers a form posted without JavaScript that needs another
 * look (invalid fields, a refused check, a store that failed): the prerendered /contact/ page
 * from the build, with its empty form swapped for the same template rendered with the values
 * kept and the errors shown (contact-form-html.ts). No Astro render per request: one file read
 * per process, then a string replacement.
 *
 * The built page's own <meta> CSP (script and style hashes) still applies, as the scripts and
 * styles are untouched; the response header adds the edge's page policy, replacing the
 * locked-down one the edge gives API routes, which would block the page's stylesheet.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { PAGE_CSP } from '../../lib/csp.ts';
import type { PlainResponse } from '../../lib/endpoint.ts';
import type { FieldError } from '../../lib/field-error.ts';
import { toHttpError, type HttpError } from '../../lib/http-error.ts';
import { renderContactForm, type FormView } from './contact-form-html.ts';
import { FORM_FIELDS, type FormValues } from './contact-form.ts';

/** What the page needs: where the build is, whether the proof of work is on, and a log. */
export interface FormPageDeps {
  config: {
    DIST_DIR: string;
    CONTACT_ALTCHA_HMAC_KEY?: string | undefined;
  };
  log: Logger;
}

/** The built page per DIST_DIR: immutable for the life of a deployment. */
const pages = new Map<string, Promise<string>>();

/** The prerendered /contact/ page of the build in `distDir`. */
export function builtContactPage(distDir: string): Promise<string> {
  const path = join(distDir, 'client', 'contact', 'index.html');
  let page = pages.get(path);
  if (!page) {
    page = readFile(path, 'utf8');
    // A failed read is not remembered: the next request tries again.
    page.catch(() => pages.delete(path));
    pages.set(path, page);
  }
  return page;
}

/**
 * The page with `view` in place of the empty form. Throws when the page does not hold the empty
 * form exactly as renderContactForm writes it (a build from another version of this code).
 */
export function contactPageWith(page: string, view: FormView): string {
  const blank = renderContactForm();
  const at = page.indexOf(blank);
  if (at < 0) throw new Error('the built contact page does not hold the contact form this server renders: rebuild with `npm run build`');
  let html = page.slice(0, at) + renderContactForm(view) + page.slice(at + blank.length);
  // "Error: " first in the title, so the tab and a screen reader's page announcement say so.
  if (view.errors?.length || view.problem) html = html.replace('<title>', '<title>Error: ');
  return html;
}

function pageResponse(html: string, status: number, headers: Record<string, string>): PlainResponse {
  return {
    status,
    headers: {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': PAGE_CSP,
    },
    body: html,
  };
}

/** What the page says for a refusal that is not about one field. */
function problemOf(error: HttpError): NonNullable<FormView['problem']> {
  if (error.code === 'challenge_required') {
    return {
      heading: 'Your message was not sent',
      lines: [
        'This form checks that a person is sending it with a short computation that needs JavaScript, which is off or blocked in your browser.',
        'Turn JavaScript on and send the form again (what you wrote is still here), or email us at the address beside the form.',
      ],
    };
  }
  return { heading: 'Your message was not sent', lines: [error.detail ?? error.title, ...(error.resolution ? [error.resolution] : [])] };
}

/**
 * The answer to a form posted by a browser that was not stored: the contact page with what was
 * typed and why it was refused, with the refusal's status (400 for invalid fields).
 */
export async function formPageResponse(deps: FormPageDeps, body: Record<string, unknown>, error: unknown): Promise<PlainResponse> {
  const httpError = toHttpError(error);
  if (httpError.status >= 500 && httpError.code === 'internal_error') deps.log.error({ err: error }, 'contact form failed');
  const values: FormValues = {};
  for (const field of FORM_FIELDS) {
    const value = body[field];
    if (typeof value === 'string') values[field] = value;
  }
  const errors = httpError.code === 'validation_failed' ? ((httpError.extensions['errors'] as FieldError[] | undefined) ?? []) : [];
  const view: FormView = {
    values,
    altcha: deps.config.CONTACT_ALTCHA_HMAC_KEY !== undefined,
    ...(errors.length > 0 ? { errors } : { problem: problemOf(httpError) }),
  };
  let page: string;
  try {
    page = contactPageWith(await builtContactPage(deps.config.DIST_DIR), view);
  } catch (renderFailure) {
    // No build, or one of other code (`astro dev` next to an old ./dist): the form alone, unstyled
    // but usable, rather than JSON a person cannot act on.
    deps.log.error({ err: renderFailure }, 'contact page not rendered from the build');
    page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error: Contact</title></head><body><main>${renderContactForm(view)}</main></body></html>`;
  }
  return pageResponse(page, httpError.status, httpError.headers);
}
