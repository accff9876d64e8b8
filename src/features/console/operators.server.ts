/**
 * Operators and their passkeys. An operator exists from the enrolment that spent their invite;
 * removing one (`admin:sessions -- --remove-operator ID`) deletes their passkeys and sessions
 * with them, and a new invite is the way back in.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Db = Kysely<Database>;

export interface StoredCredential {
  id: string;
  operatorId: number;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
}

export interface Operator {
  id: number;
  name: string;
  createdAt: number;
  passkeys: number;
}

export async function addOperator(db: Db, name: string, now: number): Promise<number> {
  const row = await db.insertInto('console_operator').values({ name, created_at: now }).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function addCredential(db: Db, credential: StoredCredential, now: number): Promise<void> {
  await db
    .insertInto('console_credential')
    .values({
      id: credential.id,
      operator_id: credential.operatorId,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports.join(','),
      created_at: now,
      last_used_at: null,
    })
    .execute();
}

export async function findCredential(db: Db, id: string): Promise<StoredCredential | undefined> {
  const row = await db.selectFrom('console_credential').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    operatorId: Number(row.operator_id),
    publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')) as Uint8Array<ArrayBuffer>,
    counter: Number(row.counter),
    transports: row.transports === '' ? [] : row.transports.split(','),
  };
}

/** After a verified sign-in: the authenticator's new counter (WebAuthn section 6.1.1) and the time. */
export async function credentialUsed(db: Db, id: string, counter: number, now: number): Promise<void> {
  await db.updateTable('console_credential').set({ counter, last_used_at: now }).where('id', '=', id).execute();
}

export async function operatorName(db: Db, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('console_operator').select('name').where('id', '=', id).executeTakeFirst();
  return row?.name;
}

export async function listOperators(db: Db): Promise<Operator[]> {
  const rows = await db
    .selectFrom('console_operator as o')
    .leftJoin('console_credential as c', 'c.operator_id', 'o.id')
    .select(['o.id', 'o.name', 'o.created_at', (eb) => eb.fn.count<number>('c.id').as('passkeys')])
    .groupBy(['o.id', 'o.name', 'o.created_at'])
    .orderBy('o.id')
    .execute();
  return rows.map((row) => ({ id: Number(row.id), name: row.name, createdAt: Number(row.created_at), passkeys: Number(row.passkeys) }));
}

/** Remove an operator, their passkeys and sessions; false when there is no such operator. */
export async function removeOperator(db: Db, id: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await tx.deleteFrom('console_session').where('operator_id', '=', id).execute();
    await tx.deleteFrom('console_credential').where('operator_id', '=', id).execute();
    const result = await tx.deleteFrom('console_operator').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  });
}
