/**
 * The `sellers` collection's loader: Astro's `file()` loader over content/sellers.json.
 *
 * `file()` expects an array of entries with `id`s or an object keyed by id, while a sellers.json
 * document is one object whose `sellers` are nested and whose rules span the whole file
 * (unique seller_id, top-level version). So the parser hands `file()` ONE entry, keyed by the
 * file's path, holding the whole document; the collection schema (`SellersFileSchema`)
 * validates it in one pass and its errors read `sellers → content/sellers.json`.
 *
 * `file()` logs a parser exception and carries on with an empty collection; a sellers.json that
 * is not JSON must fail the build instead, so the exception is kept and rethrown. It also only
 * logs "File not found" for a missing file and leaves the store as it was, which held the
 * document of the previous build when Astro's cache (node_modules/.astro) had one: that build
 * exited 0 and published the stale file. So the store is emptied before every load, and a
 * missing or unreadable file fails the load here, whatever the cache holds.
 */
import { existsSync } from 'node:fs';
import { AstroError } from 'astro/errors';
import { file, type Loader, type LoaderContext } from 'astro/loaders';
import { SELLERS_FILE } from './validate.ts';

export function sellersLoader(path: string = SELLERS_FILE): Loader {
  let failure: Error | undefined;
  const inner = file(path, {
    parser: (text) => {
      try {
        return { [path]: JSON.parse(text) as Record<string, unknown> };
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        throw failure;
      }
    },
  });
  return {
    name: 'sellers-loader',
    load: async (context: LoaderContext) => {
      failure = undefined;
      context.store.clear();
      if (!existsSync(new URL(path, context.config.root))) {
        throw new AstroError(`${path} not found: the build publishes it as /sellers.json and has no other copy`, 'Restore the file (git checkout content/sellers.json) or write one; see docs/editors.md, Adding a seller.');
      }
      await inner.load(context);
      // Set by the parser during `load` (TypeScript cannot see the callback assign it).
      const failed = failure as Error | undefined;
      if (failed) {
        throw new AstroError(`${path} is not valid JSON: ${failed.message}`, 'Check for a missing comma or quote near that position, or a trailing comma.');
      }
      if (!context.store.has(path)) {
        throw new AstroError(`${path} could not be loaded`, 'See the messages above; the file must exist and hold the sellers.json document.');
      }
    },
  };
}
