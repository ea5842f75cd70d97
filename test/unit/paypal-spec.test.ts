/**
 * The PayPal connector's pure mapping held to PayPal's reference (src/processors/paypal/spec.ts): every
 * request body it builds, scenario by scenario, is one the reference allows; documented example answers
 * (PayPal's pages, re-typed) validate against the answer schemas and read as the connector must read
 * them; PayPal's currency decimals and its table of 3-D Secure recommended actions.
 */
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { PAYPAL_SPEC } from '../../src/processors/paypal/spec.js';
import { amountProblem, fromPaypalValue, smallestAmount, toPaypalValue } from '../../src/processors/paypal/currencies.js';
import {
  authenticationOf,
  cardNetwork,
  cardPaymentSource,
  followUpBody,
  followUpInOrder,
  orderBody,
  resultOfOrder,
  resultOfWebhook,
  threedsDecision,
  verificationBody,
  webhookFacts,
  withRedirect,
  type CardSourceOptions,
} from '../../src/processors/paypal/mapping.js';
import { Secret } from '../../src/platform/security/secret.js';

const spec = new SpecChecker(PAYPAL_SPEC);
const card = (pan = '4111111111111111', cvv: string | null = '123') => ({ pan: new Secret(pan), expiryMonth: 12, expiryYear: 2030, cvv: cvv ? new Secret(cvv) : null, holder: 'Ana Pérez' });
const mc = { id: '123456789012345', network: 'MASTERCARD', date: '1207' };
const visa = { id: '483297487231504', network: 'VISA', date: null };

