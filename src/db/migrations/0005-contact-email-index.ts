import { sql, type Kysely } from 'kysely';

/**
 * `npm run contact:erase -- --email` finds one person's submissions by lower(work_email) (the
 * match is case-insensitive): an index on that expression keeps it a lookup rather than a scan of
 * every submission. Both engines index expressions; the retention purge uses the created_at index
 * of 0001.
 */
export function contactEmailIndex() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('contact_submission_email_lower').on('contact_submission').expression(sql`lower(work_email)`).execute();
    },
  };
}
