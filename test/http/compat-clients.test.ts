/**
 * Existing clients' flows (issue 30 items 1-3) and url_post judged at creation (issue 31 item 8):
 * - B10 with a stored card of another customer of the same merchant pays (WooCommerce one-click);
 *   another merchant's card stays 404;
 * - a reference is held only while an order with it is paid, being paid or held (Magento retries);
 * - relative url_ok / url_ko / url_post are stored as sent: the page shows its own result, the
 *   notification is a failed delivery that says why and is never sent;
 * - a production url_post to an internal address is 400 at creation, naming the rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, storeCard } from '../helpers/payments.js';
import { pagePath, payOnPage } from '../helpers/pages.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_OUTGOING_ALLOW: '', PAYGATE_PRODUCTION_SIMULATOR: 'true' });
  a = await t.merchant();
});
afterAll(async () => t?.close());

describe('B10 with a card of another customer of the merchant', () => {
  it('pays; another merchant\'s card is 404', async () => {
    // WooCommerce: the card listed for the shop user 17, the order names the billing e-mail
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, '17');
    const o = await createOrder(a, { customer_ext_id: 'ana@shop.example' });
    const r = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    const b = await t.merchant();
    const theirs = await storeCard(t, b, TEST_CARDS.APPROVED, 'ana@shop.example');
    const o2 = await createOrder(a, { customer_ext_id: 'ana@shop.example' });
    const other = await a.api.post('/payment/direct', { order_uuid: o2.uuid, card_uuid: theirs });
    expect(other.status, other.raw).toBe(404);
  });
});

describe('a reference is held while an order with it is paid, being paid or held', () => {
  it('a retry of an order never paid is a new order; once one is paid the next is 409', async () => {
    const card = await storeCard(t, a);
    const first = await createOrder(a, { reference: '000000123' });
    // refused (a declined card), then the shop's retry with the same order number
    const declined = await storeCard(t, a, TEST_CARDS.REFUSED);
    expect((await a.api.post('/payment/direct', { order_uuid: first.uuid, card_uuid: declined })).body.order.status).toBe('REFUSED');
    const retry = await createOrder(a, { reference: '000000123' });
    expect(retry.uuid).not.toBe(first.uuid);
    // an expired one does not hold it either
    expect((await a.api.post(`/order/${first.uuid}/expire`, {})).status).toBeLessThan(500);
    const third = await createOrder(a, { reference: '000000123' });
    expect((await a.api.post('/payment/direct', { order_uuid: retry.uuid, card_uuid: card })).status).toBe(200);
    const after = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, reference: '000000123' });
    expect(after.status, after.raw).toBe(409);
    expect(after.body.details).toContain(`The order ${retry.uuid} with reference "000000123" is SUCCESS`);
    // an order created before the first was paid cannot be paid now: 409, not charged
    const late = await a.api.post('/payment/direct', { order_uuid: third.uuid, card_uuid: card });
    expect(late.status, late.raw).toBe(409);
    expect(late.body.details).toMatch(/same reference is paid, being paid or held/);
    const row = await t.p.database.db.selectFrom('orders').select(['status', 'paid']).where('id', '=', third.uuid).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'CREATED', paid: false });
    const txs = await t.p.database.db.selectFrom('transactions').select('id').where('order_id', '=', third.uuid).execute();
    expect(txs).toHaveLength(0);
  });

  it('a held pre-authorization (PENDING_CONFIRMATION) holds the reference', async () => {
    const card = await storeCard(t, a);
    const o = await createOrder(a, { reference: 'held-1', operative: 'DEFERRED' });
    expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card })).body.order.status).toBe('PENDING_CONFIRMATION');
    const again = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, reference: 'held-1' });
    expect(again.status).toBe(409);
  });
});

describe('relative merchant URLs (PrestaShop)', () => {
  const REL = { url_ok: 'prestashop/plugins/controllers/success.php', url_ko: 'prestashop/plugins/controllers/failure.php', url_post: 'prestashop/plugins/controllers/notify.php', customer_ext_id: null };

  it('are stored as sent; the page shows its own result; the notification fails with the reason, never sent', async () => {
    const o = await createOrder(a, REL);
    const row = await t.p.database.db.selectFrom('orders').select(['url_post', 'url_ok', 'url_ko']).where('id', '=', o.uuid).executeTakeFirstOrThrow();
    expect(row).toEqual({ url_post: REL.url_post, url_ok: REL.url_ok, url_ko: REL.url_ko });
    const paid = await payOnPage(t, `${pagePath(o)}?lang=en`, { number: TEST_CARDS.APPROVED });
    expect(paid.statusCode).toBe(303);
    // the gateway's own result page, not the relative path
    expect(paid.headers.location).toMatch(new RegExp(`^/v1/sandbox/payment/process/${o.token}\\?.*result=ok`));
    await t.p.jobs.drain();
    const list = await a.api.get('/events', { order_uuid: o.uuid });
    expect(list.status, list.raw).toBe(200);
    const e = (await a.api.get(`/event/${list.body.events[0].uuid}`)).body.event;
    expect(e.status).toBe('FAILED');
    expect(e.deliveries).toHaveLength(1);
    expect(e.deliveries[0]).toMatchObject({ http_status: null });
    expect(e.deliveries[0].error).toMatch(/not sent: url_post is not an absolute http\(s\) URL/);
  });

  it('a refused payment goes to the page\'s own result, not to the relative url_ko', async () => {
    const o = await createOrder(a, REL);
    const refused = await payOnPage(t, `${pagePath(o)}?lang=en`, { number: TEST_CARDS.REFUSED });
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toMatch(/result=ko/);
  });

  it('another scheme is still 400', async () => {
    const r = await a.api.post('/payment', { amount: 1, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, url_ok: 'javascript:alert(1)' });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/url_ok must be an http\(s\) URL/);
  });
});

describe('a production url_post is judged at creation with the delivery rules', () => {
  it('internal addresses are 400 naming the rule; a public one is accepted', async () => {
    const m = await t.merchant({ env: 'production' });
    for (const url of ['http://127.0.0.1:8080/notify', 'http://localhost/notify', 'http://10.1.2.3/n', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/n']) {
      const r = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: m.service_uuid, url_post: url });
      expect(r.status, `${url}: ${r.raw}`).toBe(400);
      expect(r.body.details).toMatch(/url_post must reach a public address/);
      expect(r.body.details).toMatch(/PAYGATE_OUTGOING_ALLOW/);
    }
    const ok = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: m.service_uuid, url_post: 'http://93.184.215.14/notify' });
    expect(ok.status, ok.raw).toBe(200);
    // sandbox keeps judging at delivery (a developer's machine)
    const s = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, url_post: 'http://127.0.0.1:8080/notify' });
    expect(s.status).toBe(200);
  });

  it('the card storage notification (F1 url_post) follows the same rule', async () => {
    const m = await t.merchant({ env: 'production' });
    const card = { customer_ext_id: 'c-1', card_holder: 'Ana', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30' };
    const r = await m.api.post('/payment-method/card', { ...card, url_post: 'http://192.168.1.20/cards' });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/^url_post must reach a public address.*this one is private/);
    const ok = await m.api.post('/payment-method/card', { ...card, url_post: 'http://93.184.215.14/cards' });
    expect(ok.status, ok.raw).toBe(200);
  });

  it('batch files and campaign files judge URL_POST the same way, per line (422, nothing queued)', async () => {
    const m = await t.merchant({ env: 'production', isPci: true });
    const card = await storeCard(t, m);
    const b64 = (s: string) => `data:text/csv;base64,${Buffer.from(s).toString('base64')}`;
    const batch = await m.api.post('/batch/authorizations', { data: b64(`AMOUNT,CARD,SERVICE,URL_POST\n700,${card},${m.service_uuid},http://93.184.215.14/n\n800,${card},${m.service_uuid},http://10.0.0.7/n\n`), filename: 'fees.csv' });
    expect(batch.status, batch.raw).toBe(422);
    expect(batch.body.errors).toEqual([{ line: 3, msg: expect.stringMatching(/^URL_POST must reach a public address.*this one is private/) }]);
    const expires = new Date(Date.now() + 5 * 86400_000).toISOString().slice(0, 10);
    const campaign = await m.api.post('/moto/campaign/file', { description: 'x', expires_at: expires, service_uuid: m.service_uuid, subject: 'Invoices', type: 'MAIL', file: b64('AMOUNT,OPERATIVE,DESTINATION,URL_POST\n100,AUTHORIZATION,ana@example.com,http://127.0.0.1:9000/n\n'), filename: 'a.csv' });
    expect(campaign.status, campaign.raw).toBe(422);
    expect(campaign.body.errors[0]).toMatchObject({ line: 2, msg: expect.stringMatching(/^URL_POST must reach a public address.*loopback/) });
  });

  it('a subscription product\'s notification_url follows the same rule', async () => {
    const m = await t.merchant({ env: 'production' });
    const r = await m.api.post('/subscriptions/product', { name: 'Yoga', external_id: 'yoga', notification_url: 'http://169.254.169.254/n' });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/^notification_url must reach a public address.*linkLocal/);
    expect((await m.api.post('/subscriptions/product', { name: 'Yoga', external_id: 'yoga', notification_url: 'https://93.184.215.14/n' })).status).toBe(200);
  });

  it('an address the operator allowed is accepted', async () => {
    const t2 = await createTestApp({ PAYGATE_OUTGOING_ALLOW: '10.1.2.3', PAYGATE_PRODUCTION_SIMULATOR: 'true' });
    try {
      const m = await t2.merchant({ env: 'production' });
      const r = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: m.service_uuid, url_post: 'http://10.1.2.3/n' });
      expect(r.status, r.raw).toBe(200);
    } finally {
      await t2.close();
    }
  });
});
