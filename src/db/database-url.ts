/**
 * What DATABASE_URL names, read without opening anything: the engine, and a SQLite file's path.
 * Apart from create-db.ts (and kysely, which it loads) so that the configuration, the location
 * check and the commands that never open a database (data:fetch, fleet:nginx, --help) read a URL
 * without loading kysely's 257 modules, about 0.1 s of CPU on every start.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Engine = 'sqlite' | 'postgres';

export function engineOf(url: string): Engine {
  return /^postgres(ql)?:\/\//i.test(url) ? 'postgres' : 'sqlite';
}

/** `file:` URL or plain path to an absolute path; `:memory:` stays as it is. */
export function sqlitePath(url: string): string {
  if (url === ':memory:') return url;
  if (url.startsWith('file:')) {
    return url.startsWith('file://') ? fileURLToPath(url) : resolve(url.slice('file:'.length).split('?')[0]!);
  }
  return resolve(url);
}
