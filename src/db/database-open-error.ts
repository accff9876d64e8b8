/**
 * The one error of opening a database (src/db/open-migrated-db.ts), apart from it so that
 * src/app/exit-codes.ts, which every command imports to classify a failure, can recognise it
 * without loading kysely.
 */

/** The database could not be opened or migrated; `cause` holds the driver's error. */
export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
  readonly target: string;
  constructor(target: string, cause: unknown) {
    super(`opening and migrating ${target} failed: ${reason(cause)}`, { cause });
    this.target = target;
  }
}

/**
 * A driver error as one line. pg's connect failure on a host with several addresses is an
 * AggregateError with an empty message; its parts carry the reasons.
 */
function reason(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') return [...new Set(error.errors.map(reason))].join('; ');
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
