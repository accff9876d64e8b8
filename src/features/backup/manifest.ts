/**
 * The manifest written beside every backup (`FILE.manifest.json`): what the backup holds (engine,
 * migrations applied, rows per table) and its SHA-256 and size, so that `backup:verify` tells a
 * flipped byte or a truncated copy from a good one before anyone restores it. A checksum cannot
 * live inside the file it covers, hence beside; copy both files together.
 */
import { createHash } from 'node:crypto';
import { createReadStream, constants } from 'node:fs';
import { open, readFile, rename } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';

export const Manifest = z.object({
  format: z.literal('adtech-site-backup'),
  version: z.literal(1),
  engine: z.enum(['sqlite', 'postgres']),
  /** When the backup's snapshot was taken (RFC 3339). */
  takenAt: z.iso.datetime(),
  /** The backup file's name (the manifest sits beside it). */
  file: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Names of the migrations applied in the backed-up database, in order. */
  migrations: z.array(z.string()),
  /** Rows per table at the snapshot. */
  tables: z.record(z.string(), z.number().int().nonnegative()),
  /** PostgreSQL: the server's and pg_dump's versions. */
  serverVersion: z.string().optional(),
  toolVersion: z.string().optional(),
});
export type Manifest = z.infer<typeof Manifest>;

export const manifestPath = (file: string) => `${file}.manifest.json`;

/** SHA-256 (hex) and size of a file, streamed. */
export async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path), async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      hash.update(chunk);
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** fsync a file (or, with O_RDONLY on a directory, the directory's entries). */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Write `text` to `path` durably: a temporary file, fsynced, renamed into place, the directory fsynced. */
export async function writeDurably(path: string, text: string): Promise<void> {
  const partial = `${path}.${process.pid}.partial`;
  const handle = await open(partial, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, path);
  await syncPath(dirname(path));
}

export async function writeManifest(file: string, manifest: Omit<Manifest, 'format' | 'version' | 'file'>): Promise<Manifest> {
  const full: Manifest = { format: 'adtech-site-backup', version: 1, file: basename(file), ...manifest };
  await writeDurably(manifestPath(file), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}

/** The manifest beside `file`, or a sentence saying why there is none usable. */
export async function readManifest(file: string): Promise<Manifest | { problem: string }> {
  let text: string;
  try {
    text = await readFile(manifestPath(file), 'utf8');
  } catch {
    return { problem: `no manifest ${basename(manifestPath(file))} beside it (copy it with the backup): its checksum cannot be checked` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: `its manifest ${basename(manifestPath(file))} is not valid JSON (damaged?)` };
  }
  const manifest = Manifest.safeParse(parsed);
  return manifest.success ? manifest.data : { problem: `its manifest ${basename(manifestPath(file))} is not a backup manifest of this site` };
}
