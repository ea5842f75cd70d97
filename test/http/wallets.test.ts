/**
 * B14 wallet payments end to end: Google Pay (CRYPTOGRAM_3DS and PAN_ONLY) and Apple Pay tokens built
 * by an independent test wallet pay orders through the payments module (notified to url_post);
 * replays, tampered and foreign tokens, expired tokens, wrong keys and bad input are clear 4xx that
 * change nothing; no card number, device PAN or cryptogram is left in the database; the sandbox builds
 * its own tokens; the wallet flags of GET /client/resources follow the services.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { nonceOf, open as openPage, post as postPage } from '../helpers/pages.js';
import { advance, createOrder } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { TestApplePay, TestGooglePay } from '../helpers/wallets.js';

let t: TestApp;
let a: TestMerchant;
let rx: Receiver;
const google = new TestGooglePay();
const apple = new TestApplePay();
const CRYPTOGRAM = 'AgAAAAAABk4DWZ4C28yUQAAAAAA=';

beforeAll(async () => {
  // production services run on the simulator here, so production orders can be made (no wallet roots configured there)
  t = await createTestApp({ PAYGATE_GOOGLE_PAY_SANDBOX_ROOT_KEYS: google.keysJson(), PAYGATE_APPLE_PAY_SANDBOX_ROOT_CA: apple.rootPem(), PAYGATE_PRODUCTION_SIMULATOR: 'true' });
  rx = await startReceiver();
  a = await t.merchant({ name: 'Wallet shop' });
  const r = await a.api.put(`/service/${a.service_uuid}/wallets`, { wallets: ['GOOGLEPAY', 'apple_pay'] });
  expect(r.status, r.raw).toBe(200);
  expect(r.body.service.wallets).toEqual(['GOOGLE_PAY', 'APPLE_PAY']);
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** The merchant's sandbox Google Pay key (made on first use) and Apple Pay certificate. */
async function keysOf(m: TestMerchant) {
  const r = await m.api.get('/wallets');
  expect(r.status, r.raw).toBe(200);
  const g = r.body.wallets.google_pay.keys[0];
  const ap = r.body.wallets.apple_pay.keys[0];
  return { recipientId: g.recipient_id as string, publicKey: g.public_key as string, appleCertificate: ap.certificate as string, gatewayMerchantId: r.body.wallets.google_pay.gateway_merchant_id as string };
}

async function now(m: TestMerchant): Promise<Date> {
  const r = await m.api.get('/test-clock');
  expect(r.status, r.raw).toBe(200);
  return new Date(Date.now() + r.body.test_clock.offset_seconds * 1000);
}

async function googleToken(m: TestMerchant, message: Parameters<TestGooglePay['token']>[0]['message'] = {}, opts: Parameters<TestGooglePay['token']>[1] = {}) {
  const k = await keysOf(m);
  return google.token({ recipientId: k.recipientId, merchantPublicKey: k.publicKey, now: await now(m), message }, opts);
}

async function appleToken(m: TestMerchant, amount: number, extra: { currencyCode?: string; pan?: string } = {}) {
  const k = await keysOf(m);
  return apple.token({ merchantCertificate: k.appleCertificate, payment: { amount, ...extra }, signingTime: await now(m) });
}

const pay = (m: TestMerchant, body: Record<string, unknown>) => m.api.post('/payment/wallet', body);

