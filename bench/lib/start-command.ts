/**
 * The server's command line as `npm start` runs it (package.json "start": `exec env K=V … node
 * <flags> <entry>`), so the benchmark measures the process a deployment runs, with the same
 * memory settings (V8 flags, MALLOC_ARENA_MAX), instead of a second copy of them that could drift.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StartCommand {
  /** Variables the script sets with `env`. */
  env: Record<string, string>;
  /** Node's arguments: its flags, then the entry. */
  args: string[];
  /** V8's memory flags among them (`--max-…`), the ones NODE_OPTIONS may carry (the Dockerfile's, a test's child). */
  memoryFlags: string[];
}

/**
 * The server command of the npm script `script` (default `start`): its last command, after any
 * `&&` (`demo` builds and seeds first, then serves as `start` does).
 */
export function startCommand(repo: string, script = 'start'): StartCommand {
  const { scripts } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (scripts[script] ?? '').split('&&').at(-1)!.trim().split(/\s+/);
  if (words[0] === 'exec') words.shift();
  const env: Record<string, string> = {};
  if (words[0] === 'env') {
    words.shift();
    while (words[0]?.includes('=')) {
      const [name, ...value] = words.shift()!.split('=');
      env[name!] = value.join('=');
    }
  }
  if (words.shift() !== 'node' || words.length === 0) throw new Error(`package.json "${script}" does not end with \`[exec] [env K=V …] node <args>\`: ${scripts[script]}`);
  return { env, args: words, memoryFlags: words.filter((word) => word.startsWith('--max-')) };
}
