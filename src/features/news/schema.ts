/**
 * News: the NewsArticle resource (docs/interface.md section 2) and the frontmatter an editor
 * writes in `content/news/<id>.md`. The content collection validates every file against
 * `NewsFrontmatter` at build time; `toNewsList` (news-list.ts) turns the entries into
 * `NewsArticle`s for `GET /api/news`, the pages and the feed.
 *
 * Messages are written for the editor who reads them in a failed build: each names the field,
 * says what is expected and shows an example (Astro prefixes the collection, the entry id and
 * the file).
 */
import { z } from 'zod';
import { boundedEditDistance } from '../../lib/edit-distance.ts';
import { NEWS_PAGES_SEGMENT } from './pagination.ts';

/** An article id: the file name without `.md`, lower-case words joined by hyphens. */
export const ARTICLE_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Why `id` cannot be an article id, or `null` when it can. Besides the shape (ARTICLE_ID), the
 * id must not name what already lives under /news/: "page" is the folder of the news list's
 * later pages (/news/page/2/, pagination.ts), and an article at /news/page/ would stand above
 * them as if it were their index.
 */
export function articleIdProblem(id: string): string | null {
  if (!ARTICLE_ID.test(id)) return 'the file name must be lower-case letters and digits joined by hyphens, e.g. q1-transparency-report.md';
  if (id === NEWS_PAGES_SEGMENT) return `"${id}" cannot be an article id: /news/${id}/ holds the pages of the news list (/news/${id}/2/)`;
  return null;
}

export const HEADING_MAX = 120;
export const SUBHEADING_MAX = 240;
export const IMAGE_ALT_MAX = 250;

/** What an editor writes for `createdAt`, shown in every createdAt message. */
export const CREATED_AT_EXAMPLE = '2026-01-05T09:30:00+01:00';

/** A short, printable rendering of a value for messages. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid date' : value.toISOString();
  const json = JSON.stringify(value);
  if (json === undefined) return String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/**
 * Why `value` is not an RFC 3339 date-time with an explicit offset, or `null` when it is one.
 * A time without a zone is refused rather than read as UTC: "10:00" written in Paris and read
 * in UTC would publish the article an hour late and misorder the list (RFC 3339 section 4.4
 * leaves unqualified local time to the reader's guess).
 */
export function createdAtProblem(value: string): string | null {
  const v = value.trim();
  if (DATE_ONLY.test(v)) {
    return `createdAt "${v}" is a date without a time: add the time and timezone, e.g. ${v}T09:30:00+01:00`;
  }
  if (LOCAL_DATE_TIME.test(v)) {
    return `createdAt "${v}" has no timezone: add Z (UTC) or an offset such as +01:00, e.g. ${CREATED_AT_EXAMPLE}`;
  }
  const m = ISO_DATE_TIME.exec(v);
  if (!m) {
    return `createdAt "${v}" is not an ISO 8601 date-time: write date, time with seconds and timezone, e.g. ${CREATED_AT_EXAMPLE}`;
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    return `createdAt "${v}" is not a real date and time (check the month, day and hour), e.g. ${CREATED_AT_EXAMPLE}`;
  }
  const offset = m[8] ?? 'Z';
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) {
    return `createdAt "${v}" has an impossible timezone offset ${offset}: use Z or ±hh:mm, e.g. +01:00`;
  }
  return null;
}

/** An RFC 3339 date-time with an explicit offset, e.g. "2026-01-05T09:30:00+01:00". */
export const DateTimeWithOffset = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? `createdAt is required: the publication time with its timezone, e.g. ${CREATED_AT_EXAMPLE}`
        : `createdAt must be a date-time such as ${CREATED_AT_EXAMPLE}, got ${show(issue.input)}`,
  })
  .superRefine((value, ctx) => {
    const problem = createdAtProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  });

/** An absolute http(s) URL. */
const absoluteUrl = (field: string) =>
  z.url({
    protocol: /^https?$/,
    error: (issue) => `${field} must be an absolute http(s) URL such as https://example.com/page, got ${show(issue.input)}`,
  });