describe('wallet configuration', () => {
  it('a sandbox merchant gets keys on first use; GET /client/resources follows the services that offer each wallet', async () => {
    const m = await t.merchant();
    const before = await m.api.get('/client/resources');
    expect(before.body.googlePay).toEqual({ enabled: false });
    expect(before.body.applePay).toEqual({ enabled: false });
    const w = (await m.api.get('/wallets')).body.wallets;
    expect(w.google_pay.keys).toHaveLength(1);
    expect(w.google_pay.keys[0]).toMatchObject({ wallet: 'GOOGLE_PAY', generated: true, recipient_id: 'gateway:paygate' });
    expect(Buffer.from(w.google_pay.keys[0].public_key, 'base64')).toHaveLength(65);
    expect(w.apple_pay.keys[0]).toMatchObject({ wallet: 'APPLE_PAY', merchant_identifier: `merchant.paygate.sandbox.${m.client_uuid}` });
    expect(w.apple_pay.keys[0].certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(w.sandbox_roots.google_pay.keys[0].protocolVersion).toBe('ECv2');
    // the second read makes no new key
    expect((await m.api.get('/wallets')).body.wallets.google_pay.keys).toHaveLength(1);
    // no private key anywhere in the answer
    expect(JSON.stringify(w)).not.toMatch(/PRIVATE KEY/);

    await m.api.put(`/service/${m.service_uuid}/wallets`, { wallets: ['GOOGLE_PAY'] });
    const after = await m.api.get('/client/resources');
    expect(after.body.googlePay).toEqual({ enabled: true });
    expect(after.body.applePay).toEqual({ enabled: false });
    // a disabled service offers nothing
    const off = await m.api.put(`/service/${m.service_uuid}`, { enabled: false });
    expect(off.status, off.raw).toBe(200);
    const disabled = await m.api.get('/client/resources');
    expect(disabled.status).toBe(200);
    expect(disabled.body.googlePay).toEqual({ enabled: false });
  });

  it('service wallets: unknown wallet 400, another merchant\'s service 404', async () => {
    const m = await t.merchant();
    expect((await m.api.put(`/service/${m.service_uuid}/wallets`, { wallets: ['SAMSUNG_PAY'] })).status).toBe(400);
    expect((await m.api.put(`/service/${m.service_uuid}/wallets`, { wallets: 'GOOGLE_PAY' })).status).toBe(400);
    expect((await a.api.get(`/service/${m.service_uuid}/wallets`)).status).toBe(404);
    expect((await a.api.put(`/service/${m.service_uuid}/wallets`, { wallets: [] })).status).toBe(404);
  });

  it('a Google Pay key for a recipient id; a bad recipient id is 400', async () => {
    const m = await t.merchant();
    const r = await m.api.post('/wallet/google-pay/key', { recipient_id: 'merchant:BCR2DN4T2' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.key).toMatchObject({ recipient_id: 'merchant:BCR2DN4T2', generated: true });
    expect((await m.api.post('/wallet/google-pay/key', { recipient_id: 'nobody' })).status).toBe(400);
  });

  it('an Apple Pay certificate is imported with its key; a key of another certificate, a certificate without the merchant field, or a repeat are refused', async () => {
    const m = await t.merchant();
    const c = apple.merchantCertificate('merchant.com.example.import');
    const r = await m.api.post('/wallet/apple-pay/certificate', { certificate: c.certificate, private_key: c.privateKey, merchant_identifier: 'merchant.com.example.import' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.key).toMatchObject({ wallet: 'APPLE_PAY', generated: false, merchant_identifier: 'merchant.com.example.import' });
    expect(r.raw).not.toMatch(/PRIVATE KEY/);
    expect((await m.api.post('/wallet/apple-pay/certificate', { certificate: c.certificate, private_key: c.privateKey })).status).toBe(409);
    const other = apple.merchantCertificate('merchant.com.example.other');
    const mismatch = await m.api.post('/wallet/apple-pay/certificate', { certificate: c.certificate, private_key: other.privateKey });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details).toMatch(/does not belong to the certificate/);
    const wrongId = await m.api.post('/wallet/apple-pay/certificate', { certificate: other.certificate, private_key: other.privateKey, merchant_identifier: 'merchant.com.example.import' });
    expect(wrongId.status).toBe(400);
    expect((await m.api.post('/wallet/apple-pay/certificate', { certificate: apple.rootPem(), private_key: other.privateKey })).body.details).toMatch(/merchant identifier field/);
    expect((await m.api.post('/wallet/apple-pay/certificate', { certificate: 'nope', private_key: 'nope' })).status).toBe(400);
    // the imported certificate decrypts tokens made for it
    await m.api.put(`/service/${m.service_uuid}/wallets`, { wallets: ['APPLE_PAY'] });
    const o = await createOrder(m, { amount: 700 });
    const tok = apple.token({ merchantCertificate: c.certificate, payment: { amount: 700 }, signingTime: await now(m) });
    const paid = await pay(m, { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: tok.paymentData });
    expect(paid.status, paid.raw).toBe(200);
    expect(paid.body.order.status).toBe('SUCCESS');
  });
});

describe('B14 pays', () => {
  it('Google Pay CRYPTOGRAM_3DS: authenticated payment (safe, ECI), the wallet as source, notified to url_post', async () => {
    const o = await createOrder(a, { amount: 1999, url_post: `${rx.url}/notify` });
    const { token } = await googleToken(a, { cryptogram: CRYPTOGRAM, eciIndicator: '05' });
    const r = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: JSON.stringify(token), customer_ip: '203.0.113.10', flow: 'WEB' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', paid: true, safe: true, threeds_data: { version: '2.2.0', flow: 'WALLET', status: 'Y', eci: '05' } });
    expect(r.body.order.transactions[0]).toMatchObject({ status: 'SUCCESS', source: { object: 'GOOGLE_PAY', type: 'wallet', flow: 'WEB' } });
    expect(r.body.validation_hash).toMatch(/^[0-9a-f]{64}$/);
    await t.p.jobs.drain();
    const sent = rx.received.map((x) => JSON.parse(x.body)).filter((b) => b.order?.uuid === o.uuid);
    expect(sent.map((b) => b.order.status)).toEqual(['SUCCESS']);
  });

  it('Google Pay PAN_ONLY: 303 to the tokenized 3-D Secure page (no Location); the challenge completes the payment', async () => {
    const o = await createOrder(a, { amount: 2500, customer_ext_id: null });
    const { token } = await googleToken(a, { authMethod: 'PAN_ONLY', pan: '4761739000091011' });
    const r = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: token });
    expect(r.status, r.raw).toBe(303);
    expect(r.body).toMatchObject({ code: 303, message: 'See Other' });
    expect(r.body.details).toContain(`/payment/tokenized/${o.token}`);
    expect(r.body.url).toBe(r.body.details);
    expect(r.headers.location).toBeUndefined();
    expect(r.body.order.status).toBe('PENDING_3DS_RESPONSE');
    const url = new URL(r.body.details).pathname;
    const page = await openPage(t, url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('1011'); // the last 4 of the kept card on the challenge page
    const done = await postPage(t, url, { nonce: nonceOf(page.body), result: 'approve' });
    expect(done.statusCode).toBe(303);
    const after = (await a.api.get(`/order/${o.uuid}`)).body.order;
    expect(after).toMatchObject({ status: 'SUCCESS', safe: true, threeds_data: { flow: 'CHALLENGE', status: 'Y' } });
    // the card kept for the challenge is gone
    const kept = await sql<{ n: number }>`select count(*)::int as n from threeds_card_sessions where order_id = ${o.uuid}`.execute(t.p.database.db);
    expect(kept.rows[0].n).toBe(0);
  });

  it('Apple Pay: authenticated payment for the order\'s amount and currency', async () => {
    const o = await createOrder(a, { amount: 4321 });
    const { paymentData } = await appleToken(a, 4321);
    const r = await pay(a, { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: { paymentData, paymentMethod: { network: 'Visa', displayName: 'Visa 0004' } } });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', safe: true, threeds_data: { version: '2.2.0', flow: 'WALLET', eci: '07' } });
    expect(r.body.order.transactions[0].source).toMatchObject({ object: 'APPLE_PAY', type: 'wallet', flow: 'APP' });
  });

  it('the test cards decide as for any card: refused 200 REFUSED; the soft-decline card pays with a cryptogram', async () => {
    const o = await createOrder(a);
    const refused = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a, { pan: '5485009949201879' })).token });
    expect(refused.status, refused.raw).toBe(200);
    expect(refused.body.order.status).toBe('REFUSED');
    expect(refused.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    const soft = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a, { pan: '5223798193659108' })).token });
    expect(soft.status, soft.raw).toBe(200);
    expect(soft.body.order.status).toBe('SUCCESS');
  });

  it('the sandbox builds tokens itself (POST /sandbox-wallet/token) that pay through B14', async () => {
    const o1 = await createOrder(a, { amount: 800 });
    const g = await a.api.post('/sandbox-wallet/token', { wallet: 'GOOGLEPAY' });
    expect(g.status, g.raw).toBe(200);
    expect(g.raw).not.toContain('4548812049400004');
    expect((await pay(a, { order_uuid: o1.uuid, wallet: 'GOOGLEPAY', payload: g.body.token.payload })).body.order.status).toBe('SUCCESS');
    const o2 = await createOrder(a, { amount: 900 });
    const ap = await a.api.post('/sandbox-wallet/token', { wallet: 'APPLEPAY', order_uuid: o2.uuid });
    expect(ap.status, ap.raw).toBe(200);
    expect((await pay(a, { order_uuid: o2.uuid, wallet: 'APPLEPAY', payload: ap.body.token.payload })).body.order.status).toBe('SUCCESS');
    const o3 = await createOrder(a, { amount: 950, customer_ext_id: null });
    const pan = await a.api.post('/sandbox-wallet/token', { wallet: 'GOOGLEPAY', auth_method: 'PAN_ONLY', card_pan: '4761739000091011' });
    expect((await pay(a, { order_uuid: o3.uuid, wallet: 'GOOGLEPAY', payload: pan.body.token.payload })).status).toBe(303);
    // bad input
    expect((await a.api.post('/sandbox-wallet/token', { wallet: 'NOPE' })).status).toBe(400);
    expect((await a.api.post('/sandbox-wallet/token', { wallet: 'APPLEPAY' })).status).toBe(400);
    expect((await a.api.post('/sandbox-wallet/token', { wallet: 'APPLEPAY', auth_method: 'PAN_ONLY', amount: 1, currency: 'EUR' })).status).toBe(400);
    expect((await a.api.post('/sandbox-wallet/token', { wallet: 'GOOGLEPAY', card_pan: '12ab' })).status).toBe(400);
  });
});

