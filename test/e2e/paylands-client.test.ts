/**
 * The checks an existing Paylands client would run, against a freshly started `npm start` gateway
 * with the sandbox credentials it prints: PHP-style values, a 303 read by a client that follows
 * redirects, `GET /client/resources` without envelope, and the embedded card form's loader; and the
 * three flows issue 30 found broken, as those clients send them: WooCommerce's one-click payment with a
 * card listed for another customer id, Magento's retried order number, PrestaShop's relative URLs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

let g: GatewayEnv;
let gw: Gateway;
let vars: Record<string, string>;

beforeAll(async () => {
  g = await gatewayEnv({}, { migrated: true });
  gw = await startGateway(g);
  vars = printedExports(gw.stdout());
});
afterAll(async () => {
  await gw?.stop();
  await g?.cleanup();
});

const auth = () => ({ authorization: `Basic ${Buffer.from(`${vars.PAYGATE_API_KEY}:`).toString('base64')}` });

async function post(path: string, rawBody: string) {
  const res = await fetch(`${g.url}/v1/sandbox${path}`, { method: 'POST', redirect: 'follow', headers: { ...auth(), 'content-type': 'application/json' }, body: rawBody });
  return { res, body: (await res.json()) as any };
}

describe('a Paylands client against npm start', () => {
  it('PHP values, a stored card, a secure direct payment answered 303 without Location', async () => {
    // as a PHP plugin sends it: secure as an integer, a float total, an empty optional service with a currency
    const order = await post('/payment', `{"signature":"${vars.PAYGATE_SIGNATURE}","amount":${19.99 * 100},"operative":"AUTHORIZATION","secure":1,"description":"PHP","service":"","currency":"EUR","customer_ext_id":4242,"customer_ip":""}`);
    expect(order.res.status, JSON.stringify(order.body)).toBe(200);
    expect(order.body.order).toMatchObject({ amount: 1999, customer: '4242', service_uuid: vars.PAYGATE_SERVICE, ip: null });
    const card = await post('/payment-method/card', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, customer_ext_id: 4242, card_holder: 'Ana', card_pan: '4761739000091011', card_expiry_month: 12, card_expiry_year: 2030 }));
    expect(card.res.status).toBe(200);
    const direct = await post('/payment/direct', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, order_uuid: order.body.order.uuid, card_uuid: card.body.Source.uuid }));
    expect(direct.res.redirected).toBe(false);
    expect(direct.res.status).toBe(303);
    expect(direct.res.headers.get('location')).toBeNull();
    expect(direct.body).toMatchObject({ code: 303, message: 'See Other', details: order.body.order.urls['3ds_tokenized'], url: order.body.order.urls['3ds_tokenized'] });
    expect(direct.body.order.threeds_data.version).toBe('2.2.0');
    // the URL is the gateway's 3DS page
    expect((await fetch(direct.body.details)).status).toBe(200);
  });

  it('WooCommerce one-click: the card listed for the shop user pays the order named by the billing e-mail', async () => {
    // the gateway stores cards under the shop's user id; orders carry the billing e-mail as customer_ext_id
    const card = await post('/payment-method/card', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, customer_ext_id: 17, card_holder: 'Ana', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '30' }));
    expect(card.res.status, JSON.stringify(card.body)).toBe(200);
    const order = await post('/payment', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, amount: 2599, operative: 'AUTHORIZATION', secure: false, description: 'Order #1207', service: vars.PAYGATE_SERVICE, customer_ext_id: 'ana@shop.example', url_post: '', url_ok: '', url_ko: '' }));
    expect(order.res.status, JSON.stringify(order.body)).toBe(200);
    const paid = await post('/payment/direct', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, order_uuid: order.body.order.uuid, card_uuid: card.body.Source.uuid, customer_ip: '203.0.113.7' }));
    expect(paid.res.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.order.status).toBe('SUCCESS');
  });

  it('Magento: the retried order with the same reference (its order number) is a new order; a paid one holds it', async () => {
    const create = () => post('/payment', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, amount: '4900', operative: 'AUTHORIZATION', secure: '0', description: 'Magento order 000000145', service: vars.PAYGATE_SERVICE, customer_ext_id: '5', reference: '000000145' }));
    const card = await post('/payment-method/card', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, customer_ext_id: '5', card_holder: 'Ana', card_pan: '5485009949201879', card_expiry_month: '12', card_expiry_year: '30' }));
    const first = await create();
    expect(first.res.status, JSON.stringify(first.body)).toBe(200);
    const refused = await post('/payment/direct', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, order_uuid: first.body.order.uuid, card_uuid: card.body.Source.uuid }));
    expect(refused.body.order.status).toBe('REFUSED');
    // the customer tries again: Magento sends the same reference
    const retry = await create();
    expect(retry.res.status, JSON.stringify(retry.body)).toBe(200);
    const good = await post('/payment-method/card', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, customer_ext_id: '5', card_holder: 'Ana', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '30' }));
    expect((await post('/payment/direct', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, order_uuid: retry.body.order.uuid, card_uuid: good.body.Source.uuid }))).body.order.status).toBe('SUCCESS');
    expect((await create()).res.status).toBe(409);
  });

  it('PrestaShop: relative url_ok/url_ko/url_post are accepted; the notification is a failed delivery that says why', async () => {
    const order = await post('/payment', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'PrestaShop cart 88', service: vars.PAYGATE_SERVICE, customer_ext_id: '9', url_ok: 'prestashop/plugins/controllers/success.php', url_ko: 'prestashop/plugins/controllers/failure.php', url_post: 'prestashop/plugins/controllers/validation.php' }));
    expect(order.res.status, JSON.stringify(order.body)).toBe(200);
    const card = await post('/payment-method/card', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, customer_ext_id: '9', card_holder: 'Ana', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '30' }));
    expect((await post('/payment/direct', JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, order_uuid: order.body.order.uuid, card_uuid: card.body.Source.uuid }))).res.status).toBe(200);
    const events = async () => ((await (await fetch(`${g.url}/v1/sandbox/events?order_uuid=${order.body.order.uuid}`, { headers: auth() })).json()) as any).events ?? [];
    await expect.poll(async () => (await events())[0]?.status, { timeout: 20_000 }).toBe('FAILED');
    const one: any = await (await fetch(`${g.url}/v1/sandbox/event/${(await events())[0].uuid}`, { headers: auth() })).json();
    expect(one.event.deliveries[0].error).toMatch(/not sent: url_post is not an absolute http\(s\) URL/);
  });

  it('GET /client/resources has no envelope; the loader of the embedded card form is served at the root', async () => {
    const res = await fetch(`${g.url}/v1/sandbox/client/resources`, { headers: auth() });
    const body: any = await res.json();
    if ('code' in body) throw new Error(`the client would see an error: ${JSON.stringify(body)}`);
    expect(body.services.map((s: { uuid: string }) => s.uuid)).toEqual([vars.PAYGATE_SERVICE]);
    expect(body).toMatchObject({ checkouts: [], googlePay: { enabled: false }, applePay: { enabled: false } });
    const js = await fetch(`${g.url}/js/v1-iframe.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toContain('initializate');
  });
});
