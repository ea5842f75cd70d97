/**
 * Per-service behaviour of the sandbox simulator through the API (PUT/GET/DELETE
 * /service/{uuid}/sandbox-behaviour): set, read, reset, validation naming the field, another merchant's
 * service and production keys refused; and end to end: two sandbox services of one merchant, one
 * approving nothing of a BIN range, a payment on each (B10); an outage `refuse` gives the not-sent
 * UNKNOWN (without a fallback the transaction stays PENDING until the reconciler settles it as not
 * done). With a routing profile, the decline and the refused connection cascade to the fallback, a
 * timeout does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
});
afterAll(async () => t?.close());

const path = (service: string) => `/service/${service}/sandbox-behaviour`;
const VISA_RANGE = { bin_from: '400000', bin_to: '499999' };

/** A second enabled sandbox service of `m` (its own terminal). */
async function secondService(m: TestMerchant, name: string): Promise<string> {
  const term = await m.api.post('/terminal', {
    currency_code: 'EUR', type: 'REDSYSPSD2', description: `${name} terminal`,
    credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'qwertyasdf0123456789', terminal_secure: '1', terminal_not_secure: '2' },
  });
  expect(term.status, term.raw).toBe(200);
  const svc = await m.api.post('/service', { name, type: 'REDSYSPSD2', terminal_uuid: term.body.terminal.uuid });
  expect(svc.status, svc.raw).toBe(200);
  return svc.body.service.uuid as string;
}

/** Pays a new order on `service` with a stored card (B10); answers the order. */
async function payOn(m: TestMerchant, service: string, pan: string) {
  const order = await createOrder(m, { service });
  const card = await storeCard(t, m, pan);
  const r = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string; status: string; transactions: Array<{ uuid: string; status: string; error: string; error_details?: string | null; [k: string]: unknown }> };
}

