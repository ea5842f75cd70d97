/**
 * Nuvei in production against its simulator, beyond the conformance scenarios: terminal credentials
 * checked and tested against Nuvei (a session token asked for); EMV 3-D Secure 2 through Nuvei driven by
 * the hosted page (a soft decline authenticated frictionlessly after initPayment; the challenge: the
 * ACS page posted the CReq, its CRes posted back, the last payment related to the challenge's
 * transaction); a settle whose answer was lost, found by our reference (getTransactionDetails) by the
 * reconciler, and a refund then related to that settlement; refunds Nuvei answers PENDING stay PENDING
 * until their DMN decides them, approved or declined; DMNs: a forged one changes nothing and is not
 * recorded, a replayed one is recognised. PostgreSQL only (the conformance suite covers the connector on
 * both databases; these add no engine-specific behaviour).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { harnessOf, luhnCard, type WebhookSend } from '../helpers/connectors.js';
import { declarationNamed } from '../../src/processors/connectors.js';
import type { NuveiSimulator } from '../../src/processors/nuvei/simulator/server.js';
import { NUVEI_SIM_CARDS } from '../../src/processors/nuvei/simulator/rules.js';
import { dmnChecksum } from '../../src/processors/nuvei/mapping.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Nuvei connector', () => {
  const h = harnessOf<NuveiSimulator>(declarationNamed('nuvei')!);
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
    // DMNs are kept until a test delivers them
    h.webhooks!.deliverTo(null);
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  const attr = (body: string, re: RegExp) => {
    const v = re.exec(body)?.[1];
    if (v === undefined) throw new Error(`not in the page: ${re}\n${body.slice(0, 2000)}`);
    return v.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x2F;/g, '/');
  };
  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };
  const outcome = async (body: string) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/processor/nuvei/notification', headers: FORM, payload: body });
    expect(r.statusCode).toBe(200);
    return r.body.replace(/^[\s\S]*<\/title>/, '').trim();
  };
  const events = async (reference: string) => (await sql<{ event_id: string }>`select event_id from connector_events where connector = 'nuvei' and reference = ${reference}`.execute(t.p.database.db)).rows;
  const single = (fields: Record<string, unknown>) => m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'nuvei', service: m.service_uuid, customer_ext_id: `nv-${++n}`, card_holder: 'Ana', card_pan: luhnCard('45671235', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', ...fields });

  it('production NUVEI terminals need merchantId, merchantSiteId and merchantSecretKey (400 naming what is wrong); test_credentials asks Nuvei for a session token', async () => {
    const bad = await m.api.post('/terminal', { currency_code: 'EUR', type: 'NUVEI', description: 'n', credentials: { merchantId: 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/missing: merchantSiteId, merchantSecretKey/);
    expect(bad.body.details).toMatch(/credentials.merchantId/);
    const calls = h.paymentCalls();
    const sessions = h.sim.calls.sessions;
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'NUVEI', description: 'n', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    expect(h.sim.calls.sessions).toBe(sessions + 1);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'NUVEI', description: 'n', credentials: { ...h.terminal.credentials, merchantSecretKey: 'notTheSecretKey0123456789' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/merchantSecretKey was refused by Nuvei \(invalid checksum\)/);
    expect(h.paymentCalls()).toBe(calls);
  });

  const threedsPage = async (token: string) => {
    const tokenized = `/v1/payment/tokenized/${token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
    const browser = { nonce: attr(page.body, /name="nonce" value="([^"]+)"/), method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    return { tokenized, auth: await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: FORM, payload: new URLSearchParams(browser).toString() }) };
  };

  it('a soft decline goes through Nuvei\'s 3-D Secure from the hosted page: initPayment, then approved without a challenge', async () => {
    const c = `nsoft-${++n}`;
    const soft = await storeCard(t, m, NUVEI_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1500, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: soft });
    expect(r.status, r.raw).toBe(303);
    const { auth } = await threedsPage(created.token);
    expect(auth.statusCode).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    const tx = after.transactions.at(-1);
    expect(h.sim.transactionsOf(tx.uuid).map((x) => [x.type, x.status, x.reason])).toEqual([['Sale', 'DECLINED', 'Authentication Required'], ['InitAuth3D', 'APPROVED', null], ['Sale', 'APPROVED', null]]);
    expect(h.sim.transactionsOf(tx.uuid)[2].related).toBe(h.sim.transactionsOf(tx.uuid)[1].id);
    // the refund relates to the authenticated Sale
    expect((await m.api.post('/payment/refund', { order_uuid: created.uuid, amount: 1500 })).body.order).toMatchObject({ status: 'REFUNDED', refunded: 1500 });
    expect(h.sim.transactionsOf(tx.uuid)[2]).toMatchObject({ refunded: 1500 });
  });

  it('the 3-D Secure challenge: the ACS page posted the CReq, its CRes posted back, the last payment related to the challenge; then refunded in part', async () => {
    const c = `n3ds-${++n}`;
    const card = await storeCard(t, m, NUVEI_SIM_CARDS.CHALLENGE, c);
    const created = (await m.api.post('/payment', { amount: 1800, operative: 'AUTHORIZATION', secure: true, description: 'challenge', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(303);
    const { tokenized, auth } = await threedsPage(created.token);
    expect(auth.statusCode, String(auth.headers.location)).toBe(200);
    const acs = attr(auth.body, /<form method="post" action="([^"]+)" id="threeds-acs">/);
    expect(acs).toMatch(new RegExp(`^${h.sim.url}/sim/3ds/`));
    const tx = (await order(created.uuid)).transactions.at(-1);
    expect(h.sim.transactionsOf(tx.uuid).map((x) => [x.type, x.status])).toEqual([['InitAuth3D', 'APPROVED'], ['Auth3D', 'REDIRECT']]);
    const creq = attr(auth.body, /name="creq" value="([^"]+)"/);
    expect(JSON.parse(Buffer.from(creq, 'base64url').toString())).toMatchObject({ messageType: 'CReq' });
    const shown = await fetch(acs, { method: 'POST', body: new URLSearchParams({ creq }) });
    expect(await shown.text()).toContain('id="pass"');
    const back = await (await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: 'Y' }) })).text();
    const returnUrl = new URL(attr(back, /<form id="f" method="post" action="([^"]+)">/));
    expect(returnUrl.pathname).toBe(`${tokenized}/cres`);
    const returned = { cres: attr(back, /name="cres" value="([^"]+)"/) };
    const final = await t.app.inject({ method: 'POST', url: returnUrl.pathname, headers: FORM, payload: new URLSearchParams(returned).toString() });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    const txs = h.sim.transactionsOf(tx.uuid);
    expect(txs.map((x) => [x.type, x.status])).toEqual([['InitAuth3D', 'APPROVED'], ['Auth3D', 'REDIRECT'], ['Sale', 'APPROVED']]);
    expect(txs[2].related).toBe(txs[1].id);
    // back again: nothing more happens
    const again = await t.app.inject({ method: 'POST', url: returnUrl.pathname, headers: FORM, payload: new URLSearchParams(returned).toString() });
    expect(again.statusCode).toBeLessThan(500);
    expect((await order(created.uuid)).transactions).toHaveLength(after.transactions.length);
    expect((await m.api.post('/payment/refund', { order_uuid: created.uuid, amount: 500 })).body.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 500 });
    expect(h.sim.transactionsOf(tx.uuid)[2]).toMatchObject({ refunded: 500 });
  });

  it('a settle whose answer was lost: PENDING, then found by our reference by the reconciler, once; a refund then relates to that settlement', async () => {
    const pre = (await single({ operative: 'DEFERRED' })).body.order;
    expect(pre.status).toBe('PENDING_CONFIRMATION');
    h.fault('answer-lost');
    const lost = (await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 600 })).body.order;
    expect(lost.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'PENDING' });
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    const after = await order(pre.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(after.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'SUCCESS', amount: 600 });
    const refunded = (await m.api.post('/payment/refund', { order_uuid: pre.uuid, amount: 200 })).body.order;
    expect(refunded).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 200 });
    const settle = h.sim.transactionsOf(after.transactions.at(-1).uuid)[0];
    expect(settle).toMatchObject({ type: 'Settle', amount: 600, refunded: 200 });
  });

  it('refunds Nuvei answers PENDING stay PENDING until their DMN: approved, then one declined', async () => {
    const o = (await single({ amount: 900 })).body.order;
    expect(o.status).toBe('SUCCESS');
    h.sim.holdFollowUps(1, 'APPROVED');
    const sent = h.webhooks!.sent().length;
    const r = (await m.api.post('/payment/refund', { order_uuid: o.uuid, amount: 300 })).body.order;
    expect(r.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'PENDING' });
    expect(r.status).not.toBe('PARTIALLY_REFUNDED');
    // not decided yet: the reconciler leaves it
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    await h.sim.release();
    const dmn = h.webhooks!.sent()[sent];
    expect(new URLSearchParams(dmn.body).get('transactionType')).toBe('Credit');
    expect((await send(dmn)).body).toMatch(/settled/);
    expect(await order(o.uuid)).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });

    h.sim.holdFollowUps(1, 'DECLINED');
    const r2 = (await m.api.post('/payment/refund', { order_uuid: o.uuid, amount: 200 })).body.order;
    expect(r2.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'PENDING' });
    await h.sim.release();
    const declinedDmn = h.webhooks!.sent().at(-1)!;
    expect(new URLSearchParams(declinedDmn.body).get('Status')).toBe('DECLINED');
    expect((await send(declinedDmn)).body).toMatch(/settled/);
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    expect(after.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'REFUSED', error: 'DENIED' });
  });

  it('a forged DMN (another secret, or none) changes nothing and is not recorded; a replayed one is recognised', async () => {
    const before = h.webhooks!.sent().length;
    h.fault('webhook-only');
    const o = (await single({ amount: 700 })).body.order;
    expect(o.status).toBe('PENDING_PROCESSOR_RESPONSE');
    const hook = h.webhooks!.sent()[before];
    expect(hook.path).toBe('/v1/processor/nuvei/notification');
    const fields = Object.fromEntries(new URLSearchParams(hook.body));
    expect(fields).toMatchObject({ Status: 'APPROVED', transactionType: 'Sale', merchant_unique_id: o.transactions[0].uuid, totalAmount: '7.00', currency: 'EUR' });
    const forged = { ...fields, advanceResponseChecksum: dmnChecksum(fields, 'another-secret-0123456789abcdef') };
    expect(await outcome(new URLSearchParams(forged).toString())).toBe('ignored');
    const unsigned: Record<string, string> = { ...fields };
    delete unsigned.advanceResponseChecksum;
    expect(await outcome(new URLSearchParams(unsigned).toString())).toBe('ignored');
    // another amount under the same checksum: not verified
    expect(await outcome(new URLSearchParams({ ...fields, totalAmount: '0.01' }).toString())).toBe('ignored');
    expect(await events(o.transactions[0].uuid)).toHaveLength(0);
    expect((await order(o.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    expect(await outcome(hook.body)).toBe('settled');
    expect((await order(o.uuid)).status).toBe('SUCCESS');
    expect(await outcome(hook.body)).not.toBe('settled');
    expect(await events(o.transactions[0].uuid)).toHaveLength(1);
  });
});
