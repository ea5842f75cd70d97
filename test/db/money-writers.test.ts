/**
 * The two writers of the money path carry out the same plan the same way: for random orders (seeded),
 * the plan of a payment's step 1 (plan-payment.ts), the plan of a follow-up's step 1 (refund, confirmation, cancellation) and the plan of its settle are
 * fed to the optimistic writer (one statement guarded by the row version) and to the locked writer (row
 * lock, ordinary statements), each in a transaction rolled back afterwards, and the order's and its
 * transactions' rows they leave are compared field by field. A settle plan the optimistic writer does
 * not take (a refusal, a failure) must leave the rows untouched there.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/platform/db/database.js';
import { PaymentsCore } from '../../src/modules/payments/core.js';
import * as fast from '../../src/modules/payments/fast.repo.js';
import * as repo from '../../src/modules/payments/payments.repo.js';
import { checkCancellation, checkConfirmation, checkRefund, type RetryOperation } from '../../src/modules/payments/payments.domain.js';
import { amountsOf, unwrap } from '../../src/modules/payments/operations/input.js';
import { planFollowUp, type FollowUpPlan } from '../../src/modules/payments/money/plan-follow-up.js';
import { planSettle, type SettlePlan } from '../../src/modules/payments/money/plan-settle.js';
import { writeFollowUpLocked, writePaymentLocked, writeSettleLocked } from '../../src/modules/payments/money/write-locked.js';
import { writeFollowUpOptimistic, writePaymentOptimistic, writeSettleOptimistic } from '../../src/modules/payments/money/write-optimistic.js';
import { guardPayment, optimisticTakes, planPayment } from '../../src/modules/payments/money/plan-payment.js';
import { presentSource } from '../../src/modules/sources/index.js';
import type { PayInput } from '../../src/modules/payments/core.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, storeCard } from '../helpers/payments.js';
import { rng, useTestSeed } from '../helpers/seed.js';
import { testDbKind } from '../helpers/db.js';

useTestSeed(import.meta.url);
const random = rng();
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

let t: TestApp;
let m: TestMerchant;
let card: string;
let core: PaymentsCore;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ isPci: true });
  card = await storeCard(t, m);
  core = new PaymentsCore(t.p, { merchants: t.m.merchants, sources: t.m.sources, processors: t.m.processors, events: t.m.events });
});
afterAll(async () => t?.close());

const ROLLBACK = Symbol('rollback');

/** Every column but `seq` (taken from a sequence, which a rollback does not give back). */
const fields = ({ seq: _s, ...rest }: Record<string, unknown>) => rest;

async function rows(db: Executor, orderId: string) {
  const order = fields((await sql<Record<string, unknown>>`select * from orders where id = ${orderId}::uuid`.execute(db)).rows[0]);
  const txs = (await sql<Record<string, unknown>>`select * from transactions where order_id = ${orderId}::uuid order by id`.execute(db)).rows.map(fields);
  return { order, txs };
}

/** Runs `write` in a transaction, reads the order's rows there, and rolls it all back. */
async function trial(orderId: string, write: (trx: Executor) => Promise<unknown>): Promise<{ written: unknown; after: Awaited<ReturnType<typeof rows>> }> {
  let out!: { written: unknown; after: Awaited<ReturnType<typeof rows>> };
  await t.p.database
    .transaction(async (trx) => {
      const written = await write(trx);
      out = { written, after: await rows(trx, orderId) };
      throw ROLLBACK;
    })
    .catch((err) => {
      if (err !== ROLLBACK) throw err;
    });
  return out;
}

