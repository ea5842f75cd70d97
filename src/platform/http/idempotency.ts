/**
 * `Idempotency-Key` on POST (decisions §9). The first response for a key is stored for 24 hours and
 * replayed for the same key, path and body; the same key with another path or body is 422; while the first request
 * is still running, 409. Keys are scoped to the merchant (and so to the environment).
 *
 * Server errors (5xx) and rate-limit answers are not stored: the operation may not have happened and
 * the client should be able to retry with the same key. A request that died mid-flight frees its key
 * when its lock expires. Except once a money step of the request committed its first write (a PENDING
 * transaction, the processor about to be called): the key is then `committed` and never run again; a
 * retry whose answer was lost meets 409 and reads the order, which the reconciler settles.
 */
import { randomUUID } from 'node:crypto';
import { sql, type ColumnType, type RawBuilder } from 'kysely';
import type { Database, Executor } from '../db/database.js';
import { ApiError, badRequest, conflict, unprocessable } from '../errors/errors.js';

export interface IdempotencyKeysTable {
  merchant_id: string;
  key: string;
  request_fingerprint: string;
  status: 'in_flight' | 'committed' | 'done';
  response_status: number | null;
  response_body: string | null;
  locked_until: Date;
  /** The order a committed request acted on (a retry whose answer was lost is told which to read). */
  order_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The attempt that holds the key: only it records the answer, releases it or marks it committed. */
  attempt: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

declare module '../db/schema.js' {
  interface DB {
    idempotency_keys: IdempotencyKeysTable;
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const LOCK_MS = 60_000;

export type IdempotencyOutcome =
  /** `attempt`: this request's own mark on the key's row (see `finish`, `committedSql`). */
  | { kind: 'proceed'; attempt: string }
  | { kind: 'replay'; status: number; body: string };

export class IdempotencyStore {
  /**
   * `lockMs`: how long a key stays held by a request in flight before a retry may take it over (its
   * request died without answering): above the longest a request may take (the processor's deadline
   * included). PAYGATE_IDEMPOTENCY_LOCK_MS; 60 s by default.
   */
  constructor(
    private readonly database: Database,
    private readonly now: () => Date,
    private readonly lockMs: number = LOCK_MS,
  ) {}

  /** Starts (or resolves) the request identified by (merchant, key) with the given body fingerprint. */
  async begin(merchantId: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    if (key.length === 0 || key.length > 255) throw badRequest('Idempotency-Key must be 1 to 255 characters');
    const now = this.now();
    const lockedUntil = new Date(now.getTime() + this.lockMs);
    const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
    const attempt = randomUUID();
    // Insert, or take over a row that expired (24 h) or whose request died in flight.
    const { rows } = await sql<{ inserted: boolean }>`
      insert into idempotency_keys (merchant_id, key, request_fingerprint, status, locked_until, created_at, attempt)
      values (${merchantId}, ${key}, ${fingerprint}, 'in_flight', ${lockedUntil}, ${now}, ${attempt}::uuid)
      on conflict (merchant_id, key) do update
        set request_fingerprint = excluded.request_fingerprint, status = 'in_flight',
            response_status = null, response_body = null, locked_until = excluded.locked_until,
            created_at = excluded.created_at, order_id = null, attempt = excluded.attempt
        where idempotency_keys.created_at < ${expiredBefore}
           or (idempotency_keys.status = 'in_flight' and idempotency_keys.locked_until < ${now}
               and idempotency_keys.request_fingerprint = excluded.request_fingerprint)
      returning true as inserted`.execute(this.database.db);
    if (rows.length > 0) return { kind: 'proceed', attempt };

    const existing = await this.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!existing) return this.begin(merchantId, key, fingerprint); // deleted meanwhile (5xx): start again
    if (existing.request_fingerprint !== fingerprint) {
      throw unprocessable('This Idempotency-Key was already used with a different request (another path or body); use a new key for every distinct request');
    }
    if (existing.status === 'in_flight') {
      throw conflict('A request with this Idempotency-Key is still being processed');
    }
    if (existing.status === 'committed') {
      // it changed something (a payment or refund started) and its answer was lost (the database or the
      // gateway failed meanwhile): never done twice; its outcome is on the resource
      const lost = 'The request with this Idempotency-Key was carried out but its answer was lost (the database or the gateway node failed meanwhile); it is not run again';
      if (existing.order_id) throw new ApiError(409, `${lost}: read the order ${existing.order_id} to see its outcome`, { extra: { order_uuid: existing.order_id } });
      throw conflict(`${lost}: read the order to see its outcome`);
    }
    return { kind: 'replay', status: existing.response_status ?? 200, body: existing.response_body ?? '' };
  }

