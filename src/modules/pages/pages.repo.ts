/** SQL of the pages: the one-time form submissions. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

export interface PageSubmissionsTable {
  nonce: string;
  order_id: string;
  location: string | null;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    page_submissions: PageSubmissionsTable;
  }
}

/** Claims a form nonce; false when it was already used (a repeated post). */
export async function claim(db: Executor, nonce: string, orderId: string, now: Date): Promise<boolean> {
  const r = await db
    .insertInto('page_submissions')
    .values({ nonce, order_id: orderId, location: null, created_at: now })
    .onConflict((oc) => oc.column('nonce').doNothing())
    .returning('nonce')
    .executeTakeFirst();
  return r !== undefined;
}

/** Records where the first post of a form sent the customer. */
export async function setLocation(db: Executor, nonce: string, location: string): Promise<void> {
  await db.updateTable('page_submissions').set({ location }).where('nonce', '=', nonce).execute();
}

export async function location(db: Executor, nonce: string): Promise<string | null | undefined> {
  const r = await db.selectFrom('page_submissions').select('location').where('nonce', '=', nonce).executeTakeFirst();
  return r ? r.location : undefined;
}

/** Forgets used nonces older than `before` (their forms have expired anyway). */
export async function purge(db: Executor, before: Date): Promise<number> {
  const r = await sql`delete from page_submissions where created_at < ${before}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
