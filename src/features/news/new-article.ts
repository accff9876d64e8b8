/**
 * The pure half of `npm run news:new -- "Heading"`: the slug, the file name and the starter
 * Markdown. The CLI (jobs/cli/news-new.ts) adds the clock, the timezone and the file system.
 */
import { ARTICLE_ID, HEADING_MAX, articleIdProblem, createdAtProblem } from './schema.ts';

/** Longest slug we generate; long enough to stay readable, short enough for a URL. */
export const SLUG_MAX = 60;

/**
 * Letters that Unicode does not decompose into an ASCII base letter plus marks, or whose
 * decomposition would lose what a reader expects: German spells umlauts without the dots as
 * "ae", "oe", "ue" and ß as "ss" (DIN 5007-2; "Straße" → "strasse", not "stra-e"). Keys are
 * lower case, NFC.
 */
const TRANSLITERATIONS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
};
const TRANSLITERATED = new RegExp(`[${Object.keys(TRANSLITERATIONS).join('')}]`, 'g');

/**
 * A URL slug from a heading: ASCII letters and digits, lower case, words joined by "-"
 * ("Q1 2026: Transparency Report" → "q1-2026-transparency-report"). Letters are transliterated
 * (TRANSLITERATIONS: "Straße" → "strasse", "Grüße" → "gruesse"), then other accents folded by
 * compatibility decomposition (Unicode UAX #15 NFKD) without the combining marks ("Café" →
 * "cafe"); anything else separates words. Cut at a word boundary near SLUG_MAX.
 * Returns "" when the heading has no letters or digits.
 */
export function slugify(heading: string): string {
  const words = heading
    // NFC first, so a "ü" typed as "u" + U+0308 is the one character the table knows.
    .normalize('NFC')
    .toLowerCase()
    .replace(TRANSLITERATED, (letter) => TRANSLITERATIONS[letter] ?? letter)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > SLUG_MAX) {
      if (!slug) slug = word.slice(0, SLUG_MAX);
      break;
    }
    slug = next;
  }
  return slug;
}

/** `at` checked as a future publication time for `--at`; the text as written. */
function scheduledAt(at: string, now: Date): string {
  const problem = createdAtProblem(at);
  if (problem) throw new NewArticleError(`--at: ${problem.replace(/^createdAt /, '')}`);
  if (Date.parse(at) <= now.getTime()) throw new NewArticleError(`--at ${at} is not in the future; leave out --at for a draft stamped with the current time`);
  return at;
}

/** Two-digit zero padding. */
const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * `date` as an RFC 3339 local time with its offset, to the second:
 * formatWithOffset(2026-01-05T08:30:00Z, 60) → "2026-01-05T09:30:00+01:00".
 * `offsetMinutes` is east of UTC (the negation of `Date#getTimezoneOffset()`).
 */
export function formatWithOffset(date: Date, offsetMinutes: number): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

export interface NewArticle {
  /** The article id and file name stem. */
  slug: string;
  /** `<slug>.md`. */
  fileName: string;
  /** The file's full text: frontmatter and a starter body. */
  contents: string;
}

export class NewArticleError extends Error {
  override name = 'NewArticleError';
}

/**
 * The starter file for a new article. It is a draft until the editor sets `draft: false`, so
 * a half-written article that is merged by accident stays off the site. The heading is written
 * as a JSON string, which is also a valid YAML double-quoted scalar (YAML 1.2, section 7.3.1),
 * so quotes, colons and "#" in it are safe.
 */
/**
 * `at`: a publication time (RFC 3339 with its offset, as `createdAt` takes it) after `now`: the
 * article is then scheduled (src/features/news/schedule.ts), not a draft, and appears at that
 * instant once merged and built.
 */
export function newArticle(heading: string, now: Date, offsetMinutes: number, at?: string): NewArticle {
  const text = heading.trim().replace(/\s+/g, ' ');
  if (!text) throw new NewArticleError('give the heading of the article, e.g. npm run news:new -- "Q1 2026 transparency report"');
  if (text.length > HEADING_MAX) {
    throw new NewArticleError(`the heading is ${text.length} characters; keep it to ${HEADING_MAX} (put the rest in the subheading)`);
  }
  const slug = slugify(text);
  if (!ARTICLE_ID.test(slug)) {
    throw new NewArticleError(`cannot make a file name from "${text}": use a heading with letters or digits`);
  }
  const idProblem = articleIdProblem(slug);
  if (idProblem) throw new NewArticleError(`${idProblem}; use a longer heading`);
  const scheduled = at === undefined ? undefined : scheduledAt(at.trim(), now);
  const contents = [
    '---',
    `heading: ${JSON.stringify(text)}`,
    '# subheading: One sentence shown under the heading and in the feed.',
    '# link: https://example.com/related-page',
    '# imageUrl: /images/news/your-image.svg',
    '# imageAlt: What the image shows',
    '# imageWidth: 1200',
    '# imageHeight: 630',
    `createdAt: ${scheduled ?? formatWithOffset(now, offsetMinutes)}`,
    ...(scheduled === undefined
      ? ['# Set draft to false (or delete the line) to publish with the next deploy.', 'draft: true']
      : ['# Scheduled: once merged and built, published at createdAt, not before. Set draft to true to hold it back.', 'draft: false']),
    '---',
    '',
    'Write the article here, in Markdown.',
    '',
  ].join('\n');
  return { slug, fileName: `${slug}.md`, contents };
}