describe('PayPal requests against the reference', () => {
  it('orders: every currency and intent, card payments and a PayPal account\'s', () => {
    for (const [amount, currency, value] of [[1000, 'EUR', '10.00'], [150000, 'HUF', '1500'], [1500, 'JPY', '1500'], [30000, 'TWD', '300'], [5, 'USD', '0.05']] as const) {
      for (const intent of ['CAPTURE', 'AUTHORIZE'] as const) {
        const body = orderBody('6f1c2a4e-1d2b-4c3d-9e8f-0a1b2c3d4e5f', amount, currency, intent, { description: 'd'.repeat(200) });
        expect((body.purchase_units as Array<{ amount: unknown }>)[0].amount).toEqual({ currency_code: currency, value });
        expect(spec.request('orders.create', body), `${currency} ${intent}`).toEqual([]);
      }
    }
    const wallet = orderBody('r1', 2599, 'EUR', 'CAPTURE', { paypal: { returnUrl: 'https://gw.example/v1/payment/process/t', cancelUrl: 'https://gw.example/v1/payment/process/t' } });
    expect(spec.request('orders.create', wallet)).toEqual([]);
  });

  it('captures and authorizations of an order with the card, scenario by scenario', () => {
    const scenarios: Array<[string, CardSourceOptions, string | null]> = [
      ['a customer payment', { channel: 'ECOMMERCE' }, '4111111111111111'],
      ['a customer payment that stores the card', { channel: 'ECOMMERCE', storeCredential: true }, '4111111111111111'],
      ['on the 3-D Secure page', { channel: 'ECOMMERCE', threeds: { returnUrl: 'https://gw.example/v1/payment/tokenized/t/cres' } }, '4111111111111111'],
      ['MoTo', { channel: 'MOTO' }, '4111111111111111'],
      ['MoTo storing the card', { channel: 'MOTO', storeCredential: true }, '4111111111111111'],
      ['merchant-initiated, unscheduled', { channel: 'MIT', previous: visa }, '4111111111111111'],
      ['merchant-initiated, a subscription', { channel: 'MIT', mit: 'RECURRING', previous: mc }, '5555555555554444'],
      ['merchant-initiated, an instalment', { channel: 'MIT', mit: 'INSTALMENT', previous: mc }, '5555555555554444'],
      ['merchant-initiated without a reference', { channel: 'MIT', mit: null }, '4111111111111111'],
    ];
    for (const [name, o, pan] of scenarios) {
      const body = { payment_source: cardPaymentSource(card(pan!), o) };
      expect(spec.request('orders.capture', body), name).toEqual([]);
      expect(spec.request('orders.authorize', body), name).toEqual([]);
    }
    // after 3-D Secure: the same call with an empty body
    expect(spec.request('orders.capture', {})).toEqual([]);
  });

  it('MoTo is customer-initiated, verified by AVS/CVV; merchant-initiated payments carry no security code and name their schedule; FIRST when the card is stored', () => {
    const moto = cardPaymentSource(card(), { channel: 'MOTO' }).card as Record<string, unknown>;
    expect(moto).toMatchObject({ security_code: '123', attributes: { verification: { method: 'AVS_CVV' } } });
    expect(moto.stored_credential).toBeUndefined();
    expect((cardPaymentSource(card(), { channel: 'MOTO', storeCredential: true }).card as Record<string, unknown>).stored_credential).toEqual({ payment_initiator: 'CUSTOMER', payment_type: 'UNSCHEDULED', usage: 'FIRST' });
    expect((cardPaymentSource(card(), { channel: 'ECOMMERCE', storeCredential: true }).card as Record<string, unknown>).stored_credential).toEqual({ payment_initiator: 'CUSTOMER', payment_type: 'UNSCHEDULED', usage: 'FIRST' });
    expect((cardPaymentSource(card(), { channel: 'ECOMMERCE' }).card as Record<string, unknown>).stored_credential).toBeUndefined();
    const sub = cardPaymentSource(card('5555555555554444'), { channel: 'MIT', mit: 'RECURRING', previous: mc }).card as Record<string, unknown>;
    expect(sub.security_code).toBeUndefined();
    expect(sub.stored_credential).toEqual({ payment_initiator: 'MERCHANT', payment_type: 'RECURRING', usage: 'SUBSEQUENT', previous_network_transaction_reference: mc });
    for (const mit of [undefined, null, 'UNSCHEDULED'] as const) {
      expect(((cardPaymentSource(card(), { channel: 'MIT', mit, previous: visa }).card as Record<string, unknown>).stored_credential as Record<string, unknown>).payment_type).toBe('UNSCHEDULED');
    }
    expect(cardNetwork('5555555555554444')).toBe('MASTERCARD');
    expect(cardNetwork('4111111111111111')).toBe('VISA');
    expect(cardNetwork('378282246310005')).toBe('AMEX');
  });

  it('what PayPal refuses is refused by the reference: MERCHANT with ONE_TIME or a security code, a Mastercard reference without its date, decimals in HUF, a custom_id on a capture', () => {
    const capture = (c: Record<string, unknown>) => spec.request('orders.capture', { payment_source: { card: { number: '4111111111111111', expiry: '2030-12', ...c } } });
    expect(capture({ stored_credential: { payment_initiator: 'MERCHANT', payment_type: 'ONE_TIME', usage: 'DERIVED' } })).not.toEqual([]);
    expect(capture({ security_code: '123', stored_credential: { payment_initiator: 'MERCHANT', payment_type: 'UNSCHEDULED' } })).not.toEqual([]);
    expect(capture({ stored_credential: { payment_initiator: 'MERCHANT', payment_type: 'UNSCHEDULED', previous_network_transaction_reference: { id: mc.id, network: 'MASTERCARD' } } })).not.toEqual([]);
    expect(capture({ stored_credential: { payment_initiator: 'CUSTOMER', payment_type: 'UNSCHEDULED', usage: 'FIRST', previous_network_transaction_reference: visa } })).not.toEqual([]);
    expect(spec.request('orders.create', { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'HUF', value: '1500.00' } }] })).not.toEqual([]);
    expect(spec.request('authorizations.capture', { amount: { currency_code: 'EUR', value: '6.00' }, custom_id: 'r', final_capture: true })).not.toEqual([]);
  });

  it('follow-ups: a capture of an authorization names our reference as invoice_id, a refund as custom_id; the verification call', () => {
    expect(followUpBody('capture', 'r2', 600, 'EUR')).toEqual({ amount: { currency_code: 'EUR', value: '6.00' }, invoice_id: 'r2', final_capture: true });
    expect(spec.request('authorizations.capture', followUpBody('capture', 'r2', 600, 'EUR'))).toEqual([]);
    expect(spec.request('captures.refund', followUpBody('refund', 'r3', 50000, 'HUF'))).toEqual([]);
    expect(followUpBody('refund', 'r3', 50000, 'HUF')).toMatchObject({ amount: { value: '500' } });
    expect(followUpBody('void', 'r4', 0, 'EUR')).toBeNull();
    const headers = { 'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77', 'paypal-transmission-id': '69cd13f0-d67a-11e5-baa3-778b53f4ae55', 'paypal-transmission-sig': 'lmI95Jx3Y9nhR5SJWlHVIWpg4AgFk7n9bCHSRxbrd8A9zrhdu2rMyFrmz+Zjh3s3boXB07VXCXUZy/UFzUlnGJn0wDugt7FlSvdKeIJenLRemUxYCPVoEZzg9VFNqOa48gMkvF+XTpxBeUx/kWy6B5cp7GkT2+pOowfRK7OaynuxUoKW3JcMWw272VKjLTtTAShncla7tGF+55rxyt2KNZIIqxNMJ48RDZheGU5w1npu9dZHnPgTXB9iomeVRoD8O/jhRpnKsGrDschyNdkeh81BJJMH4Ctc6lnCCquoP/GzCzz33MMsNdid7vL/NIWaCsekQpW26FpWPi/tfj8nLA==', 'paypal-transmission-time': '2016-02-18T20:01:35Z' };
    const event = '{"id":"8PT597110X687430LKGECATA","create_time":"2013-06-25T21:41:28Z","resource_type":"authorization","event_type":"PAYMENT.AUTHORIZATION.CREATED","summary":"A payment authorization was created","resource":{"id":"2DC87612EK520411B"}}';
    expect(spec.request('verify-webhook-signature.post', JSON.parse(verificationBody(headers, '1JE4291016473214C', event)))).toEqual([]);
  });
});

