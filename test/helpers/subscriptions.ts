/**
 * What the subscriptions tests share (test/http/subscriptions*.test.ts): the app with its merchants and
 * notification receiver (one per test file, opened by `openSubscriptionsApp` in its beforeAll), and the
 * steps they take: the test clock, plans, reads.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { sql } from 'kysely';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { DELIVER_QUEUE } from '../../src/modules/events/index.js';
import { createTestApp, type TestApp, type TestMerchant } from './app.js';
import { startReceiver, type Receiver } from './receiver.js';

export interface SubscriptionsApp {
  t: TestApp;
  /** The merchant most tests use. */
  a: TestMerchant;
  /** Another merchant, who must not see `a`'s. */
  other: TestMerchant;
  /** Receives the products' notifications. */
  rx: Receiver;
}

let app: SubscriptionsApp | undefined;

export async function openSubscriptionsApp(): Promise<SubscriptionsApp> {
  const t = await createTestApp();
  const a = await t.merchant({ name: 'Gym Centro' });
  const other = await t.merchant();
  const rx = await startReceiver();
  app = { t, a, other, rx };
  return app;
}

export async function closeSubscriptionsApp(): Promise<void> {
  await app?.rx.close();
  await app?.t.close();
  app = undefined;
}

function opened(): SubscriptionsApp {
  if (!app) throw new Error('openSubscriptionsApp() first (in beforeAll)');
  return app;
}

export const drain = () => opened().t.p.jobs.drain({ queues: [CHARGE_QUEUE, DELIVER_QUEUE] });

export async function ok(p: Promise<{ status: number; raw: string; body: any }>) {
  const r = await p;
  expect(r.status, r.raw).toBe(200);
  return r.body;
}

export async function clockTo(m: TestMerchant, iso: string) {
  await ok(m.api.post('/test-clock', { advance_to: iso }));
  await drain();
}

export async function advanceDays(m: TestMerchant, days: number) {
  await ok(m.api.post('/test-clock', { advance_seconds: days * 86400 }));
  await drain();
}

let seq = 0;
/** A product (notifying the receiver) and a plan of it. */
export async function plan(m: TestMerchant, fields: Record<string, unknown> = {}) {
  const n = ++seq;
  await ok(m.api.post('/subscriptions/product', { name: `Product ${n}`, external_id: `prod-${n}`, notification_url: `${opened().rx.url}/p${n}` }));
  const body = await ok(m.api.post('/subscriptions/plan', { name: `Plan ${n}`, external_id: `plan-${n}`, product: `prod-${n}`, amount: 1000 + n, interval: 1, interval_type: 'MONTHLY', ...fields }));
  return { product: `prod-${n}`, plan: body.plan.external_id as string, amount: 1000 + n, path: `/p${n}` };
}

export async function subscription(m: TestMerchant, id: string) {
  return (await ok(m.api.get(`/subscriptions/subscription/${id}`))).subscription;
}

export async function ordersOfCustomer(customer: string) {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from orders where customer_ext_id = ${customer}`.execute(opened().t.p.database.db);
  return rows[0].n;
}

export function verifySignatureHeader(header: string, raw: string, signature: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  return createHmac('sha256', signature).update(`${m[1]}.${raw}`).digest('hex') === m[2];
}