  /**
   * A statement (a CTE of the first commit of a money step) recording that the request of `key` has
   * changed something: from then on the key is never run again, even when the request dies before it
   * answers (a 5xx answer no longer frees it, nor does its lock lapsing). `when` ties it to the step's
   * own write (e.g. \`exists (select 1 from t)\`). Nothing when the request sent no key.
   */
  static committedSql(merchantId: string, key: string | null | undefined, when: RawBuilder<unknown> = sql`true`, orderId: string | null = null, attempt: string | null = null): RawBuilder<unknown> | null {
    if (!key) return null;
    return sql`update idempotency_keys set status = 'committed', order_id = ${orderId}::uuid
      where merchant_id = ${merchantId}::uuid and key = ${key}::text and status = 'in_flight'
        and (${attempt}::uuid is null or attempt = ${attempt}::uuid) and ${when}`;
  }

  /**
   * Marks the request's key committed in `trx`, the transaction of the request's first money write (a
   * PENDING transaction, a batch of charges, a queued refund): from its commit on, the request is never
   * carried out again under that key, whatever happens to its answer. `orderId`: the order it acted on,
   * named to a retry. Nothing when it sent no key.
   */
  static async commit(trx: Executor, ctx: { merchant: { id: string }; idempotencyKey?: string | null; idempotencyAttempt?: string | null }, orderId: string | null = null): Promise<void> {
    const committed = IdempotencyStore.committedSql(ctx.merchant.id, ctx.idempotencyKey, undefined, orderId, ctx.idempotencyAttempt ?? null);
    if (committed) await committed.execute(trx);
  }

  /**
   * Records the response of a request started with `begin`, on the key's row while it is still this
   * attempt's (`attempt`, from `begin`): a release retried in the background must never free the row of a
   * later attempt under the same key.
   */
  async finish(merchantId: string, key: string, status: number, body: string, attempt: string | null = null): Promise<void> {
    if (status >= 500 || status === 429 || status === 409) {
      let del = this.database.db.deleteFrom('idempotency_keys').where('merchant_id', '=', merchantId).where('key', '=', key).where('status', '=', 'in_flight');
      if (attempt) del = del.where('attempt', '=', attempt);
      await del.execute();
      return;
    }
    let upd = this.database.db.updateTable('idempotency_keys').set({ status: 'done', response_status: status, response_body: body }).where('merchant_id', '=', merchantId).where('key', '=', key);
    if (attempt) upd = upd.where('attempt', '=', attempt);
    await upd.execute();
  }

  /**
   * `finish` again, in the background, after it failed because the database went away (a failover
   * while the answer was being sent): every half second to 5 s until it is written or the key's lock
   * lapses. Without it a retry of the request would meet 409 (in flight) until the lock lapses, and the
   * answer of a request that did its work would not be replayed.
   */
  finishLater(merchantId: string, key: string, status: number, body: string, onGiveUp?: (err: unknown) => void, attempt: string | null = null): void {
    const deadline = Date.now() + this.lockMs;
    let delay = 500;
    const again = () => {
      this.finish(merchantId, key, status, body, attempt).catch((err) => {
        if (Date.now() + delay >= deadline) return onGiveUp?.(err);
        setTimeout(again, delay).unref();
        delay = Math.min(5000, delay * 2);
      });
    };
    setTimeout(again, delay).unref();
  }

  /** Deletes records past their 24 hours. */
  async purge(): Promise<number> {
    const res = await this.database.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', new Date(this.now().getTime() - IDEMPOTENCY_TTL_MS))
      .executeTakeFirst();
    return Number(res.numDeletedRows ?? 0);
  }
}
