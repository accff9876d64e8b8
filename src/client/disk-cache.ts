/**
 * A `WindowCache` in a directory, for command-line use (Node only: it needs node:fs, so it is
 * kept out of data-client.ts, which browsers load). One small JSON file per window, holding its
 * last answer (records and ETag, window-cache.ts), named by a hash of the window's key; the key
 * is stored inside and checked on read, so a hash collision or a renamed file reads as a miss
 * rather than as another window's data.
 *
 * Writes go to a temporary file that is then renamed over the target (rename(2) is atomic on
 * one file system), so an interrupted run or two runs at once never leave half a file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredAnswer, WindowCache } from './window-cache.ts';

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
 * A cache in `dir` (created on the first write). Reads of missing, unreadable or foreign files
 * are misses; the client checks the answer itself again before using it.
 */
export function createDiskCache(dir: string): WindowCache {
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
      await mkdir(dir, { recursive: true });
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
