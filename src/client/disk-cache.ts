/**
 * A `MonthCache` in a directory, for command-line use (Node only: it needs node:fs, so it is
 * kept out of data-client.ts, which browsers load). One small JSON file per month, holding its
 * last answer (records and ETag, month-cache.ts), named by a hash of the month's key; the key
 * is stored inside and checked on read, so a hash collision or a renamed file reads as a miss
 * rather than as another month's data.
 *
 * Writes go to a temporary file that is then renamed over the target (rename(2) is atomic on
 * one file system), so an interrupted run or two runs at once never leave half a file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, parse, resolve, sep } from 'node:path';
import type { StoredAnswer, MonthCache } from './month-cache.ts';

/**
 * Bumped when the file layout changes; files of another version are misses. 2: the answer with
 * its ETag (format 1 held settled records without one, which could never be revalidated).
 */
const FORMAT = 2;

interface CacheFile {
  format: number;
  key: string;
  answer: StoredAnswer;
}

/** File name of a key: 32 hex digits of its SHA-256, safe on every file system. */
export function cacheFileName(key: string): string {
  return `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`;
}

/**
 * Create `dir` and whatever of its parents is missing, one component at a time from the root,
 * each tried once. Not `mkdir(dir, { recursive: true })`: Node's recursive mkdir loops at full
 * CPU, never returning, on a path under /proc (mkdir(2) answers ENOENT there although the parent
 * exists, and it retries the parent and the path in turn). Here such a path fails at once with
 * mkdir's own error, e.g. `ENOENT: no such file or directory, mkdir '/proc/nope'`.
 */
export async function makeDirectory(dir: string): Promise<void> {
  const absolute = resolve(dir);
  if ((await stat(absolute).catch(() => undefined))?.isDirectory()) return;
  const { root } = parse(absolute);
  let path = root;
  for (const part of absolute.slice(root.length).split(sep).filter(Boolean)) {
    path = join(path, part);
    try {
      await mkdir(path);
    } catch (error) {
      // An existing component is fine; whether it is a directory shows at the next one, or below.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (!(await stat(absolute)).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${absolute}'`), { code: 'ENOTDIR' });
}

/**
 * A cache in `dir` (created on the first write). Reads of missing, unreadable or foreign files
 * are misses; the client checks the answer itself again before using it.
 */
export function createDiskCache(dir: string): MonthCache {
  return {
    async get(key) {
      let text: string;
      try {
        text = await readFile(join(dir, cacheFileName(key)), 'utf8');
      } catch {
        return undefined;
      }
      try {
        const file = JSON.parse(text) as Partial<CacheFile>;
        return file.format === FORMAT && file.key === key ? file.answer : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, answer) {
      await makeDirectory(dir);
      const target = join(dir, cacheFileName(key));
      const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      const file: CacheFile = { format: FORMAT, key, answer };
      try {
        await writeFile(temporary, JSON.stringify(file));
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
  };
}
