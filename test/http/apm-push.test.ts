/**
 * APMs by kind (redirect, push, voucher) through B13 `POST /payment/push` and the sandbox APM provider:
 * every one of the 28 APMs of the API pays an order, the final state is notified, refusals and expiry
 * settle the order, and bad input is a 4xx that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APM_CATALOGUE } from '../../src/processors/index.js';
import { clabeValid, crc16 } from '../../src/processors/sandbox-apm.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let a: TestMerchant;
let rx: Receiver;

const ALL = APM_CATALOGUE.map((x) => x.apm);
const PHONES: Record<string, string> = { BIZUM: '700000000', MBWAY: '912000000' };

beforeAll(async () => {
  t = await createTestApp();
  rx = await startReceiver();
  a = await t.merchant({ name: 'APM shop' });
  const r = await a.api.put(`/service/${a.service_uuid}/apms`, { apms: ALL });
  expect(r.status, r.raw).toBe(200);
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

async function notified(orderUuid: string) {
  await t.p.jobs.drain();
  return rx.received.map((x) => JSON.parse(x.body)).filter((b) => b.order?.uuid === orderUuid).map((b) => b.order.status);
}

describe('the APM catalogue and what a service offers', () => {
  it('lists the 28 APMs of the API, each of one kind', async () => {
    const r = await a.api.get('/apms');
    expect(r.status, r.raw).toBe(200);
    expect(r.body.apms).toHaveLength(28);
    const kinds = Object.fromEntries(r.body.apms.map((x: any) => [x.apm, x.kind]));
    expect(kinds).toMatchObject({ BIZUM: 'push', MBWAY: 'push', IDEAL: 'redirect', PAYPAL: 'redirect', MULTIBANCO: 'voucher', BOLETO: 'voucher', PIX: 'voucher', SPEI: 'voucher', PAYSHOP: 'voucher', TRANSFER: 'voucher' });
    expect(new Set(Object.values(kinds))).toEqual(new Set(['redirect', 'push', 'voucher']));
  });

  it('a service offers what it is given (case-insensitive, duplicates once); BIZUM only in the REDSYS family', async () => {
    const m = await t.merchant();
    expect((await m.api.get(`/service/${m.service_uuid}/apms`)).body.service.apms).toEqual([]);
    const r = await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['mbway', 'IDEAL', 'IDEAL'] });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.service.apms.map((x: any) => x.apm)).toEqual(['IDEAL', 'MBWAY']);
    expect((await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['NOPE'] })).status).toBe(400);
    const credorax = (await m.api.post('/service', { name: 'y', type: 'CREDORAX' })).body.service;
    const bad = await m.api.put(`/service/${credorax.uuid}/apms`, { apms: ['BIZUM'] });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toContain('REDSYS');
    // another merchant's service is not found
    expect((await a.api.get(`/service/${m.service_uuid}/apms`)).status).toBe(404);
    expect((await a.api.put(`/service/${m.service_uuid}/apms`, { apms: [] })).status).toBe(404);
  });
});

describe('B13: every APM pays through the sandbox provider', () => {
  for (const info of APM_CATALOGUE) {
    it(`${info.apm} (${info.kind}): pending, completed by the customer, SUCCESS notified`, async () => {
      const o = await createOrder(a, { url_post: `${rx.url}/apm`, amount: 1250, description: `Order ${info.apm}` });
      const r = await a.api.post('/payment/push', { order_uuid: o.uuid, apm: info.apm.toLowerCase(), ...(PHONES[info.apm] ? { phone: PHONES[info.apm] } : {}) });
      expect(r.status, r.raw).toBe(200);
      expect(r.body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
      expect(r.body.order.transactions[0]).toMatchObject({ status: 'PENDING', source: { object: info.apm, apm: info.apm, kind: info.kind } });
      const extra = r.body.extra_data.apm;
      expect(extra).toMatchObject({ apm: info.apm, kind: info.kind, pending: true });
      expect(Date.parse(extra.expires_at)).toBeGreaterThan(Date.now());
      if (info.kind === 'redirect') expect(extra.redirect_url).toMatch(new RegExp(`/v1/sandbox/sandbox-apm/bank/${o.token}$`));
      if (info.kind === 'push') {
        expect(extra.phone).toBe(`******${PHONES[info.apm].slice(-3)}`);
        expect(extra.sandbox_phone_url).toMatch(new RegExp(`/sandbox-apm/phone/${o.token}$`));
      }
      if (info.kind === 'voucher') {
        const v = extra.voucher;
        expect(v).toMatchObject({ format: info.voucher, amount: 1250, currency: 'EUR' });
        if (info.voucher === 'ENTITY_REFERENCE') expect(v).toMatchObject({ entity: expect.stringMatching(/^\d{5}$/), reference: expect.stringMatching(/^\d{9}$/) });
        if (info.voucher === 'REFERENCE') expect(v.reference).toMatch(/^\d{13}$/);
        if (info.voucher === 'BARCODE') expect(v.barcode).toMatch(/^\d{44}$/);
        if (info.voucher === 'QR') {
          expect(v.qr_code).toMatch(/^000201/);
          expect(v.qr_code).toContain('540512.50');
          expect(crc16(v.qr_code.slice(0, -4))).toBe(v.qr_code.slice(-4));
        }
        if (info.voucher === 'CLABE') expect(clabeValid(v.clabe)).toBe(true);
        if (info.voucher === 'BANK_TRANSFER') expect(v).toMatchObject({ iban: expect.stringMatching(/^ES\d{22}$/), concept: `Order ${info.apm}` });
      }
      // the merchant sees the same on the order
      expect((await a.api.get(`/order/${o.uuid}`)).body.order.transactions[0].source).toMatchObject({ apm: info.apm, expires_at: extra.expires_at });
      const paid = await a.api.post(`/sandbox-apm/${o.uuid}/pay`, {});
      expect(paid.status, paid.raw).toBe(200);
      expect(paid.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
      expect(paid.body.order.transactions[0]).toMatchObject({ status: 'SUCCESS', error: 'NONE', operative: 'AUTHORIZATION' });
      expect(await notified(o.uuid)).toEqual(['SUCCESS']);
    });
  }
});

describe('B13: refusals, expiry and the rules', () => {
  it('push: a phone ending in 1 is refused at once (REFUSED notified); the order can be tried again', async () => {
    const o = await createOrder(a, { url_post: `${rx.url}/r` });
    const r = await a.api.post('/payment/push', { order_uuid: o.uuid, apm: 'MBWAY', phone: '+351 912 000 001' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('REFUSED');
    expect(r.body.extra_data.apm).toEqual({ apm: 'MBWAY', kind: 'push', pending: false });
    expect(r.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    expect(await notified(o.uuid)).toEqual(['REFUSED']);
    const again = await a.api.post('/payment/push', { order_uuid: o.uuid, apm: 'BIZUM', phone: '700000000' });
    expect(again.body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
  });

  it('the customer refuses on the provider: REFUSED, notified', async () => {
    const o = await createOrder(a, { url_post: `${rx.url}/r2` });
    expect((await a.api.post('/payment/push', { order_uuid: o.uuid, apm: 'IDEAL' })).status).toBe(200);
    const r = await a.api.post(`/sandbox-apm/${o.uuid}/pay`, { result: 'REFUSED' });
    expect(r.body.order.status).toBe('REFUSED');
    expect(r.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    expect(await notified(o.uuid)).toEqual(['REFUSED']);
    // nothing waits any more
    expect((await a.api.post(`/sandbox-apm/${o.uuid}/pay`, {})).status).toBe(409);
  });

  it('a voucher not paid before its expiry is refused by the reconciler on the merchant clock; a late payment is refused', async () => {
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['MULTIBANCO', 'TRANSFER'] });
    const o1 = await createOrder(m, { url_post: `${rx.url}/x`, expires_in: 600 });
    const o2 = await createOrder(m, { expires_in: 600 });
    const v = (await m.api.post('/payment/push', { order_uuid: o1.uuid, apm: 'MULTIBANCO' })).body.extra_data.apm;
    const v2 = (await m.api.post('/payment/push', { order_uuid: o2.uuid, apm: 'TRANSFER' })).body.extra_data.apm;
    // the order's own expiry does not end a voucher being paid
    await m.api.post('/test-clock', { advance_seconds: 3600 });
    await t.m.payments.expireDue();
    await t.m.payments.reconcile({ olderThanMs: 0 });
    expect((await m.api.get(`/order/${o1.uuid}`)).body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    await m.api.post('/test-clock', { advance_to: new Date(Date.parse(v.expires_at) + 1000).toISOString() });
    await t.m.payments.reconcile({ olderThanMs: 0 });
    const after = (await m.api.get(`/order/${o1.uuid}`)).body.order;
    // refused by the reconciler, then (its own expiry long past) expired when read
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    expect(after.status).toBe('EXPIRED');
    expect((await notified(o1.uuid)).sort()).toEqual(['EXPIRED', 'REFUSED']);
    // paying the other one after its expiry (before the reconciler ran) is refused too
    await m.api.post('/test-clock', { advance_to: new Date(Date.parse(v2.expires_at) + 1000).toISOString() });
    const late = await m.api.post(`/sandbox-apm/${o2.uuid}/pay`, {});
    expect(late.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error_details: expect.stringContaining('expired') });
  });

  it('a TRANSFER order is paid by bank transfer: IBAN and the description as concept, completed when the transfer arrives', async () => {
    const o = await createOrder(a, { operative: 'TRANSFER', description: 'Invoice 2026-118', url_post: `${rx.url}/tr` });
    const r = await a.api.post('/payment/push', { order_uuid: o.uuid, apm: 'TRANSFER' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.extra_data.apm.voucher).toMatchObject({ format: 'BANK_TRANSFER', iban: 'ES7921000813610123456789', concept: 'Invoice 2026-118' });
    expect(r.body.order.transactions[0].operative).toBe('TRANSFER');
    // other APMs do not pay TRANSFER orders
    const other = await createOrder(a, { operative: 'TRANSFER' });
    expect((await a.api.post('/payment/push', { order_uuid: other.uuid, apm: 'IDEAL' })).status).toBe(400);
    const paid = await a.api.post(`/sandbox-apm/${o.uuid}/pay`, {});
    expect(paid.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(await notified(o.uuid)).toEqual(['SUCCESS']);
  });

  it('bad input is 4xx and changes nothing', async () => {
    const o = await createOrder(a);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ order_uuid: o.uuid }, 400, 'apm is required'],
      [{ order_uuid: o.uuid, apm: 'NOPE' }, 400, 'not an APM'],
      [{ order_uuid: o.uuid, apm: 'MBWAY' }, 400, 'phone'],
      [{ order_uuid: o.uuid, apm: 'MBWAY', phone: '612345678' }, 400, 'phone'],
      [{ order_uuid: o.uuid, apm: 'BIZUM', phone: 'abc' }, 400, 'phone'],
      [{ order_uuid: '00000000-0000-4000-8000-000000000000', apm: 'IDEAL' }, 404, 'not found'],
      [{ order_uuid: 'nope', apm: 'IDEAL' }, 400, 'order_uuid'],
      [{ order_uuid: o.uuid, apm: 7 }, 400, 'apm'],
    ];
    for (const [body, status, text] of cases) {
      const r = await a.api.post('/payment/push', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.details, JSON.stringify(body)).toContain(text);
    }
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['IDEAL'] });
    const other = await createOrder(m);
    expect((await m.api.post('/payment/push', { order_uuid: other.uuid, apm: 'PIX' })).body.details).toContain('does not offer PIX');
    // the only APM of the service needs no `apm`
    expect((await m.api.post('/payment/push', { order_uuid: other.uuid })).body.extra_data.apm.apm).toBe('IDEAL');
    // a payment in progress: 409; another merchant's order: 404
    expect((await m.api.post('/payment/push', { order_uuid: other.uuid })).status).toBe(409);
    expect((await a.api.post('/payment/push', { order_uuid: other.uuid, apm: 'IDEAL' })).status).toBe(404);
    expect((await a.api.post(`/sandbox-apm/${other.uuid}/pay`, {})).status).toBe(404);
    expect((await a.api.post(`/sandbox-apm/${o.uuid}/pay`, { result: 'MAYBE' })).status).toBe(400);
    expect((await a.api.get(`/order/${o.uuid}`)).body.order).toMatchObject({ status: 'CREATED', transactions: [] });
    // DEFERRED orders are not paid with APMs
    const d = await createOrder(a, { operative: 'DEFERRED' });
    expect((await a.api.post('/payment/push', { order_uuid: d.uuid, apm: 'IDEAL' })).status).toBe(400);
  });
});
