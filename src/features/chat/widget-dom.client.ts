/**
 * What the chat widget writes into the page: reply text with its links, and an answer's list of
 * sources. Text goes in as text nodes, never as HTML; only site paths and http(s) URLs without
 * userinfo become links (linkTarget), and links to other sites get rel="noopener noreferrer".
 */
import { parseSourcesLink, type ChatSource } from './sources.ts';

/** Site paths ("/contact") and http(s) URLs in a reply. */
const LINKS = /(https?:\/\/[^\s<>"']+|(?<![\w/.])\/[a-z0-9][\w\-./?=&#%]*)/gi;

/**
 * `href` resolved against `base` when it may become a link: http(s) only (no `javascript:`,
 * `data:`...), and without userinfo. `http://site@evil.example/` reads as "site" to a person
 * but leads to evil.example (RFC 3986 section 7.6 warns of exactly this), and browsers allow it
 * in links; undefined for anything else, which then stays plain text.
 */
export function linkTarget(href: string, base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(href)) return undefined;
  return url.href;
}

/** A link that opens another site without giving it this page (rel=noopener noreferrer); text when `href` may not be one. */
function link(href: string, text: string): HTMLAnchorElement | Text {
  const target = linkTarget(href, location.href);
  if (target === undefined) return document.createTextNode(text);
  const anchor = document.createElement('a');
  anchor.href = target;
  anchor.textContent = text;
  if (anchor.origin !== location.origin) anchor.rel = 'noopener noreferrer';
  return anchor;
}

/**
 * The sources of `response` with their URLs resolved against the response's own URL (relative
 * references in a Link header resolve against the request target, RFC 8288 section 3.2), kept
 * only when they are http(s).
 */
export function sourcesFrom(response: Pick<Response, 'headers' | 'url'>, base = location.href): ChatSource[] {
  return parseSourcesLink(response.headers.get('link')).flatMap((source) => {
    try {
      const url = linkTarget(source.url, response.url || base);
      return url === undefined ? [] : [{ url, title: source.title }];
    } catch {
      return [];
    }
  });
}

/** Write `text` into `element` as text nodes and links. */
export function renderText(element: HTMLElement, text: string): void {
  const nodes: Node[] = [];
  let last = 0;
  for (const match of text.matchAll(LINKS)) {
    let href = match[0];
    // Sentence punctuation after a link is not part of it.
    const trailing = /[.,;:!?)'"]+$/.exec(href)?.[0] ?? '';
    href = href.slice(0, href.length - trailing.length);
    if (href.length <= 1) continue;
    const start = match.index;
    if (start > last) nodes.push(document.createTextNode(text.slice(last, start)));
    nodes.push(link(href, href));
    last = start + href.length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  element.replaceChildren(...nodes);
}

/**
 * The sources as a labelled list of links ("Sources", or "Source" for one), under the id
 * `headingId`; undefined when there are none, so nothing is shown.
 */
export function sourcesBox(sources: readonly ChatSource[], headingId: string): HTMLElement | undefined {
  if (sources.length === 0) return undefined;
  const box = document.createElement('div');
  box.className = 'chat-sources';
  const heading = document.createElement('p');
  heading.className = 'chat-sources-title';
  heading.id = headingId;
  heading.textContent = sources.length === 1 ? 'Source' : 'Sources';
  const list = document.createElement('ul');
  list.setAttribute('aria-labelledby', heading.id);
  for (const source of sources) {
    const item = document.createElement('li');
    item.append(link(source.url, source.title));
    list.append(item);
  }
  box.append(heading, list);
  return box;
}