/**
 * The NewsArticle resource served by `GET /api/news` (docs/interface.md section 2), metadata only.
 * Optional fields are always present in our responses, as null when the article has none, so
 * that clients see one shape.
 */
export const NewsArticle = z
  .object({
    id: z.string().regex(ARTICLE_ID).meta({ description: "Stable identifier; the article's page is /news/<id>/.", examples: ['community-data-api'] }),
    heading: z.string().min(1).max(HEADING_MAX).meta({ description: "The article's title.", examples: ['A free API for our daily market data'] }),
    subheading: z
      .string()
      .min(1)
      .max(SUBHEADING_MAX)
      .nullable()
      .optional()
      .meta({ description: 'One sentence under the heading, or null.', examples: ['Transaction counts, impressions and revenue per day, as JSON, without an API key.'] }),
    imageUrl: absoluteUrl('imageUrl').nullable().optional().meta({ description: "Absolute URL of the article's illustration, or null.", examples: ['https://meridian-exchange.example/images/news/data-api.svg'] }),
    link: absoluteUrl('link').nullable().optional().meta({ description: 'Absolute URL of a related page (a report, a partner announcement), or null.', examples: ['https://meridian-exchange.example/docs/api'] }),
    createdAt: z.iso.datetime({ offset: true }).meta({ description: 'Publication time, RFC 3339 in UTC.', examples: ['2026-08-04T16:00:00Z'] }),
  })
  .meta({ description: 'A news article: metadata only, without the body. Optional fields are sent as null when the article has none.' });
export type NewsArticle = z.infer<typeof NewsArticle>;

const requiredText = (field: string, max: number) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `${field} is required`
          : `${field} must be text (put it in quotes if it looks like a date or a number), got ${show(issue.input)}`,
    })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);

/**
 * A link as an editor writes it: an absolute http(s) URL, or a path on this site starting with
 * "/" (resolved against the site URL when the API and the feed are built).
 */
