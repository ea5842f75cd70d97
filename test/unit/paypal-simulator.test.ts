/**
 * The PayPal simulator held to PayPal's reference (src/processors/paypal/spec.ts), over HTTP: a request
 * PayPal would refuse is answered as PayPal answers it (400 INVALID_REQUEST, or the 422 issue PayPal
 * documents) and recorded in its ledger, which then fails `assertClean`; a card payment the issuer wants
 * authenticated is answered 422 PAYER_ACTION_REQUIRED with the payer-action link; the Payments v2 reads
 * answer what the reference describes; every answer it gave was checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaypalSimulator } from '../../src/processors/paypal/simulator/server.js';
import { PAYPAL_SIM_CARDS } from '../../src/processors/paypal/simulator/rules.js';

const APP = { id: 'AsimulatorClientId000000000000', secret: 'EsimulatorSecret00000000000000', webhookId: '3SIMULATORWEBHOOK0000000' };
let sim: PaypalSimulator;
let token = '';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${sim.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}
let n = 0;
async function order(value = '10.00', currency = 'EUR', intent = 'CAPTURE') {
  const r = await call('POST', '/v2/checkout/orders', { intent, purchase_units: [{ reference_id: 'default', custom_id: `ref-${++n}`, amount: { currency_code: currency, value } }] }, { 'paypal-request-id': `o-${n}` });
  return r;
}
const card = (extra: Record<string, unknown> = {}) => ({ payment_source: { card: { number: '4111111111111111', expiry: '2030-12', ...extra } } });

beforeAll(async () => {
  sim = new PaypalSimulator({ apps: { [APP.id]: { clientSecret: APP.secret, webhookId: APP.webhookId, webhookUrl: null } } });
  await sim.listen();
  const r = await fetch(`${sim.url}/v1/oauth2/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${APP.id}:${APP.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
  token = ((await r.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await sim.close();
});

describe('the PayPal simulator and PayPal\'s reference', () => {
  it('MERCHANT with ONE_TIME: 422 INCOMPATIBLE_PARAMETER_VALUE; MERCHANT with a security code: 422 MERCHANT_INITIATED_WITH_SECURITY_CODE; recorded', async () => {
    const o = (await order()).body;
    const oneTime = await call('POST', `/v2/checkout/orders/${o.id}/capture`, card({ stored_credential: { payment_initiator: 'MERCHANT', payment_type: 'ONE_TIME', usage: 'DERIVED' } }));
    expect(oneTime).toMatchObject({ status: 422, body: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'INCOMPATIBLE_PARAMETER_VALUE' }] } });
    const cvv = await call('POST', `/v2/checkout/orders/${o.id}/capture`, card({ security_code: '123', stored_credential: { payment_initiator: 'MERCHANT', payment_type: 'UNSCHEDULED' } }));
    expect(cvv).toMatchObject({ status: 422, body: { details: [{ issue: 'MERCHANT_INITIATED_WITH_SECURITY_CODE' }] } });
    expect(sim.spec.violations).toHaveLength(2);
    expect(sim.spec.violations[0]).toMatch(/^PayPal orders.capture request: .*payment_initiator must be equal to constant/);
    expect(() => sim.spec.assertClean()).toThrow(/2 request\(s\) or answer\(s\) the provider's reference does not allow/);
    expect(sim.spec.violations).toEqual([]);
  });

  it('decimals in HUF: 422 DECIMALS_NOT_SUPPORTED; a field the reference does not list: 400 INVALID_REQUEST naming it', async () => {
    expect(await order('1500.00', 'HUF')).toMatchObject({ status: 422, body: { details: [{ issue: 'DECIMALS_NOT_SUPPORTED' }] } });
    const o = (await order('1500', 'HUF')).body;
    expect(o.status).toBe('CREATED');
    const extra = await call('POST', `/v2/checkout/orders/${o.id}/capture`, card({ cvv: '123' }));
    expect(extra).toMatchObject({ status: 400, body: { name: 'INVALID_REQUEST', details: [{ issue: 'INVALID_PARAMETER_VALUE', location: 'body' }] } });
    expect(extra.body.details[0].description).toMatch(/additional properties \(cvv\)/);
    expect(sim.spec.violations).toHaveLength(2);
    sim.spec.violations.splice(0);
  });

  it('3-D Secure the issuer requires: 422 PAYER_ACTION_REQUIRED with the payer-action link; the order shows it; the empty capture before the cardholder acted is refused the same way', async () => {
    const o = (await order()).body;
    const r = await call('POST', `/v2/checkout/orders/${o.id}/capture`, card({ number: PAYPAL_SIM_CARDS.SOFT_DECLINE, attributes: { verification: { method: 'SCA_WHEN_REQUIRED' } } }));
    expect(r).toMatchObject({ status: 422, body: { details: [{ issue: 'PAYER_ACTION_REQUIRED' }], links: [{ rel: 'payer-action', href: `${sim.url}/sim/3ds/${o.id}`, method: 'GET' }] } });
    expect((await call('GET', `/v2/checkout/orders/${o.id}`)).body).toMatchObject({ status: 'PAYER_ACTION_REQUIRED', links: [{ rel: 'self' }, { rel: 'payer-action' }] });
    expect(await call('POST', `/v2/checkout/orders/${o.id}/capture`, {})).toMatchObject({ status: 422, body: { details: [{ issue: 'PAYER_ACTION_REQUIRED' }] } });
    // the same card verified by AVS/CVV (MoTo), or merchant-initiated: no 3-D Secure
    const moto = (await order()).body;
    expect(await call('POST', `/v2/checkout/orders/${moto.id}/capture`, card({ number: PAYPAL_SIM_CARDS.SOFT_DECLINE, security_code: '123', attributes: { verification: { method: 'AVS_CVV' } } }))).toMatchObject({ status: 201, body: { status: 'COMPLETED' } });
    expect(sim.spec.violations).toEqual([]);
  });

  it('Payments v2 reads: an authorization, its capture (our invoice_id) and the capture\'s refund, with their related ids', async () => {
    const o = (await order('10.00', 'EUR', 'AUTHORIZE')).body;
    const auth = (await call('POST', `/v2/checkout/orders/${o.id}/authorize`, card())).body.purchase_units[0].payments.authorizations[0];
    expect(auth.status).toBe('CREATED');
    const capture = await call('POST', `/v2/payments/authorizations/${auth.id}/capture`, { amount: { currency_code: 'EUR', value: '6.00' }, invoice_id: 'cap-1', final_capture: true });
    expect(capture).toMatchObject({ status: 201, body: { status: 'COMPLETED', invoice_id: 'cap-1', amount: { value: '6.00' } } });
    const refund = await call('POST', `/v2/payments/captures/${capture.body.id}/refund`, { amount: { currency_code: 'EUR', value: '2.00' }, custom_id: 'ref-1' });
    expect(refund).toMatchObject({ status: 201, body: { status: 'COMPLETED', custom_id: 'ref-1' } });
    expect(await call('GET', `/v2/payments/authorizations/${auth.id}`)).toMatchObject({ status: 200, body: { status: 'PARTIALLY_CAPTURED', supplementary_data: { related_ids: { order_id: o.id } } } });
    expect(await call('GET', `/v2/payments/captures/${capture.body.id}`)).toMatchObject({ status: 200, body: { status: 'PARTIALLY_REFUNDED', supplementary_data: { related_ids: { order_id: o.id, authorization_id: auth.id } } } });
    expect(await call('GET', `/v2/payments/refunds/${refund.body.id}`)).toMatchObject({ status: 200, body: { status: 'COMPLETED', supplementary_data: { related_ids: { capture_id: capture.body.id } } } });
    expect(await call('GET', '/v2/payments/refunds/NOSUCHREFUND000')).toMatchObject({ status: 404, body: { name: 'RESOURCE_NOT_FOUND' } });
    expect(sim.spec.violations).toEqual([]);
    expect([...sim.spec.seen.keys()].sort()).toEqual(expect.arrayContaining(['authorizations.capture', 'authorizations.get', 'captures.get', 'captures.refund', 'oauth2.token', 'orders.authorize', 'orders.capture', 'orders.create', 'orders.get', 'refunds.get']));
  });
});