describe('B14 refuses', () => {
  it('a replayed token: 409, on the same or another order, and nothing changes', async () => {
    const o = await createOrder(a);
    const { token } = await googleToken(a);
    expect((await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: token })).status).toBe(200);
    const again = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: token });
    expect(again.status).toBe(409);
    expect(again.body.details).toMatch(/already used/);
    const o2 = await createOrder(a);
    expect((await pay(a, { order_uuid: o2.uuid, wallet: 'GOOGLEPAY', payload: token })).status).toBe(409);
    const fresh = (await a.api.get(`/order/${o2.uuid}`)).body.order;
    expect(fresh.status).toBe('CREATED');
    expect(fresh.transactions).toEqual([]);
    // Apple Pay too
    const o3 = await createOrder(a, { amount: 1000 });
    const { paymentData } = await appleToken(a, 1000);
    expect((await pay(a, { order_uuid: o3.uuid, wallet: 'APPLEPAY', payload: paymentData })).status).toBe(200);
    const o4 = await createOrder(a, { amount: 1000 });
    expect((await pay(a, { order_uuid: o4.uuid, wallet: 'APPLEPAY', payload: paymentData })).status).toBe(409);
  });

  it('two concurrent uses of one token: exactly one pays', async () => {
    const [o1, o2] = [await createOrder(a), await createOrder(a)];
    const { token } = await googleToken(a);
    const rs = await Promise.all([o1, o2].map((o) => pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: token })));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409]);
    const orders = await Promise.all([o1, o2].map(async (o) => (await a.api.get(`/order/${o.uuid}`)).body.order.status));
    expect(orders.filter((s) => s === 'SUCCESS')).toHaveLength(1);
  });

  it('a tampered signature, a token made for another merchant\'s key, an untrusted root: 400 saying why', async () => {
    const o = await createOrder(a);
    const { token } = await googleToken(a);
    const bad = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: { ...token, signature: token.signature.replace(/^MEU|^MEQ|^MEY/, 'MEY').slice(0, -4) + 'AAA=' } });
    expect(bad.status, bad.raw).toBe(400);
    expect(bad.body.details).toMatch(/^The Google Pay token was refused: /);
    const other = await t.merchant();
    const foreign = await googleToken(other);
    const r = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: foreign.token });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/does not decrypt with the merchant's Google Pay keys/);
    const stranger = new TestGooglePay();
    const k = await keysOf(a);
    const untrusted = stranger.token({ recipientId: k.recipientId, merchantPublicKey: k.publicKey, now: await now(a) });
    expect((await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: untrusted.token })).body.details).toMatch(/not signed by a trusted Google root/);
    // an Apple Pay token for another merchant's certificate
    const ap = await appleToken(other, 1000);
    const ar = await pay(a, { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: ap.paymentData });
    expect(ar.status).toBe(400);
    expect(ar.body.details).toMatch(/publicKeyHash names no payment processing certificate/);
    // the gatewayMerchantId of another merchant
    const forOther = await googleToken(a, { gatewayMerchantId: other.client_uuid });
    expect((await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: forOther.token })).body.details).toMatch(/another merchant/);
    expect((await a.api.get(`/order/${o.uuid}`)).body.order).toMatchObject({ status: 'CREATED', transactions: [] });
  });

  it('expired tokens: a Google Pay message past its expiry on the merchant clock, an Apple Pay token signed too long ago', async () => {
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}/wallets`, { wallets: ['GOOGLE_PAY', 'APPLE_PAY'] });
    const o = await createOrder(m, { amount: 500, expires_in: 86400 });
    const { token } = await googleToken(m);
    const { paymentData } = await appleToken(m, 500);
    await advance(m, 2 * 3600);
    const g = await pay(m, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: token });
    expect(g.status, g.raw).toBe(400);
    expect(g.body.details).toMatch(/expired/);
    const ap = await pay(m, { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: paymentData });
    expect(ap.status).toBe(400);
    expect(ap.body.details).toMatch(/expired \(signed too long ago\)/);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.transactions).toEqual([]);
  });

  it('an Apple Pay token for another amount or currency', async () => {
    const o = await createOrder(a, { amount: 1000 });
    const r = await pay(a, { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: (await appleToken(a, 1001)).paymentData });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/amount or currency/);
    const c = await pay(a, { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: (await appleToken(a, 1000, { currencyCode: '840' })).paymentData });
    expect(c.status).toBe(400);
  });

  it('malformed input: 400 naming the problem; another merchant\'s order 404; a service without the wallet 400', async () => {
    const o = await createOrder(a);
    for (const body of [
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: 'not json' },
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: '{"protocolVersion":' },
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: { hello: 'world' } },
      { order_uuid: o.uuid, wallet: 'APPLEPAY', payload: { version: 'EC_v1' } },
      { order_uuid: o.uuid, wallet: 'SAMSUNGPAY', payload: '{}' },
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: { protocolVersion: 'ECv2' }, flow: 'TV' },
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY' },
      { order_uuid: 'nope', wallet: 'GOOGLEPAY', payload: '{}' },
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: 12 },
      { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: { protocolVersion: 'ECv2', signature: 1 }, customer_ip: 'x' },
    ]) {
      const r = await pay(a, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.length).toBeGreaterThan(5);
    }
    const other = await t.merchant();
    const theirs = await createOrder(other);
    expect((await pay(a, { order_uuid: theirs.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a)).token })).status).toBe(404);
    const plain = await createOrder(other);
    const r = await pay(other, { order_uuid: plain.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(other)).token });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/does not offer Google Pay/);
    // a valid token with a bad flow or customer_ip: refused for those, naming them
    for (const [field, value] of [['flow', 'TV'], ['customer_ip', 'x']] as const) {
      const r = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a)).token, [field]: value });
      expect(r.status, r.raw).toBe(400);
      expect(r.body.details, r.raw).toMatch(new RegExp(field));
    }
    // flow: empty means absent
    const ok = await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a)).token, flow: '', customer_ip: '' });
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body.order.transactions[0].source.flow).toBe('APP');
  });

  it('production: without configured roots there is no wallet (400) and the flags are false; the sandbox token route is 404', async () => {
    const p = await t.merchant({ env: 'production' });
    const api = p.api;
    await api.put(`/service/${p.service_uuid}/wallets`, { wallets: ['GOOGLE_PAY'] });
    const res = await api.get('/client/resources');
    expect(res.status, res.raw).toBe(200);
    expect(res.body.googlePay).toEqual({ enabled: false });
    expect((await api.get('/wallets')).body.wallets.google_pay).toMatchObject({ enabled: false, roots_trusted: false, keys: [] });
    const o = await createOrder(p);
    const r = await api.post('/payment/wallet', { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a)).token });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/not configured on this gateway/);
    expect((await api.post('/sandbox-wallet/token', { wallet: 'GOOGLEPAY' })).status).toBe(404);
    expect((await api.post('/wallet/google-pay/key', {})).status).toBe(400);
  });
});

describe('what is kept', () => {
  it('no card number, device PAN or cryptogram of a wallet token is in the database', async () => {
    const o = await createOrder(a, { amount: 1234, customer_ext_id: null });
    const pan = '4000000000003055';
    const dpan = '5590337536718399';
    const cryptogram = 'Q1JZUFRPR1JBTS1TRUNSRVQ=';
    expect((await pay(a, { order_uuid: o.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a, { pan, cryptogram })).token })).status).toBe(200);
    const o2 = await createOrder(a, { amount: 1234 });
    expect((await pay(a, { order_uuid: o2.uuid, wallet: 'APPLEPAY', payload: (await appleToken(a, 1234, { pan: dpan })).paymentData })).status).toBe(200);
    // a PAN_ONLY card waiting for its 3-D Secure challenge is kept sealed, not in clear
    const pending = '4761739000091011';
    const kept = async () => (await sql<{ n: number }>`select count(*)::int as n from threeds_card_sessions`.execute(t.p.database.db)).rows[0].n;
    const before = await kept();
    const o3 = await createOrder(a, { amount: 1234, customer_ext_id: null });
    expect((await pay(a, { order_uuid: o3.uuid, wallet: 'GOOGLEPAY', payload: (await googleToken(a, { authMethod: 'PAN_ONLY', pan: pending })).token })).status).toBe(303);
    expect(await kept()).toBe(before + 1);
    const db = t.p.database.db;
    const { rows: tables } = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    for (const { table_name } of tables) {
      const { rows } = await sql<{ j: string }>`select row_to_json(x)::text as j from ${sql.table(table_name)} x`.execute(db);
      const all = rows.map((r) => r.j).join('\n');
      expect(all, table_name).not.toContain(pan);
      expect(all, table_name).not.toContain(dpan);
      expect(all, table_name).not.toContain(cryptogram);
      expect(all, table_name).not.toContain(CRYPTOGRAM);
      expect(all, table_name).not.toContain(pending);
    }
  });
});
