/**
 * Keep YAML timestamps as the editor wrote them.
 *
 * Astro parses frontmatter with js-yaml's default schema, which turns an unquoted
 * `createdAt: 2026-01-05T10:00:00` into a Date and silently reads the missing timezone as UTC
 * (YAML 1.1 timestamp type); `2026-01-05` becomes midnight UTC. Once it is a Date the schema can
 * no longer tell whether a zone was written. So before validation, every top-level value that
 * YAML turned into a Date is replaced by its source text, and `NewsFrontmatter` decides.
 */

/** The source text of a top-level `key: value` line of a YAML mapping, unquoted, without comment. */
export function rawTopLevelScalar(rawFrontmatter: string, key: string): string | undefined {
  for (const line of rawFrontmatter.split(/\r?\n/)) {
    // Top-level keys start in column 0; indented lines belong to nested values.
    if (!line.startsWith(`${key}:`)) continue;
    let value = line.slice(key.length + 1).trim();
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) return quoted[2];
    // A YAML comment starts with " #" outside quotes.
    const hash = value.search(/\s#/);
    if (hash !== -1) value = value.slice(0, hash).trim();
    return value;
  }
  return undefined;
}

/** `data` with each top-level Date value replaced by the text written in `rawFrontmatter`. */
export function restoreYamlTimestamps(data: Record<string, unknown>, rawFrontmatter: string): Record<string, unknown> {
  let restored: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(data)) {
    if (!(value instanceof Date)) continue;
    const raw = rawTopLevelScalar(rawFrontmatter, key);
    if (raw === undefined) continue;
    restored ??= { ...data };
    restored[key] = raw;
  }
  return restored ?? data;
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

/** The YAML between the leading `---` fences of a Markdown file, or "" when there is none. */
export function extractRawFrontmatter(fileText: string): string {
  return FRONTMATTER.exec(fileText)?.[1] ?? '';
}
