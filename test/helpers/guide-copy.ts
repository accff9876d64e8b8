/**
 * A guide's copy of an example file and the file itself, for the tests that keep the two equal
 * (examples/*: the guide shows the code below the file's header comment, as it is).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** The first ```lang block after `heading` in a Markdown file of the repository. */
export function guideBlock(file: string, heading: string, lang: string): string | undefined {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(heading);
  return at < 0 ? undefined : new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at))?.[1];
}

/** A repository file without its leading /** … *\/ comment. */
export function belowHeaderComment(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/^\/\*\*[\s\S]*?\*\/\n/, '');
}