/** A random paid order: AUTHORIZATION (maybe partly refunded already) or DEFERRED, with url_post or not. */
async function randomOrder(): Promise<{ id: string; op: RetryOperation; decide: (o: repo.LockedOrder) => number }> {
  const deferred = random() < 0.4;
  const amount = between(100, 20_000);
  const body: Record<string, unknown> = { amount, operative: deferred ? 'DEFERRED' : 'AUTHORIZATION' };
  if (random() < 0.5) body.url_post = 'https://merchant.example/notify';
  const order = await createOrder(m, body);
  const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
  expect(paid.status, paid.raw).toBe(200);
  if (deferred) {
    const op = pick(['CONFIRMATION', 'CANCELLATION'] as const);
    return { id: order.uuid, op, decide: (o) => unwrap(op === 'CONFIRMATION' ? checkConfirmation(amountsOf(o), null, false) : checkCancellation(amountsOf(o))) };
  }
  if (random() < 0.4) {
    const first = await m.api.post('/payment/refund', { order_uuid: order.uuid, amount: between(1, amount - 1) });
    expect(first.status, first.raw).toBe(200);
  }
  const refundAmount = random() < 0.3 ? null : 1;
  return { id: order.uuid, op: 'REFUND', decide: (o) => unwrap(checkRefund(amountsOf(o), refundAmount ?? null)) };
}

async function planStep1(id: string, op: RetryOperation, decide: (o: repo.LockedOrder) => number) {
  const read = (await fast.readOrderForFollowUp(t.p.database.db, id, m.client_uuid, op))!;
  const { version, ...o } = read;
  const plan = planFollowUp(o, op, decide, undefined, { txId: randomUUID(), now: core.now(o), realNow: t.p.clock.now() });
  if ('error' in plan) throw plan.error;
  const { retry: _r, payment: _p, ...order } = o;
  return { version, order: order as repo.LockedOrder, plan: plan as FollowUpPlan };
}

describe(`the two writers of the money path leave the same rows (${testDbKind()})`, () => {
  it('step 1 and the settle of random follow-ups, the same plans through both writers', async () => {
    for (let i = 0; i < 10; i++) {
      const { id, op, decide } = await randomOrder();
      const before = await rows(t.p.database.db, id);

      // step 1: the same plan through both writers
      const s1 = await planStep1(id, op, decide);
      const optimistic = await trial(id, (trx) => writeFollowUpOptimistic(trx, s1.order, s1.version, s1.plan, {}));
      expect(optimistic.written, `step 1 of ${op} not applied`).not.toBeNull();
      const locked = await trial(id, async (trx) => {
        const o = (await repo.lockOrderForFollowUp(trx, id, m.client_uuid, op))!;
        await writeFollowUpLocked(trx as never, o, s1.plan);
      });
      expect(optimistic.after).toEqual(locked.after);
      expect(optimistic.after.txs).toHaveLength(before.txs.length + 1);
      expect(optimistic.after.order).not.toEqual(before.order);

      // step 1 written for real (optimistic), then the settle's plan through both writers
      const started = (await writeFollowUpOptimistic(t.p.database.db, s1.order, s1.version, s1.plan, {}))!;
      const pending = await rows(t.p.database.db, id);
      const outcome = pick(['APPROVED', 'APPROVED', 'DECLINED', 'FAILED'] as const);
      const result =
        outcome === 'APPROVED'
          ? ({ outcome, authorization: `A${between(1000, 9999)}`, processorId: `P-${i}`, amount: Number(s1.plan.tx.amount) } as const)
          : outcome === 'DECLINED'
            ? ({ outcome, error: 'DENIED', details: 'refused', processorId: null } as const)
            : ({ outcome, error: 'PROCESSOR_ERROR', details: 'down' } as const);
      const locked3 = (await repo.lockOrderWithTx(t.p.database.db, id, s1.plan.tx.id))!;
      const now = core.now(locked3.order);
      const plan: SettlePlan = planSettle(locked3.order, locked3.tx, locked3.retry, result as never, {}, t.p.config.publicUrl, now);
      const viaOptimistic = await trial(id, (trx) => writeSettleOptimistic(core, trx, s1.plan.after, started, s1.plan.tx.id, plan, now));
      const viaLocked = await trial(id, async (trx) => {
        const l = (await repo.lockOrderWithTx(trx, id, s1.plan.tx.id))!;
        return writeSettleLocked(core, trx as never, l.order, l.tx, plan, now);
      });
      if (outcome === 'APPROVED') {
        expect(viaOptimistic.written, `settle of ${op} not applied`).not.toBeNull();
        expect(viaOptimistic.after).toEqual(viaLocked.after);
        expect((viaOptimistic.written as { order: unknown }).order).toEqual((viaLocked.written as { order: unknown }).order);
      } else {
        // not a plan the optimistic writer takes: it writes nothing, the locked one settles
        expect(viaOptimistic.written).toBeNull();
        expect(viaOptimistic.after).toEqual(pending);
        expect(viaLocked.after).not.toEqual(pending);
      }
      // the order is left as step 1 made it: settle it for good with the locked writer
      await t.p.database.transaction(async (trx) => {
        const l = (await repo.lockOrderWithTx(trx, id, s1.plan.tx.id))!;
        await writeSettleLocked(core, trx, l.order, l.tx, plan, now);
      });
    }
  });
});

