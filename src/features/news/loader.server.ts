/**
 * The `news` collection's loader: Astro's `glob()` over content/news/*.md, with three checks
 * that the schema alone cannot make, each failing the build with the file named:
 * - YAML timestamps reach the schema as written (see frontmatter.ts), so a `createdAt` without a
 *   timezone is refused instead of being read as UTC;
 * - the file name is a valid article id, because it becomes /news/<id>/ and the API's `id`, and
 *   not one the news list's own pages need (schema.ts `articleIdProblem`);
 * - an `imageUrl` pointing into public/ names a file that exists.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AstroError } from 'astro/errors';
import { glob, type Loader, type LoaderContext } from 'astro/loaders';
import { extractRawFrontmatter, restoreYamlTimestamps } from './frontmatter.ts';
import { articleIdProblem } from './schema.ts';

export const NEWS_DIR = './content/news';

export function newsLoader(base: string = NEWS_DIR): Loader {
  const inner = glob({ pattern: '*.md', base });
  return {
    name: 'news-loader',
    load: (context: LoaderContext) =>
      inner.load({
        ...context,
        parseData: async (props) => {
          const filePath = props.filePath ?? '';
          const shown = filePath ? relative(fileURLToPath(context.config.root), filePath) : props.id;
          const idProblem = articleIdProblem(props.id);
          if (idProblem) {
            throw new AstroError(`${shown}: ${idProblem}`, 'The file name is the article id and its URL, /news/<id>/. Rename the file.');
          }
          const raw = filePath ? extractRawFrontmatter(await readFile(filePath, 'utf8')) : '';
          const data = restoreYamlTimestamps(props.data, raw) as typeof props.data;
          const parsed = await context.parseData({ ...props, data });
          const imageUrl = (parsed as { imageUrl?: unknown }).imageUrl;
          if (typeof imageUrl === 'string' && imageUrl.startsWith('/')) {
            const path = decodeURIComponent(imageUrl.split(/[?#]/)[0] ?? imageUrl);
            if (!existsSync(new URL(`.${path}`, context.config.publicDir))) {
              throw new AstroError(
                `${shown}: imageUrl "${imageUrl}" does not exist: no file public${path}`,
                'Put the image under public/ (e.g. public/images/news/) or fix the path.',
              );
            }
          }
          return parsed;
        },
      }),
  };
}
