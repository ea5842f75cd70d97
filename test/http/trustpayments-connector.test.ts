/**
 * Trust Payments in production against its simulator, beyond the conformance scenarios: terminal
 * credentials checked and tested against Trust Payments (HTTP 401 for a wrong password); an outcome Trust
 * Payments has not decided (Bank System Error) is PENDING and never a decline, the reconciler leaving it
 * while Trust Payments' record says the same; a confirmation whose answer was lost is settled from the
 * payment's settle status (confirmed), a cancellation that never arrived is ERROR; a test-bank decline by
 * amount; the requests the connector sent were each one the reference allows (the harness's SpecLedger).
 * PostgreSQL only (the conformance suite covers the connector there).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { harnessOf, luhnCard } from '../helpers/connectors.js';
import { declarationNamed } from '../../src/processors/connectors.js';
import type { TrustpaymentsSimulator } from '../../src/processors/trustpayments/simulator/server.js';
import { TRUSTPAYMENTS_SIM_AMOUNTS, TRUSTPAYMENTS_SIM_CARDS } from '../../src/processors/trustpayments/simulator/rules.js';
import { storeCard } from '../helpers/payments.js';

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Trust Payments connector', () => {
  const h = harnessOf<TrustpaymentsSimulator>(declarationNamed('trustpayments')!);
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;
  const single = (fields: Record<string, unknown>) => m.api.post('/payment/single-step', {
    amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'trustpayments', service: m.service_uuid, customer_ext_id: `tp-${++n}`,
    card_holder: 'Joe Bloggs', card_pan: luhnCard('41111112', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', ...fields,
  });

  it('production TRUSTPAYMENTS terminals need the Webservices credentials (400 naming what is wrong); test_credentials asks Trust Payments without moving money', async () => {
    const bad = await m.api.post('/terminal', { currency_code: 'GBP', type: 'TRUSTPAYMENTS', description: 'tp', credentials: { alias: 'a:b', sitereference: 'test site' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/missing: password/);
    expect(bad.body.details).toMatch(/credentials.alias/);
    expect(bad.body.details).toMatch(/credentials.sitereference/);
    const calls = h.paymentCalls();
    expect((await m.api.post('/terminal', { currency_code: 'GBP', type: 'TRUSTPAYMENTS', description: 'tp', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    const wrong = await m.api.post('/terminal', { currency_code: 'GBP', type: 'TRUSTPAYMENTS', description: 'tp', credentials: { ...h.terminal.credentials, password: 'not-the-password-0000' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/alias or password was refused/);
    const site = await m.api.post('/terminal', { currency_code: 'GBP', type: 'TRUSTPAYMENTS', description: 'tp', credentials: { ...h.terminal.credentials, sitereference: 'test_another99' }, test_credentials: true });
    expect(site.status).toBe(400);
    expect(site.body.details).toMatch(/30006/);
    expect(h.paymentCalls()).toBe(calls);
  });

  it('the test bank declines by amount (70000); a Bank System Error (60010) is PENDING, never a decline, and stays so while Trust Payments has not decided', async () => {
    const declined = (await single({ amount: TRUSTPAYMENTS_SIM_AMOUNTS.DECLINE })).body.order;
    expect(declined.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    expect(declined.transactions[0].error_details).toMatch(/Decline \(errorcode 70000\)/);
    const undecided = (await single({ amount: TRUSTPAYMENTS_SIM_AMOUNTS.BANK_ERROR })).body.order;
    expect(undecided).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    expect(undecided.transactions[0].status).toBe('PENDING');
    await t.m.payments.reconcile({ olderThanMs: 0 });
    expect((await order(undecided.uuid)).transactions[0].status).toBe('PENDING');
  });

  it('a confirmation whose answer was lost is settled from the payment\'s settle status; a cancellation that never arrived is ERROR', async () => {
    const pre = (await single({ operative: 'DEFERRED', amount: 1200 })).body.order;
    expect(pre.status).toBe('PENDING_CONFIRMATION');
    h.fault('answer-lost');
    const confirm = await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 600 });
    expect(confirm.status, confirm.raw).toBe(200);
    expect(confirm.body.order.transactions.at(-1).status).toBe('PENDING');
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    const confirmed = await order(pre.uuid);
    expect(confirmed.transactions.at(-1)).toMatchObject({ status: 'SUCCESS', amount: 600 });
    expect(confirmed.paid).toBe(true);

    const other = (await single({ operative: 'DEFERRED', amount: 700 })).body.order;
    h.fault('request-lost');
    const cancel = await m.api.post('/payment/cancellation', { order_uuid: other.uuid });
    expect(cancel.status, cancel.raw).toBe(200);
    expect(cancel.body.order.transactions.at(-1).status).toBe('PENDING');
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect((await order(other.uuid)).transactions.at(-1)).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
  });

  it('a soft decline goes to the 3-D Secure page, where authentication cannot be performed: the payment is refused with that reason, not left to retry', async () => {
    const c = `tpsoft-${++n}`;
    const soft = await storeCard(t, m, TRUSTPAYMENTS_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1500, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: soft });
    expect(r.status, r.raw).toBe(303);
    const tokenized = `/v1/payment/tokenized/${created.token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: { 'x-forwarded-proto': 'https' } });
    expect(page.statusCode).toBe(200);
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1];
    expect(nonce).toBeDefined();
    // the cardholder says yes on the page: Trust Payments still cannot authenticate through this gateway
    const auth = await t.app.inject({ method: 'POST', url: tokenized, headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ nonce: nonce!, result: 'approve' }).toString() });
    expect(auth.statusCode, auth.body.slice(0, 300)).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ko');
    const after = await order(created.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions.at(-1)).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions.at(-1).error_details).toMatch(/JavaScript Library/);
  });
});