describe('the sandbox behaviour API', () => {
  it('reads the defaults, sets, reads, replaces and resets', async () => {
    const svc = a.service_uuid!;
    const none = await a.api.get(path(svc));
    expect(none.status, none.raw).toBe(200);
    expect(none.body.sandbox_behaviour).toEqual({ service_uuid: svc, approval: [], soft_decline: 'DENIED', outage: 'none', latency_ms: 0, updated: null });

    const set = await a.api.put(path(svc), { approval: [{ ...VISA_RANGE, approve_rate: 0.6 }, { bin_from: '510000', bin_to: '559999', approve_rate: 0.95 }], soft_decline: 'PROCESSOR_ERROR', latency_ms: 0 });
    expect(set.status, set.raw).toBe(200);
    expect(set.body.sandbox_behaviour).toMatchObject({
      service_uuid: svc,
      approval: [{ ...VISA_RANGE, approve_rate: 0.6 }, { bin_from: '510000', bin_to: '559999', approve_rate: 0.95 }],
      soft_decline: 'PROCESSOR_ERROR',
      outage: 'none',
      latency_ms: 0,
      updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect((await a.api.get(path(svc))).body.sandbox_behaviour).toEqual(set.body.sandbox_behaviour);

    // PUT replaces: what is not given takes its default
    const replaced = await a.api.put(path(svc), { outage: 'timeout' });
    expect(replaced.status, replaced.raw).toBe(200);
    expect((await a.api.get(path(svc))).body.sandbox_behaviour).toMatchObject({ approval: [], soft_decline: 'DENIED', outage: 'timeout', latency_ms: 0 });

    const reset = await a.api.delete(path(svc), {});
    expect(reset.status, reset.raw).toBe(200);
    expect(reset.body.sandbox_behaviour).toEqual(none.body.sandbox_behaviour);
    expect((await a.api.get(path(svc))).body.sandbox_behaviour).toEqual(none.body.sandbox_behaviour);
    expect(await t.p.database.db.selectFrom('service_sandbox_behaviours').selectAll().where('service_id', '=', svc).execute()).toEqual([]);
    // resetting what is not set is fine
    expect((await a.api.delete(path(svc), {})).status).toBe(200);
  });

  it('refuses what is not a behaviour with a 400 naming the field, and keeps the one set', async () => {
    const svc = a.service_uuid!;
    const kept = await a.api.put(path(svc), { approval: [{ ...VISA_RANGE, approve_rate: 0.5 }] });
    expect(kept.status).toBe(200);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ approval: [{ bin_from: '40000', bin_to: '499999', approve_rate: 0.5 }] }, /bin_from/],
      [{ approval: [{ bin_from: '400000', bin_to: '4999x9', approve_rate: 0.5 }] }, /bin_to/],
      [{ approval: [{ ...VISA_RANGE, approve_rate: 0.5 }, { bin_from: '500000', bin_to: '499999', approve_rate: 0.5 }] }, /approval\[1\]\.bin_to \(499999\) is below bin_from/],
      [{ approval: [{ ...VISA_RANGE, approve_rate: 1.5 }] }, /approve_rate/],
      [{ approval: [{ ...VISA_RANGE, approve_rate: -1 }] }, /approve_rate/],
      [{ approval: [{ ...VISA_RANGE }] }, /approve_rate/],
      [{ approval: Array.from({ length: 51 }, () => ({ ...VISA_RANGE, approve_rate: 1 })) }, /approval/],
      [{ soft_decline: 'INSUFFICIENT_FUNDS' }, /soft_decline/],
      [{ outage: 'down' }, /outage/],
      [{ latency_ms: 60_001 }, /latency_ms/],
      [{ latency_ms: -5 }, /latency_ms/],
    ];
    for (const [body, field] of cases) {
      const r = await a.api.put(path(svc), body);
      expect(r.status, `${JSON.stringify(body).slice(0, 120)}: ${r.raw}`).toBe(400);
      expect(r.body.details, JSON.stringify(body).slice(0, 120)).toMatch(field);
    }
    expect((await a.api.get(path(svc))).body.sandbox_behaviour).toEqual(kept.body.sandbox_behaviour);
    await a.api.delete(path(svc), {});
  });

  it("another merchant's service is 404 and is left as it was; an unknown service is 404", async () => {
    const set = await b.api.put(path(b.service_uuid!), { outage: 'refuse' });
    expect(set.status).toBe(200);
    for (const r of [await a.api.get(path(b.service_uuid!)), await a.api.put(path(b.service_uuid!), { outage: 'none' }), await a.api.delete(path(b.service_uuid!), {})]) {
      expect(r.status, r.raw).toBe(404);
      expect(r.body.code).toBe(404);
    }
    expect((await b.api.get(path(b.service_uuid!))).body.sandbox_behaviour).toEqual(set.body.sandbox_behaviour);
    expect((await a.api.get(path('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    await b.api.delete(path(b.service_uuid!), {});
  });

  it('production keys are refused (404 in the envelope), even for their own service', async () => {
    const prod = await t.merchant({ env: 'production' });
    for (const r of [await prod.api.get(path(prod.service_uuid!)), await prod.api.put(path(prod.service_uuid!), { outage: 'refuse' }), await prod.api.delete(path(prod.service_uuid!), {})]) {
      expect(r.status, r.raw).toBe(404);
      expect(r.body).toMatchObject({ code: 404, details: expect.stringContaining('sandbox') });
    }
    expect(await t.p.database.db.selectFrom('service_sandbox_behaviours').selectAll().where('service_id', '=', prod.service_uuid!).execute()).toEqual([]);
  });
});

describe('payments through services with behaviours (end to end)', () => {
  it('a service approving nothing of a BIN range declines; the other service approves the same card', async () => {
    const first = a.service_uuid!;
    const second = await secondService(a, 'Second acquirer');
    expect((await a.api.put(path(first), { approval: [{ ...VISA_RANGE, approve_rate: 0 }] })).status).toBe(200);
    expect((await a.api.put(path(second), { approval: [{ ...VISA_RANGE, approve_rate: 1 }] })).status).toBe(200);

    const declined = await payOn(a, first, TEST_CARDS.APPROVED);
    expect(declined.status).toBe('REFUSED');
    expect(declined.transactions.at(-1)).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    const approved = await payOn(a, second, TEST_CARDS.APPROVED);
    expect(approved.status).toBe('SUCCESS');
    expect(approved.transactions.at(-1)).toMatchObject({ status: 'SUCCESS' });
    // a card outside the range is not drawn on the first service
    expect((await payOn(a, first, TEST_CARDS.NON_3DS_OK)).status).toBe('SUCCESS');
    // the refused card keeps its meaning on the service that approves every Visa
    expect((await payOn(a, second, TEST_CARDS.REFUSED_VISA)).status).toBe('REFUSED');

    // reset: the first service follows the test cards again at once (the cache is dropped on write)
    expect((await a.api.delete(path(first), {})).status).toBe(200);
    expect((await payOn(a, first, TEST_CARDS.APPROVED)).status).toBe('SUCCESS');
    await a.api.delete(path(second), {});
  });

  it('outage refuse: the payment is the not-sent UNKNOWN; the transaction stays PENDING and the reconciler settles it as not done', async () => {
    const svc = await secondService(a, 'Down acquirer');
    expect((await a.api.put(path(svc), { outage: 'refuse' })).status).toBe(200);
    const before = t.m.processors.simulator.callCount('authorize');
    const order = await payOn(a, svc, TEST_CARDS.APPROVED);
    expect(t.m.processors.simulator.callCount('authorize')).toBe(before + 1);
    // what an UNKNOWN shows today: the order waits, its transaction PENDING for the reconciler
    expect(order.transactions.at(-1)).toMatchObject({ status: 'PENDING' });
    const tx = order.transactions.at(-1)!.uuid;
    expect(await t.m.processors.forService('REDSYSPSD2', 'sandbox').lookup({ reference: tx, operation: 'authorize', terminal: { serviceType: 'REDSYSPSD2', terminalId: null, serviceId: svc } })).toEqual({ found: false });
    await t.m.payments.reconcile({ olderThanMs: 0 });
    const after = (await a.api.get(`/order/${order.uuid}`)).body.order;
    expect(after.status).toBe('ERROR');
    expect(after.transactions.at(-1).status).not.toBe('SUCCESS');
    await a.api.delete(path(svc), {});
  });

  it('outage timeout: UNKNOWN too, nothing recorded at the simulator', async () => {
    const svc = await secondService(a, 'Slow acquirer');
    expect((await a.api.put(path(svc), { outage: 'timeout' })).status).toBe(200);
    const order = await payOn(a, svc, TEST_CARDS.APPROVED);
    expect(order.transactions.at(-1)).toMatchObject({ status: 'PENDING' });
    const report = await t.m.processors.simulator.settlementReport({ day: new Date().toISOString().slice(0, 10), terminal: { serviceType: 'REDSYSPSD2', terminalId: null, serviceId: svc } });
    expect(report.outcome === 'REPORT' ? report.lines : null).toEqual([]);
    await a.api.delete(path(svc), {});
  });
});

describe('routing and cascading seen in the sandbox through behaviours', () => {
  it('a routing profile whose first service approves nothing of the range, or refuses connections, cascades to its fallback', async () => {
    const c = await t.merchant({ name: 'Routed shop', isPci: true });
    const first = await secondService(c, 'Primary acquirer');
    const fallback = await secondService(c, 'Fallback acquirer');
    const profile = await c.api.post('/routing-profiles', {
      service_uuid: c.service_uuid,
      name: 'primary then fallback',
      status: 'ACTIVE',
      max_attempts: 2,
      rules: [{ name: 'all cards', conditions: [{ type: 'amount', min: 1 }], action: { type: 'service', service_uuid: first, fallbacks: [fallback] } }],
    });
    expect(profile.status, profile.raw).toBe(200);

    expect((await c.api.put(path(first), { approval: [{ ...VISA_RANGE, approve_rate: 0 }] })).status).toBe(200);
    const declined = await payOn(c, c.service_uuid!, TEST_CARDS.APPROVED);
    expect(declined.status).toBe('SUCCESS');
    expect(declined.transactions).toHaveLength(2);
    expect(declined.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED', routing: { service_uuid: first, attempt: 1 } });
    expect(declined.transactions[1]).toMatchObject({ status: 'SUCCESS', routing: { service_uuid: fallback, attempt: 2 } });
    // a Mastercard is outside the range: the first service approves it, no cascade
    const mastercard = await payOn(c, c.service_uuid!, TEST_CARDS.NON_3DS_OK);
    expect(mastercard.transactions).toHaveLength(1);
    expect(mastercard.transactions[0]).toMatchObject({ status: 'SUCCESS', routing: { service_uuid: first } });

    // the first service is down (connection refused: nothing sent), so the fallback takes the payment
    expect((await c.api.put(path(first), { outage: 'refuse' })).status).toBe(200);
    const down = await payOn(c, c.service_uuid!, TEST_CARDS.NON_3DS_OK);
    expect(down.status).toBe('SUCCESS');
    expect(down.transactions).toHaveLength(2);
    expect(down.transactions[0]).toMatchObject({ routing: { service_uuid: first, attempt: 1 } });
    expect(down.transactions[0].status).not.toBe('SUCCESS');
    expect(down.transactions[1]).toMatchObject({ status: 'SUCCESS', routing: { service_uuid: fallback, attempt: 2 } });

    // a timeout may have moved money: never cascaded, the payment waits for the reconciler
    expect((await c.api.put(path(first), { outage: 'timeout' })).status).toBe(200);
    const slow = await payOn(c, c.service_uuid!, TEST_CARDS.NON_3DS_OK);
    expect(slow.transactions).toHaveLength(1);
    expect(slow.transactions[0]).toMatchObject({ status: 'PENDING', routing: { service_uuid: first } });
  });
});
