/**
 * One meaning per request: the request target is parsed and its path normalised exactly once,
 * here, and every layer after it (route table, limits, CORS, CSP, cache key, Astro's router) sees
 * that one path. Before this, Astro decoded `/api/v1/%70ublic/data` and routed it while the edge
 * applied policies to the raw spelling, so an encoded path escaped the data format, CORS and the
 * cache purge.
 */

/** Why a target was refused; the edge answers 400 with this text. */
export class BadTarget extends Error {
  override name = 'BadTarget';
}

/** RFC 3986 section 2.3: unreserved characters, which mean the same encoded or not. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * Normalise a path (RFC 3986 section 6.2.2): decode percent-encoded unreserved characters, upper-case
 * the hex digits of every other escape, and collapse repeated slashes. Refused (BadTarget): a
 * malformed escape (`%zz`, a lone `%`), a `\` raw or encoded and an encoded `/` (a second meaning
 * for a segment boundary: the WHATWG URL parser, and so Astro, reads a raw `\` as `/`, so
 * `/\api/...` was limited and cached as a page and routed by Astro as the data API), a control
 * character or space (the URL parser drops tabs and newlines, another second spelling), and dot
 * segments (`.`, `..`, encoded or not), which no URL of ours contains and which would otherwise be
 * resolved differently by each layer.
 */
export function normalisePath(raw: string): string {
  let path = '';
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char !== '%') {
      if (char === '\\') throw new BadTarget('The path contains a "\\".');
      if (char <= ' ' || char === '\x7f') throw new BadTarget('The path contains a control character or a space.');
      path += char;
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!HEX.test(hex)) throw new BadTarget(`The path has a malformed percent-escape at "${raw.slice(i, i + 3)}".`);
    const decoded = String.fromCharCode(Number.parseInt(hex, 16));
    if (decoded === '/' || decoded === '\\') throw new BadTarget('The path contains an encoded "/" or "\\".');
    path += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
    i += 2;
  }
  path = path.replace(/\/{2,}/g, '/');
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '..') throw new BadTarget('The path contains a "." or ".." segment.');
  }
  return path;
}

/**
 * The path and query of an origin-form or absolute-form target (RFC 9112 section 3.2), the path
 * normalised; undefined when it is neither form. Resolved against a fixed base by concatenation,
 * never as a relative reference, so `//host/path` cannot become a different host and path.
 * Throws BadTarget for a path `normalisePath` refuses.
 */
export function parseTarget(target: string): URL | undefined {
  let path: string;
  if (target.startsWith('/')) path = target;
  else if (/^https?:\/\//i.test(target)) {
    // The authority is dropped; the path is taken as sent (the URL parser would resolve dot
    // segments and re-encode, hiding what normalisePath must judge).
    const afterScheme = target.indexOf('//') + 2;
    const slash = target.indexOf('/', afterScheme);
    const query = target.indexOf('?', afterScheme);
    if (slash === -1 || (query !== -1 && query < slash)) path = `/${query === -1 ? '' : target.slice(query)}`;
    else path = target.slice(slash);
  } else return undefined;
  const query = path.indexOf('?');
  const pathname = normalisePath(query === -1 ? path : path.slice(0, query));
  let url: URL;
  try {
    url = new URL(`http://edge.invalid${pathname}${query === -1 ? '' : path.slice(query)}`);
  } catch {
    return undefined;
  }
  // The parser only percent-encodes what it must (space, quotes, non-ASCII...). Should it ever do
  // more (turn a character into a separator, drop one), the route would be decided on one path and
  // the request served on another: refuse rather than judge a path nobody checked.
  if (!keepsItsMeaning(url.pathname)) throw new BadTarget('The path does not keep one meaning once parsed.');
  return url;
}

function keepsItsMeaning(pathname: string): boolean {
  try {
    return normalisePath(pathname) === pathname;
  } catch {
    return false;
  }
}

