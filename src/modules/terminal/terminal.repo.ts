/** SQL of the virtual terminal: its one-time card forms. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';

export interface TerminalFormsTable {
  token_hash: string;
  merchant_id: string;
  env: Env;
  order_id: string;
  user_id: string;
  method: 'MAIL' | 'PHONE';
  description: string;
  language: string;
  expires_at: Date;
  used_at: Date | null;
  outcome: string | null;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    terminal_forms: TerminalFormsTable;
  }
}

export async function insertForm(db: Executor, row: TerminalFormsTable): Promise<void> {
  await db.insertInto('terminal_forms').values(row).execute();
}

/** The form of a token, whatever its state. */
export async function formByHash(db: Executor, tokenHash: string): Promise<TerminalFormsTable | undefined> {
  return db.selectFrom('terminal_forms').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Claims a form for its one payment: false when it was used already or has expired. */
export async function claimForm(db: Executor, tokenHash: string, now: Date): Promise<boolean> {
  const r = await db
    .updateTable('terminal_forms')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('token_hash')
    .executeTakeFirst();
  return r !== undefined;
}

export async function setOutcome(db: Executor, tokenHash: string, outcome: string): Promise<void> {
  await db.updateTable('terminal_forms').set({ outcome }).where('token_hash', '=', tokenHash).execute();
}

/** Forgets forms that expired before `before`. */
export async function purge(db: Executor, before: Date): Promise<number> {
  const r = await sql`delete from terminal_forms where expires_at < ${before}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
