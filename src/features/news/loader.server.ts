/**
 * The `news` collection's loader: Astro's `glob()` over content/news/*.md, with three checks
 * that the schema alone cannot make, each naming the file:
 * - YAML timestamps reach the schema as written (see frontmatter.ts), so a `createdAt` without a
 *   timezone is refused instead of being read as UTC;
 * - the file name is a valid article id, because it becomes /news/<id>/ and the API's `id`, and
 *   not one the news list's own pages need (schema.ts `articleIdProblem`);
 * - an `imageUrl` pointing into public/ names a file that exists.
 *
 * Every bad file is reported at once: a problem is collected, not thrown, while `glob()` goes
 * through the files, and the load then fails with all of them (an editor with three broken
 * articles needs one build, not three). The image check runs over every entry after the load,
 * those `glob()` took unchanged from Astro's cache (node_modules/.astro) included, so a cache
 * can never carry an entry past a check. Under `astro dev` the load does not fail (the server
 * keeps serving the other articles): the problems go to the terminal and to the news list,
 * which shows them in an error box (news-problems.ts).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AstroError } from 'astro/errors';
import { glob, type Loader, type LoaderContext } from 'astro/loaders';
import { extractRawFrontmatter, restoreYamlTimestamps } from './frontmatter.ts';
import { newsProblemsError, publishNewsProblems, type NewsProblem } from './news-problems.ts';
import { articleIdProblem } from './schema.ts';

export const NEWS_DIR = './content/news';

type ParseDataOptions<TData extends Record<string, unknown>> = Parameters<LoaderContext['parseData']>[0] & { data: TData };
type ParseProps = ParseDataOptions<Record<string, unknown>>;

/** The file and problem of an image path into public/ that names no file, or null. */
function missingImage(shown: string, imageUrl: unknown, publicDir: URL): NewsProblem | null {
  if (typeof imageUrl !== 'string' || !imageUrl.startsWith('/')) return null;
  const path = decodeURIComponent(imageUrl.split(/[?#]/)[0] ?? imageUrl);
  if (existsSync(new URL(`.${path}`, publicDir))) return null;
  return { file: shown, message: `imageUrl "${imageUrl}" does not exist: no file public${path}`, hint: 'Put the image under public/ (e.g. public/images/news/) or fix the path.' };
}

/**
 * What an error thrown by a check says, without a repeated file name, and without the markdown
 * of Astro's schema message ("**news → x** data does not match collection schema."), which the
 * file name already says and the browser would show raw.
 */
function problemOf(shown: string, error: unknown): NewsProblem {
  const raw = error instanceof Error ? error.message : String(error);
  const message = raw
    .replace(/^\*\*[^*]+\*\* data does not match collection schema\.\s*/, '')
    .replaceAll('**', '')
    .replace(/\s*\n\s*/g, '; ')
    .trim();
  const hint = error instanceof AstroError ? error.hint : undefined;
  return { file: shown, message: message.startsWith(`${shown}: `) ? message.slice(shown.length + 2) : message, ...(hint ? { hint } : {}) };
}

export function newsLoader(base: string = NEWS_DIR): Loader {
  const inner = glob({ pattern: '*.md', base });
  return {
    name: 'news-loader',
    load: async (context: LoaderContext) => {
      const shownOf = (props: ParseProps) => (props.filePath ? relative(fileURLToPath(context.config.root), props.filePath) : props.id);
      // Collected during the first load, so that one bad file does not hide the next; a file
      // edited later under `astro dev` throws, which keeps its previous version in the store.
      let collecting: Map<string, NewsProblem> | undefined = new Map();
      const failedIds = new Set<string>();
      const check = async <TData extends Record<string, unknown>>(props: ParseDataOptions<TData>): Promise<TData> => {
        const shown = shownOf(props);
        const idProblem = articleIdProblem(props.id);
        if (idProblem) throw new AstroError(`${shown}: ${idProblem}`, 'The file name is the article id and its URL, /news/<id>/. Rename the file.');
        const raw = props.filePath ? extractRawFrontmatter(await readFile(props.filePath, 'utf8')) : '';
        const parsed = await context.parseData({ ...props, data: restoreYamlTimestamps(props.data, raw) as typeof props.data });
        const image = missingImage(shown, (parsed as { imageUrl?: unknown }).imageUrl, context.config.publicDir);
        if (image) throw new AstroError(`${shown}: ${image.message}`, image.hint);
        return parsed;
      };
      const devProblems = new Map<string, NewsProblem>();
      await inner.load({
        ...context,
        parseData: async <TData extends Record<string, unknown>>(props: ParseDataOptions<TData>): Promise<TData> => {
          const shown = shownOf(props);
          try {
            const parsed = await check(props);
            devProblems.delete(shown);
            publishNewsProblems([...devProblems.values()]);
            return parsed;
          } catch (error) {
            const problem = problemOf(shown, error);
            if (!collecting) {
              devProblems.set(shown, problem);
              publishNewsProblems([...devProblems.values()]);
              throw error;
            }
            collecting.set(shown, problem);
            failedIds.add(props.id);
            // Stored for now and deleted below: glob() must go on to the next file.
            return props.data;
          }
        },
      });
      for (const id of failedIds) context.store.delete(id);
      // Entries glob() took from the cache unchanged were never parsed above: check them too.
      for (const entry of context.store.values()) {
        const shown = entry.filePath ?? entry.id;
        const image = missingImage(shown, entry.data['imageUrl'], context.config.publicDir);
        if (image && !collecting.has(shown)) {
          collecting.set(shown, image);
          context.store.delete(entry.id);
        }
      }
      const problems = [...collecting.values()];
      collecting = undefined;
      for (const problem of problems) devProblems.set(problem.file, problem);
      publishNewsProblems(problems);
      if (problems.length === 0) return;
      // `astro dev` watches the files: keep serving, show the problems (terminal and browser).
      if (context.watcher) {
        for (const problem of problems) context.logger.error(`${problem.file}: ${problem.message}`);
        return;
      }
      throw newsProblemsError(problems);
    },
  };
}
