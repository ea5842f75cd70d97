/**
 * The checks an existing Paylands client would run, against a freshly started `npm start` gateway
 * with the sandbox credentials it prints: PHP-style values, a 303 read by a client that follows
 * redirects, `GET /client/resources` without envelope, and the embedded card form's loader.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

let g: GatewayEnv;
let gw: Gateway;
let vars: Record<string, string>;

beforeAll(async () => {
  g = await gatewayEnv();
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