const editorUrl = (field: string, example: string) =>
  z
    .string({ error: (issue) => `${field} must be a URL or a path such as ${example}, or null, got ${show(issue.input)}` })
    .trim()
    .superRefine((value, ctx) => {
      if (value.startsWith('/') && !value.startsWith('//')) {
        if (/\s/.test(value)) ctx.addIssue({ code: 'custom', message: `${field} "${value}" must not contain spaces`, input: value });
        return;
      }
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname.includes('.')) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} "${value}" must be an absolute http(s) URL or a path on this site starting with "/", e.g. ${example}`,
          input: value,
        });
      }
    });

const pixels = (field: string) =>
  z
    .number({ error: (issue) => `${field} must be a whole number of pixels, got ${show(issue.input)}` })
    // A refinement rather than .int(): zod's int check aborts the object, which would hide the
    // file's other problems (unknown fields, image rules) until this one is fixed.
    .refine(Number.isInteger, `${field} must be a whole number of pixels`)
    .positive(`${field} must be greater than 0`)
    .max(10_000, `${field} must be at most 10000 pixels`);

const frontmatterShape = {
  /** The article's title (required). */
  heading: requiredText('heading', HEADING_MAX),
  /** One sentence shown under the heading and in the feed. */
  subheading: requiredText('subheading', SUBHEADING_MAX).nullable().optional(),
  /** The illustration: a file under public/ ("/images/news/x.svg") or an https URL. */
  imageUrl: editorUrl('imageUrl', '/images/news/report.svg').nullable().optional(),
  /** Text alternative of the image (WCAG 1.1.1); "" marks a purely decorative image. */
  imageAlt: z
    .string({ error: (issue) => `imageAlt must be text describing the image, got ${show(issue.input)}` })
    .max(IMAGE_ALT_MAX, `imageAlt must be at most ${IMAGE_ALT_MAX} characters`)
    .optional(),
  /** Intrinsic width of the image in pixels, so the page reserves its space (no layout shift). */
  imageWidth: pixels('imageWidth').optional(),
  /** Intrinsic height of the image in pixels. */
  imageHeight: pixels('imageHeight').optional(),
  /** A related page: an absolute URL or a path on this site ("/stats"). */
  link: editorUrl('link', 'https://example.com/report').nullable().optional(),
  /** Publication time with an explicit timezone, e.g. 2026-01-05T09:30:00+01:00. */
  createdAt: DateTimeWithOffset,
  /** true keeps the article out of the site, the API and the feed. */
  draft: z.boolean({ error: (issue) => `draft must be true or false, got ${show(issue.input)}` }).default(false),
};

export const FRONTMATTER_FIELDS = Object.keys(frontmatterShape);

const IMAGE_DETAILS = ['imageAlt', 'imageWidth', 'imageHeight'] as const;

/** A plain object (refinements below also run on partly invalid input, so they check first). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field name as compared for suggestions: case, hyphens and underscores do not count. */
const comparable = (name: string): string[] => Array.from(name.toLowerCase().replace(/[-_]/g, ''));
const COMPARABLE_FIELDS = FRONTMATTER_FIELDS.map((field) => ({ field, chars: comparable(field) }));

/**
 * The known field an unknown one most likely meant, or undefined: the nearest by edit distance
 * (a swap of neighbours counts as one edit), within one edit for names of up to four characters
 * and two for longer ones, so that "subheadng", "hedaing" and "Created_At" find their field
 * and "author" finds none. Ties go to the field listed first.
 */
export function suggestField(key: string): string | undefined {
  const chars = comparable(key);
  const allowance = chars.length <= 4 ? 1 : 2;
  let best: { field: string; distance: number } | undefined;
  for (const { field, chars: candidate } of COMPARABLE_FIELDS) {
    const distance = boundedEditDistance(chars, candidate, allowance, { transpositions: true });
    if (distance <= allowance && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** Refuse fields the schema does not know (a typo such as `subHeading` would otherwise vanish). */
function checkUnknownFields(data: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const key of Object.keys(data)) {
    if (FRONTMATTER_FIELDS.includes(key)) continue;
    const near = suggestField(key);
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message: near
        ? `unknown field "${key}": did you mean "${near}"?`
        : `unknown field "${key}": the fields are ${FRONTMATTER_FIELDS.join(', ')}`,
      input: key,
    });
  }
}

/** An image needs its alt text and intrinsic size, and those need an image. */
function checkImageFields(data: { imageUrl?: string | null | undefined } & Partial<Record<(typeof IMAGE_DETAILS)[number], unknown>>, ctx: z.RefinementCtx): void {
  const hasImage = typeof data.imageUrl === 'string';
  for (const field of IMAGE_DETAILS) {
    if (hasImage && data[field] === undefined) {
      const what = field === 'imageAlt' ? 'a description of the image ("" if purely decorative)' : 'its size in pixels';
      ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required when imageUrl is set: give ${what}` });
    }
    if (!hasImage && data[field] !== undefined) {
      ctx.addIssue({ code: 'custom', path: [field], message: `${field} is set but imageUrl is not: add imageUrl or remove ${field}` });
    }
  }
}

const KnownFrontmatter = z.object(frontmatterShape);

/**
 * The frontmatter of `content/news/<id>.md`. The `id` is not written: it is the file name.
 * An image needs its alt text and intrinsic size so that pages can render it accessibly and
 * without layout shift. Unknown fields are refused one by one (a loose object, checked, then
 * reduced to the known fields) so that every problem of a file is reported in one build.
 */
export const NewsFrontmatter = z
  .looseObject(frontmatterShape)
  .superRefine(
    (data, ctx) => {
      checkUnknownFields(data, ctx);
      checkImageFields(data, ctx);
    },
    // Also when a field has the wrong type: "unknown field Heading, did you mean heading?" is
    // the useful half of "heading is required".
    { when: (payload) => isRecord(payload.value) },
  )
  .transform((data): z.output<typeof KnownFrontmatter> => {
    const known: Record<string, unknown> = {};
    for (const field of FRONTMATTER_FIELDS) if (data[field] !== undefined) known[field] = data[field];
    return known as z.output<typeof KnownFrontmatter>;
  });
export type NewsFrontmatter = z.infer<typeof NewsFrontmatter>;
