/**
 * Just enough of Docker's file formats to check them without Docker (which cannot run on this
 * project's CI machine): the stages of a Dockerfile and the patterns of a .dockerignore.
 * Used by scripts/image-smoke.ts and test/unit/Dockerfile.test.ts. Pure: no I/O.
 *
 * Dockerfile reference: https://docs.docker.com/reference/dockerfile/ . Line continuations
 * (a trailing backslash) are joined and `#` comment lines dropped; parser directives, heredocs
 * and the shell-form/exec-form subtleties beyond what this repository uses are not handled.
 */

export interface Instruction {
  /** Upper-cased keyword: FROM, COPY, RUN, ENV, CMD... */
  keyword: string;
  /** The rest of the line, as written. */
  args: string;
  line: number;
}

export interface Stage {
  /** The `AS name`, or the stage's index as a string when it has none. */
  name: string;
  image: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  let startLine = 0;
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trimEnd();
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (pending === '') startLine = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const joined = (pending + line).trim();
    pending = '';
    const match = /^(\S+)\s*(.*)$/.exec(joined);
    if (!match) continue;
    const keyword = (match[1] ?? '').toUpperCase();
    const args = match[2] ?? '';
    if (keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(args);
      stages.push({ name: from?.[2] ?? String(stages.length), image: from?.[1] ?? '', instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${startLine}: ${keyword} before the first FROM`);
    stage.instructions.push({ keyword, args, line: startLine });
  }
  return stages;
}

/** The argv of an exec-form instruction (`CMD ["node", "x.ts"]`); undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.trimStart().startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) return undefined;
  return parsed;
}

export interface Copy {
  /** `--from=stage`, if any. */
  from: string | undefined;
  sources: string[];
  destination: string;
}

/** `COPY [--from=x] [--chown=...] src... dest` (the exec form `COPY ["a", "b"]` too). */
export function parseCopy(args: string): Copy {
  const words = execForm(args) ?? args.split(/\s+/).filter(Boolean);
  let from: string | undefined;
  const rest: string[] = [];
  for (const word of words) {
    if (word.startsWith('--from=')) from = word.slice('--from='.length);
    else if (!word.startsWith('--')) rest.push(word);
  }
  const destination = rest.pop();
  if (destination === undefined || rest.length === 0) throw new Error(`COPY needs a source and a destination: ${args}`);
  return { from, sources: rest, destination };
}

/** `ENV A=1 B=2` (the legacy `ENV A 1` form too); values may be double-quoted. */
export function parseEnv(args: string): Record<string, string> {
  const legacy = /^([A-Za-z_]\w*)\s+([^=]*)$/.exec(args);
  if (legacy) return { [legacy[1] ?? '']: (legacy[2] ?? '').trim() };
  const env: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_]\w*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const value = match[2] ?? '';
    env[match[1] ?? ''] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  return env;
}

/**
 * A .dockerignore, with the semantics of Docker's matcher (moby/patternmatcher, the rules at
 * https://docs.docker.com/build/concepts/context/#dockerignore-files): each pattern is rooted
 * at the context (`*.db` is the root's only; `**` spans folders), matching a folder excludes
 * everything in it, `!` re-includes, and the last matching pattern wins.
 */
export class DockerIgnore {
  readonly patterns: { negated: boolean; text: string; regex: RegExp }[];

  constructor(text: string) {
    this.patterns = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => {
        const negated = line.startsWith('!');
        const cleaned = (negated ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
        return { negated, text: cleaned, regex: patternRegex(cleaned) };
      });
  }

  /** Whether a path relative to the context (`a/b.txt`) is left out of it. */
  ignores(path: string): boolean {
    let ignored = false;
    for (const pattern of this.patterns) {
      if (matchesOrParentMatches(pattern.regex, path)) ignored = !pattern.negated;
    }
    return ignored;
  }

  /** Whether a whole folder can be skipped: it is ignored and no `!` pattern could bring back part of it. */
  prunes(folder: string): boolean {
    return this.ignores(folder) && !this.patterns.some((pattern) => pattern.negated);
  }
}

function matchesOrParentMatches(regex: RegExp, path: string): boolean {
  const parts = path.split('/');
  for (let end = parts.length; end > 0; end -= 1) {
    if (regex.test(parts.slice(0, end).join('/'))) return true;
  }
  return false;
}

/** Go's filepath.Match syntax plus `**`, as moby/patternmatcher compiles it. */
function patternRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] ?? '';
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` is any number of folders, none included; a trailing `**` is anything.
      if (pattern[i + 2] === '/') {
        source += '(?:.*/)?';
        i += 2;
      } else {
        source += '.*';
        i += 1;
      }
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) throw new Error(`.dockerignore: unclosed [ in ${pattern}`);
      source += `[${pattern.slice(i + 1, close).replace(/^\^|^!/, '^')}]`;
      i = close;
    } else if (char === '\\') {
      source += `\\${pattern[i + 1] ?? '\\'}`;
      i += 1;
    } else source += char.replace(/[.+^${}()|]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
