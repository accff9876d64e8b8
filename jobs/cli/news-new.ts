/**
 * npm run news:new -- "Heading of the article"
 *
 * Writes content/news/<slug>.md with valid frontmatter (createdAt = now, in this machine's
 * timezone, with its offset; draft: true) and prints the path. `--at 2099-01-05T09:30:00+01:00`
 * makes it a scheduled article instead: createdAt is that time, draft false, so the build
 * publishes it at that instant (src/features/news/schedule.ts). Refuses to overwrite an existing
 * article (exit 73, EX_CANTCREAT); a heading that makes no article exits 64 (EX_USAGE); `--help`
 * prints the usage and writes nothing. The text itself comes from
 * src/features/news/new-article.ts.
 */
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { NewArticleError, newArticle } from '../../src/features/news/new-article.ts';
import { EX_CANTCREAT, EX_USAGE } from '../../src/app/exit-codes.ts';
import { runCli } from './run-cli.ts';

/** The heading is every argument, joined; one starting with `-` goes after `--` (`npm run news:new -- -- "-5 % fees"`). */
const USAGE = {
  synopsis: 'npm run news:new -- [--at DATE-TIME] "Heading of the article"',
  options: { at: { type: 'string' } },
  positionals: true,
  details: '  --at  schedule it: publish at this time, with its timezone, e.g. 2099-01-05T09:30:00+01:00',
} as const;

export interface NewsNewDeps {
  /** Folder the article is written to. */
  dir: string;
  /** The clock, injectable for tests. */
  now: Date;
  /** Minutes east of UTC for `createdAt`; defaults to the machine's zone at `now`. */
  offsetMinutes?: number;
  /** `--at`: the publication time of a scheduled article. */
  at?: string | undefined;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Run the command; returns the process exit code. */
export async function runNewsNew(args: readonly string[], deps: NewsNewDeps): Promise<number> {
  const heading = args.join(' ');
  let article;
  try {
    article = newArticle(heading, deps.now, deps.offsetMinutes ?? -deps.now.getTimezoneOffset(), deps.at);
  } catch (error) {
    if (!(error instanceof NewArticleError)) throw error;
    deps.err(`news:new: ${error.message}`);
    return EX_USAGE;
  }
  const path = join(deps.dir, article.fileName);
  try {
    // "wx": create only, fail if the file exists (O_EXCL), so an article is never overwritten.
    await writeFile(path, article.contents, { encoding: 'utf8', flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      deps.err(`news:new: ${path} already exists; not overwritten. Choose another heading, or edit that file.`);
      return EX_CANTCREAT;
    }
    throw error;
  }
  deps.out(path);
  return 0;
}

if (import.meta.main) {
  const dir = relative(process.cwd(), join(import.meta.dirname, '..', '..', 'content', 'news')) || '.';
  process.exitCode = await runCli('news-new', USAGE, ({ positionals, values, stdout, stderr }) =>
    runNewsNew(positionals, { dir, now: new Date(), at: values.at, out: (line) => stdout.write(`${line}\n`), err: (line) => stderr.write(`${line}\n`) }),
  );
}
