/**
 * Bizum through Redsys, in production against the Redsys simulator: the Bizum page sends the customer to
 * Redsys's payment page (a signed form with PAYMETHODS=z), the customer pays there, Redsys's signed
 * notification to the gateway settles the payment; a refusal, a forged notification, a late one, and a
 * refund of a Bizum payment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { redsysHarness } from '../helpers/connectors.js';
import { decodeParameters } from '../../src/processors/redsys/signature.js';

const h = redsysHarness();
let t: TestApp;
let m: TestMerchant;
let base: string;
const HTTPS = { 'x-forwarded-proto': 'https' };

beforeAll(async () => {
  await h.start();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ ...h.env(), PAYGATE_PUBLIC_URL: base });
  // Redsys's notifications reach the gateway over the network
  await t.app.listen({ port, host: '127.0.0.1' });
  m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
  expect((await m.api.put(`/service/${m.service_uuid}`, { bizum_enabled: true })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await h.close();
});

const attr = (body: string, re: RegExp) => {
  const v = re.exec(body)?.[1];
  if (v === undefined) throw new Error(`not in the page: ${re}\n${body.slice(0, 2000)}`);
  return v.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
};

/** Creates an order and goes through the Bizum page to Redsys's Bizum page; returns the simulator's page. */
async function toRedsys(amount = 1500) {
  const o = (await m.api.post('/payment', { amount, operative: 'AUTHORIZATION', secure: false, description: 'bizum', service: m.service_uuid, customer_ext_id: 'bz', url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
  const page = await t.app.inject({ method: 'GET', url: `/v1/payment/bizum/${o.token}`, headers: HTTPS });
  expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
  const sent = await t.app.inject({ method: 'POST', url: `/v1/payment/bizum/${o.token}`, headers: { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ nonce: attr(page.body, /name="nonce" value="([^"]+)"/), phone: '700000000' }).toString() });
  expect(sent.statusCode, sent.body.slice(0, 300)).toBe(303);
  expect(sent.headers.location).toMatch(new RegExp(`^${base}/v1/processor/redsys/redirect/[0-9a-f-]{36}$`));
  expect((await m.api.get(`/order/${o.uuid}`)).body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
  // the gateway's page posts the signed form to Redsys's payment page
  const redirect = await t.app.inject({ method: 'GET', url: String(sent.headers.location).slice(base.length), headers: HTTPS });
  expect(redirect.statusCode).toBe(200);
  expect(attr(redirect.body, /<form method="post" action="([^"]+)" id="provider-redirect">/)).toBe(`${h.sim.url}/sis/realizarPago`);
  expect(redirect.headers['content-security-policy']).toContain(h.sim.url);
  const fields = Object.fromEntries([...redirect.body.matchAll(/<input type="hidden" name="(Ds_[A-Za-z]+)" value="([^"]+)">/g)].map((x) => [x[1], x[2]]));
  expect(decodeParameters(fields.Ds_MerchantParameters)).toMatchObject({ DS_MERCHANT_PAYMETHODS: 'z', DS_MERCHANT_TRANSACTIONTYPE: '0', DS_MERCHANT_AMOUNT: String(amount), DS_MERCHANT_MERCHANTURL: `${base}/v1/processor/redsys/notification` });
  const redsysPage = await (await fetch(`${h.sim.url}/sis/realizarPago`, { method: 'POST', body: new URLSearchParams(fields) })).text();
  return { o, session: attr(redsysPage, /name="session" value="([^"]+)"/) };
}

const pay = (session: string, phone: string, action = 'pay') => fetch(`${h.sim.url}/sim/bizum`, { method: 'POST', body: new URLSearchParams({ session, phone, action }), redirect: 'manual' });

describe('Bizum through Redsys', () => {
  it('paid on Redsys\'s page: the signed notification settles the payment; the customer comes back to the gateway', async () => {
    const { o, session } = await toRedsys();
    const back = await pay(session, '700000000');
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`${base}/v1/payment/process/${o.token}`);
    const n = h.sim.notifications.at(-1)!;
    expect(n).toMatchObject({ url: `${base}/v1/processor/redsys/notification`, status: 200 });
    const after = (await m.api.get(`/order/${o.uuid}`)).body.order;
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(after.transactions).toHaveLength(1);
    expect(after.transactions[0]).toMatchObject({ status: 'SUCCESS', amount: 1500 });
    expect(after.transactions[0].processor_id).toMatch(/^\d{4}[0-9A-Za-z]{8}$/);
    expect(after.transactions[0].source).toMatchObject({ object: 'BIZUM' });
    // a late copy of the notification changes nothing
    await h.sim.renotify('999008881', '001', after.transactions[0].processor_id, n.url);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.transactions).toHaveLength(1);
    // a refund of a Bizum payment goes to Redsys under its order number, like a card's
    const refund = await m.api.post('/payment/refund', { order_uuid: o.uuid, amount: 500 });
    expect(refund.status, refund.raw).toBe(200);
    expect(refund.body.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 500 });
    expect(h.sim.order('999008881', '001', after.transactions[0].processor_id)).toMatchObject({ refunded: 500 });
  });

  it('refused on Redsys\'s page: REFUSED, payable again', async () => {
    const { o, session } = await toRedsys(900);
    await pay(session, '700000001');
    const after = (await m.api.get(`/order/${o.uuid}`)).body.order;
    expect(after.status).toBe('REFUSED');
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
  });

  it('a notification that does not verify settles nothing', async () => {
    const { o, session } = await toRedsys(700);
    // the customer pays, but the notification that arrives is forged (parameters changed after signing)
    const realNotify = h.sim.notifications.length;
    const forged = async (fields: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/v1/processor/redsys/notification', headers: { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
    const op = (await t.p.database.db.selectFrom('redsys_operations').selectAll().where('amount', '=', 700).executeTakeFirstOrThrow());
    const params = Buffer.from(JSON.stringify({ Ds_Order: op.order_number, Ds_MerchantCode: '999008881', Ds_Terminal: '1', Ds_TransactionType: '0', Ds_Response: '0000', Ds_Amount: '700', Ds_Currency: '978', Ds_AuthorisationCode: '123456' })).toString('base64url');
    const r = await forged({ Ds_SignatureVersion: 'HMAC_SHA256_V1', Ds_MerchantParameters: params, Ds_Signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' });
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('ignored');
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    expect((await forged({ x: 'y' })).body).toContain('ignored');
    // the real one then settles it
    await pay(session, '700000000', 'refuse');
    expect(h.sim.notifications.length).toBe(realNotify + 1);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order).toMatchObject({ status: 'REFUSED' });
  });
});
