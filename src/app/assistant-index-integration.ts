/**
 * Moves the assistant's index, which `astro build` renders into the client folder like any
 * prerendered endpoint (src/pages/assistant-index.sqlite.ts), into the server folder: the edge
 * serves dist/client as public files, and the index is for the server alone (src/app/app.ts
 * opens it at start-up). A build without the index fails here rather than at the first start.
 * Listed first among the integrations, so that no later `astro:build:done` hook (compression,
 * manifests of the public files) sees the file in dist/client.
 */
import { rename, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import { ASSISTANT_INDEX_FILE } from '../features/chat/index-writer.ts';
import { afterBuild } from '../lib/after-build.ts';

export function assistantIndex(): AstroIntegration {
  return afterBuild('adtech:assistant-index', async ({ client, server }, logger) => {
    const from = fileURLToPath(new URL(ASSISTANT_INDEX_FILE, client));
    const to = fileURLToPath(new URL(ASSISTANT_INDEX_FILE, server));
    await rename(from, to);
    logger.info(`${ASSISTANT_INDEX_FILE}: ${((await stat(to)).size / 1024).toFixed(0)} KiB, moved to ${to}`);
  });
}
