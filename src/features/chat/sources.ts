/**
 * The sources of a chat reply: the pages (news articles, help pages) whose passages the answer
 * came from. They travel in the reply's `Link` header (RFC 8288), one link per source with
 * `rel="via"` ("the source of the information in the link's context", RFC 4287 section 4.2.7.2,
 * in the IANA link relations registry), so the streamed plain-text body stays exactly what the
 * interface says it is (docs/interface.md section 3). Retrieval happens before generation, so the header is known before
 * the first byte of the reply.
 *
 * Pure and dependency-free: the server formats the header and the widget parses it with the
 * same module.
 */

export interface ChatSource {
  /** A site path (`/news/<id>`, `/docs/api`); relative, so it resolves against the request URL. */
  url: string;
  /** The page title, for the link text. */
  title: string;
}

/** The link relation of a source (RFC 4287 section 4.2.7.2). */
export const SOURCE_REL = 'via';

/** Bounds that keep the header small whatever the content: proxies commonly cap all headers at 8 KB. */
export const SOURCE_LIMITS = {
  /** Most sources listed. */
  count: 4,
  /** Longest title, in characters (longer ones end with an ellipsis). */
  titleChars: 120,
  /** Largest `Link` value, in bytes; links that would pass it are left out. */
  headerBytes: 2048,
} as const;

/** A site path that is safe between `<` and `>`: absolute, not protocol-relative, no spaces or brackets. */
const SITE_PATH = /^\/(?!\/)[\w\-.~/%!$&'()*+,;=:@?#]*$/;

/** At most `max` characters (code points), with an ellipsis when cut. */
function shorten(text: string, max: number): string {
  const points = [...text.trim()];
  return points.length <= max ? points.join('') : `${points.slice(0, max - 1).join('').trimEnd()}…`;
}

/**
 * RFC 8187 section 3.2 `ext-value` in UTF-8: every byte outside `attr-char` percent-encoded.
 * encodeURIComponent leaves `'()*` alone, which attr-char does not allow.
 */
function extValue(text: string): string {
  return `UTF-8''${encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** The distinct sources with a usable site path, in order, within SOURCE_LIMITS.count. */
export function distinctSources(candidates: Iterable<{ url: string | undefined; title: string }>): ChatSource[] {
  const out: ChatSource[] = [];
  for (const { url, title } of candidates) {
    if (out.length >= SOURCE_LIMITS.count) break;
    if (!url || !SITE_PATH.test(url) || out.some((source) => source.url === url)) continue;
    out.push({ url, title: shorten(title, SOURCE_LIMITS.titleChars) || url });
  }
  return out;
}

/**
 * The `Link` field value for the sources (RFC 8288 section 3): `</news/x>; rel="via";
 * title*=UTF-8''...`, comma-separated. Titles always go as `title*` (RFC 8288 section 3.4.1), so
 * any language survives and no quoting is needed. Undefined when there is nothing to list.
 */
export function formatSourcesLink(sources: readonly ChatSource[]): string | undefined {
  const links: string[] = [];
  let bytes = 0;
  for (const source of distinctSources(sources)) {
    const link = `<${source.url}>; rel="${SOURCE_REL}"; title*=${extValue(source.title)}`;
    // The value is ASCII: characters are bytes.
    const added = link.length + (links.length > 0 ? 2 : 0);
    if (bytes + added > SOURCE_LIMITS.headerBytes) break;
    links.push(link);
    bytes += added;
  }
  return links.length > 0 ? links.join(', ') : undefined;
}

/** One link-value: the target, then its parameters (RFC 8288 section 3). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[!#$%&'*+\-.^_`|~\w]+\*?\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
const PARAM = /;\s*([!#$%&'*+\-.^_`|~\w]+\*?)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?/g;

function unquote(value: string): string {
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}

/** Decode an RFC 8187 ext-value in UTF-8; undefined when it is not one. */
function decodeExtValue(value: string): string | undefined {
  const match = /^UTF-8'[^']*'(.*)$/i.exec(value);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/**
 * The sources in a `Link` field value: the links whose `rel` includes `via`, with `title*` (or
 * `title`) as the title. Tolerant of other links and parameters; never throws.
 */
export function parseSourcesLink(value: string | null | undefined): ChatSource[] {
  if (!value) return [];
  const sources: ChatSource[] = [];
  for (const [, url, params] of value.matchAll(LINK_VALUE)) {
    const found = new Map<string, string>();
    for (const [, name, raw] of params!.matchAll(PARAM)) {
      const key = name!.toLowerCase();
      if (!found.has(key)) found.set(key, unquote(raw ?? ''));
    }
    const rel = (found.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes(SOURCE_REL)) continue;
    const extended = found.get('title*');
    const title = (extended === undefined ? undefined : decodeExtValue(extended)) ?? found.get('title') ?? url!;
    sources.push({ url: url!, title });
  }
  return sources;
}