/** What the edge reads of a parsed target; a `URL` is one, and so is the cheaper `PlainTarget`. */
export interface RequestTarget {
  readonly pathname: string;
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

/** A lookup table of the ASCII characters in `chars` (ranges written out). */
function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * Characters that neither `normalisePath` nor the URL parser changes: unreserved and
 * sub-delimiter characters, `:` and `@` in the path (no escapes), and those plus `/`, `?` and
 * `%` in the query (WHATWG URL leaves them as they are; it encodes space, `"`, `#`, `<`, `>` and
 * `'` there). Nearly every real request is made of them only.
 */
const PATH_CHARS = charTable(`${ALNUM}-._~!$&'()*+,;=:@`);
const QUERY_CHARS = charTable(`${ALNUM}-._~!$&()*+,;=:@/?%`);
const SLASH = 0x2f;
const DOT = 0x2e;
const QUESTION = 0x3f;

function isDotSegment(target: string, start: number, end: number): boolean {
  return (end - start === 1 && target.charCodeAt(start) === DOT) || (end - start === 2 && target.charCodeAt(start) === DOT && target.charCodeAt(start + 1) === DOT);
}

/**
 * Where the query of an origin-form target in normal form starts (its length when it has none),
 * or -1 when the target is anything else: a character outside the tables above, an empty segment
 * (`//`) or a dot segment, all of which `parseTarget` must judge.
 */
function plainQueryStart(target: string): number {
  if (target.charCodeAt(0) !== SLASH) return -1;
  let segment = 1;
  let i = 1;
  for (; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c === QUESTION) break;
    if (c === SLASH) {
      if (i === segment || isDotSegment(target, segment, i)) return -1;
      segment = i + 1;
    } else if (c > 127 || PATH_CHARS[c] === 0) return -1;
  }
  if (isDotSegment(target, segment, i)) return -1;
  for (let j = i + 1; j < target.length; j++) {
    const c = target.charCodeAt(j);
    if (c > 127 || QUERY_CHARS[c] === 0) return -1;
  }
  return i;
}

class PlainTarget implements RequestTarget {
  readonly pathname: string;
  readonly search: string;
  #params: URLSearchParams | undefined;
  constructor(pathname: string, search: string) {
    this.pathname = pathname;
    this.search = search;
  }

  /** Parsed on first use: most requests (prebuilt files) never read their query. */
  get searchParams(): URLSearchParams {
    return (this.#params ??= new URLSearchParams(this.search));
  }
}

/**
 * `parseTarget` without building a URL when the target is already in normal form (the same
 * pathname, search and parameters; test/unit/server/request-target.test.ts checks this against
 * `parseTarget` on generated targets). `new URL` was a few microseconds of every request, and a
 * regular expression doing the same check cost more than this loop.
 */
export function parseRequestTarget(target: string): RequestTarget | undefined {
  const query = plainQueryStart(target);
  if (query === -1) return parseTarget(target);
  // `?` alone is an empty query, as the URL parser reads it.
  return new PlainTarget(target.slice(0, query), query >= target.length - 1 ? '' : target.slice(query));
}

/** A target as the edge reads it: its one path and query, or why it was refused (with the path as sent, for the log). */
export interface ReadTarget {
  url: RequestTarget;
  /** Set when the target is no valid path: the edge answers 400 with it, after charging a rate limit. */
  refusal?: string;
}

const NO_PARAMS = new URLSearchParams();

/**
 * `parseRequestTarget`, never throwing: a refused target keeps its path as sent (the access log
 * shows it, cut to its bound) and says why, so it passes the same rate limit as any other request
 * before its 400 (a flood of refused targets is charged like any other).
 */
export function readTarget(target: string): ReadTarget {
  let refusal = 'The request target is not a valid path.';
  try {
    const url = parseRequestTarget(target);
    if (url) return { url };
  } catch (error) {
    if (!(error instanceof BadTarget)) throw error;
    refusal = error.message;
  }
  const query = target.indexOf('?');
  return { url: { pathname: query === -1 ? target : target.slice(0, query), search: '', searchParams: NO_PARAMS }, refusal };
}
