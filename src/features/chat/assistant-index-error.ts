/**
 * Why the assistant's index file (assistant-index.ts) cannot be used; the server stops with one
 * line naming the fix.
 */
export class AssistantIndexError extends Error {
  readonly code = 'ASSISTANT_INDEX_UNUSABLE';
  readonly file: string;
  /** As StaticManifestError's: no file at all (a build from before the index, or an interrupted one), or an unreadable one. */
  readonly reason: 'missing' | 'malformed';
  constructor(file: string, message: string, options?: ErrorOptions & { reason?: 'missing' | 'malformed' }) {
    super(message, options);
    this.name = 'AssistantIndexError';
    this.file = file;
    this.reason = options?.reason ?? 'malformed';
  }
}