describe(`the two writers leave the same rows for a payment's step 1 (${testDbKind()})`, () => {
  it('random unpaid orders paid with a stored card: the same plan through both writers', async () => {
    let taken = 0;
    for (let i = 0; i < 12; i++) {
      const body: Record<string, unknown> = { amount: between(100, 20_000), operative: pick(['AUTHORIZATION', 'DEFERRED'] as const) };
      if (random() < 0.5) body.url_post = 'https://merchant.example/notify';
      if (random() < 0.3) body.secure = true;
      const order = await createOrder(m, body);
      const before = await rows(t.p.database.db, order.uuid);
      const read = (await fast.readOrder(t.p.database.db, order.uuid, m.client_uuid))!;
      const { version, card: _c, ...o } = read as typeof read & { version: string };
      const input: PayInput = { channel: pick(['ECOMMERCE', 'MOTO', 'MIT'] as const), card: { kind: 'source', sourceUuid: card }, customerIp: random() < 0.5 ? '198.51.100.7' : null };
      const guard = guardPayment(o as never, input);
      if ('error' in guard) throw guard.error;
      const loaded = await t.m.sources.loadCardForPayment(t.p.database.db, { merchantId: m.client_uuid, env: 'sandbox' }, card);
      const paying = {
        data: { pan: loaded.pan, expiryMonth: loaded.expMonth, expiryYear: loaded.expYear, cvv: null, holder: loaded.holder },
        sourceId: loaded.sourceId, sourceJson: JSON.stringify(presentSource(loaded.row)), saved: loaded.row.is_saved ? { firstPaidAt: loaded.row.first_paid_at } : null,
      };
      const now = core.now(o as never);
      const plan = planPayment({ o: o as never, input, guard, waitTx: null, card: paying, risk: null, dcc: { record: null, data: null }, txId: randomUUID(), now, realNow: t.p.clock.now(), publicUrl: t.p.config.publicUrl });
      if ('error' in plan) throw plan.error;
      // a secure e-commerce order goes to 3-D Secure: a plan only the locked writer writes
      expect(plan.kind).toBe(body.secure && input.channel === 'ECOMMERCE' ? '3ds' : 'call');
      const locked = await trial(order.uuid, async (trx) => {
        const l = (await repo.lockOrder(trx, order.uuid, m.client_uuid))!;
        return writePaymentLocked(core, trx as never, l, plan, {} as never);
      });
      expect(locked.after.txs).toHaveLength(before.txs.length + 1);
      expect(locked.after.order).not.toEqual(before.order);
      if (!optimisticTakes(plan, o as never, input)) {
        expect(plan.kind).toBe('3ds');
        continue;
      }
      taken++;
      const optimistic = await trial(order.uuid, (trx) => writePaymentOptimistic(trx, o as never, version, plan, {}));
      expect(optimistic.written, 'step 1 of the payment not applied').not.toBeNull();
      expect(optimistic.after).toEqual(locked.after);
      // the order the plan says step 1 leaves is the row both wrote (bar the columns the plan does not carry)
      for (const k of ['status', 'paid', 'source_id', 'ip'] as const) expect(optimistic.after.order[k], k).toEqual(plan.after[k]);
      // a stale version: nothing written
      const stale = await trial(order.uuid, async (trx) => {
        await sql`update orders set updated_at = updated_at where id = ${order.uuid}::uuid`.execute(trx);
        return writePaymentOptimistic(trx, o as never, version, plan, {});
      });
      expect(stale.written).toBeNull();
      expect(stale.after.txs).toEqual(before.txs);
    }
    expect(taken).toBeGreaterThan(0);
  });
});