describe('PayPal\'s documented answers through the mapping', () => {
  it('the 3-D Secure result of an order ("3D Secure: Orders API", GET ?fields=payment_source): continue, authenticated', () => {
    const documented = { payment_source: { card: { type: 'CREDIT', brand: 'VISA', last_digits: '1111', authentication_result: { liability_shift: 'POSSIBLE', three_d_secure: { enrollment_status: 'Y', authentication_status: 'Y' } } } } };
    expect(spec.response('orders.get', 200, documented)).toEqual([]);
    const d = threedsDecision(authenticationOf(documented));
    expect(d.action).toBe('CONTINUE');
    expect(d.threeds.transStatus).toBe('Y');
  });

  it('PayPal\'s table of recommended actions (3D Secure response parameters), row by row; only liability that may shift is authenticated', () => {
    const rows: Array<[string | null, string | null, string | null, 'CONTINUE' | 'REJECT' | 'RETRY', string]> = [
      ['Y', 'Y', 'POSSIBLE', 'CONTINUE', 'Y'],
      ['Y', 'N', 'NO', 'REJECT', 'N'],
      ['Y', 'R', 'NO', 'REJECT', 'R'],
      ['Y', 'A', 'POSSIBLE', 'CONTINUE', 'A'],
      ['Y', 'U', 'UNKNOWN', 'RETRY', 'U'],
      ['Y', 'U', 'NO', 'RETRY', 'U'],
      ['Y', 'C', 'UNKNOWN', 'RETRY', 'C'],
      ['Y', null, 'NO', 'RETRY', 'U'],
      ['N', null, 'NO', 'CONTINUE', 'U'],
      ['U', null, 'NO', 'CONTINUE', 'U'],
      ['U', null, 'UNKNOWN', 'RETRY', 'U'],
      ['B', null, 'NO', 'CONTINUE', 'U'],
      [null, null, 'UNKNOWN', 'RETRY', 'U'],
    ];
    for (const [enrollment, authentication, liabilityShift, action, transStatus] of rows) {
      const d = threedsDecision({ enrollment, authentication, liabilityShift });
      expect([d.action, d.threeds.transStatus], `${enrollment} ${authentication} ${liabilityShift}`).toEqual([action, transStatus]);
    }
    // no result at all: the table's last row
    expect(threedsDecision(null).action).toBe('RETRY');
  });

  it('a captured order (PayPal\'s Orders API capture response, 24F22464WC842504J): valid; believed only with our reference', () => {
    const documented = {
      id: '24F22464WC842504J', status: 'COMPLETED',
      purchase_units: [{ reference_id: 'default', payments: { captures: [{ id: '7KY78659SG487110K', status: 'COMPLETED', amount: { currency_code: 'USD', value: '100.00' }, final_capture: true, seller_protection: { status: 'ELIGIBLE', dispute_categories: ['ITEM_NOT_RECEIVED', 'UNAUTHORIZED_TRANSACTION'] }, seller_receivable_breakdown: { gross_amount: { currency_code: 'USD', value: '100.00' }, paypal_fee: { currency_code: 'USD', value: '3.98' }, net_amount: { currency_code: 'USD', value: '96.02' } }, links: [{ href: 'https://api.sandbox.paypal.com/v2/payments/captures/7KY78659SG487110K', rel: 'self', method: 'GET' }], create_time: '2021-11-14T23:38:52Z', update_time: '2021-11-14T23:38:52Z' }] } }],
      links: [{ href: 'https://api.sandbox.paypal.com/v2/checkout/orders/24F22464WC842504J', rel: 'self', method: 'GET' }],
    };
    expect(spec.response('orders.capture', 201, documented)).toEqual([]);
    // no custom_id: not an answer about our payment
    expect(resultOfOrder(documented, { orderId: '24F22464WC842504J', reference: 'ours', amount: 10000, currency: 'USD' }, 'CAPTURE').result.outcome).toBe('UNKNOWN');
    const ours = { ...documented, purchase_units: [{ ...documented.purchase_units[0], custom_id: 'ours' }] };
    expect(resultOfOrder(ours, { orderId: '24F22464WC842504J', reference: 'ours', amount: 10000, currency: 'USD' }, 'CAPTURE')).toMatchObject({ paymentId: '7KY78659SG487110K', result: { outcome: 'APPROVED', amount: 10000 } });
  });

  it('an authorized order (PayPal\'s recurring payments module example, AUTHORIZATION-ID CREATED): valid; an authorization of ours approved', () => {
    const documented = {
      id: 'ORDER-ID', intent: 'AUTHORIZE', status: 'COMPLETED',
      purchase_units: [{ reference_id: 'default', amount: { currency_code: 'USD', value: '100.00' }, description: 'HD Premium Plan', invoice_id: 'test-invoice-id', custom_id: 'ours', payments: { authorizations: [{ status: 'CREATED', id: 'AUTHORIZATION-ID', amount: { currency_code: 'USD', value: '100.00' }, invoice_id: 'test-invoice-id', seller_protection: { status: 'ELIGIBLE' }, expiration_time: '2024-11-29T15:49:26Z', create_time: '2024-10-31T15:49:26Z', update_time: '2024-10-31T15:49:26Z' }] } }],
    };
    expect(spec.response('orders.authorize', 201, documented)).toEqual([]);
    expect(resultOfOrder(documented, { orderId: 'ORDER-ID', reference: 'ours', amount: 10000, currency: 'USD' }, 'AUTHORIZE').result).toMatchObject({ outcome: 'APPROVED', processorId: 'AUTHORIZATION-ID' });
  });

  it('PENDING captures and authorizations (capture_status, status_details.reason) are PENDING, never approved or declined', () => {
    const order = (payments: Record<string, unknown>, intent = 'CAPTURE') => ({ id: 'ORDER1234567', intent, status: 'COMPLETED', purchase_units: [{ custom_id: 'r1', amount: { currency_code: 'EUR', value: '10.00' }, payments }] });
    const pendingCapture = order({ captures: [{ id: 'CAP1234567', status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' }, amount: { currency_code: 'EUR', value: '10.00' } }] });
    expect(spec.response('orders.capture', 201, pendingCapture)).toEqual([]);
    expect(resultOfOrder(pendingCapture, { orderId: 'ORDER1234567', reference: 'r1', amount: 1000, currency: 'EUR' }, 'CAPTURE').result).toEqual({ outcome: 'PENDING', details: 'PayPal has not decided the capture yet (PENDING: PENDING_REVIEW)', processorId: 'CAP1234567' });
    const pendingAuth = order({ authorizations: [{ id: 'AUTH1234567', status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' }, amount: { currency_code: 'EUR', value: '10.00' } }] }, 'AUTHORIZE');
    expect(spec.response('orders.authorize', 201, pendingAuth)).toEqual([]);
    expect(resultOfOrder(pendingAuth, { orderId: 'ORDER1234567', reference: 'r1', amount: 1000, currency: 'EUR' }, 'AUTHORIZE').result.outcome).toBe('PENDING');
    // a refund PENDING in the order read again: not decided
    const refund = order({ refunds: [{ id: 'REF1234567', status: 'PENDING', status_details: { reason: 'ECHECK' }, amount: { currency_code: 'EUR', value: '3.00' }, custom_id: 'r9' }] });
    expect(followUpInOrder(refund, { kind: 'refund', reference: 'r9', amount: 300, currency: 'EUR', paymentId: 'CAP1' })?.outcome).toBe('PENDING');
  });

  it('webhooks: PAYMENT.CAPTURE.DENIED (the capture DECLINED) declines with the reason; PAYMENT.CAPTURE.PENDING decides nothing', () => {
    const event = (type: string, resource: Record<string, unknown>) => ({ id: 'WH-1TW85072SJ7764036-40M00902YF732543P', event_version: '1.0', create_time: '2021-03-02T02:06:09.376Z', resource_type: 'capture', resource_version: '2.0', event_type: type, summary: 's', resource });
    const capture = { id: '7NW873794T343360M', amount: { currency_code: 'MXN', value: '600.99' }, custom_id: 'r1', supplementary_data: { related_ids: { order_id: '8LY69383A1370553Y' } } };
    const denied = event('PAYMENT.CAPTURE.DENIED', { ...capture, status: 'DECLINED', status_details: { reason: 'OTHER' } });
    expect(spec.response('webhook', 'PAYMENT.CAPTURE.DENIED', denied)).toEqual([]);
    expect(resultOfWebhook(webhookFacts(denied)!, { kind: 'payment', amount: 60099, currency: 'MXN', paymentId: '7NW873794T343360M' })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'PayPal denied the capture (OTHER)' });
    const pending = event('PAYMENT.CAPTURE.PENDING', { ...capture, status: 'PENDING', status_details: { reason: 'OTHER' } });
    expect(spec.response('webhook', 'PAYMENT.CAPTURE.PENDING', pending)).toEqual([]);
    expect(resultOfWebhook(webhookFacts(pending)!, { kind: 'payment', amount: 60099, currency: 'MXN', paymentId: '7NW873794T343360M' })?.outcome).toBe('PENDING');
  });
});

describe('PayPal\'s currencies and the payer-action link', () => {
  it('HUF, JPY and TWD without decimals; HUF and TWD sent in whole units of their ISO minor units; what cannot be sent says why', () => {
    expect(toPaypalValue(150000, 'HUF')).toBe('1500');
    expect(toPaypalValue(123400, 'TWD')).toBe('1234');
    expect(toPaypalValue(1500, 'JPY')).toBe('1500');
    expect(toPaypalValue(1005, 'EUR')).toBe('10.05');
    expect(fromPaypalValue('1500', 'HUF')).toBe(150000);
    expect(fromPaypalValue('1500.00', 'HUF')).toBe(150000);
    expect(fromPaypalValue('1500.5', 'HUF')).toBeNull();
    expect(fromPaypalValue('10.05', 'EUR')).toBe(1005);
    expect(amountProblem(150050, 'HUF')).toMatch(/without decimals/);
    expect(amountProblem(100, 'KWD')).toMatch(/does not take payments in KWD/);
    expect(amountProblem(1, 'EUR')).toBeNull();
    expect(() => toPaypalValue(150050, 'HUF')).toThrow();
    expect(smallestAmount('HUF')).toBe(100);
    expect(smallestAmount('EUR')).toBe(1);
    expect(smallestAmount('JPY')).toBe(1);
  });

  it('redirect_uri appended to the payer-action link', () => {
    const link = withRedirect('https://www.paypal.com/webapps/helios?action=verify&flow=3ds&cart_id=5O190127TN364715T', 'https://gw.example/v1/payment/tokenized/t/cres');
    const u = new URL(link);
    expect(Object.fromEntries(u.searchParams)).toEqual({ action: 'verify', flow: '3ds', cart_id: '5O190127TN364715T', redirect_uri: 'https://gw.example/v1/payment/tokenized/t/cres' });
  });
});
