/**
 * The pure parts of the Checkout.com and PayPal connectors: response codes to our errors, answers that
 * are believed only when they are about our operation, webhook signatures, PayPal's decimal amounts.
 */
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { refusalOf as checkoutRefusal } from '../../src/processors/checkout/codes.js';
import { resultOfPayment, resultOfWebhook as checkoutWebhook, verifyWebhook, webhookFacts as checkoutFacts } from '../../src/processors/checkout/mapping.js';
import { checkoutTerminalProblems } from '../../src/processors/checkout/credentials.js';
import { refusalOf as paypalRefusal } from '../../src/processors/paypal/codes.js';
import { fromValue, resultOfOrder, toValue, verificationBody } from '../../src/processors/paypal/mapping.js';
import { credentialProblems } from '../../src/processors/kit/declaration.js';
import { PAYPAL } from '../../src/processors/paypal/declaration.js';

const PAY = 'pay_abcdefghijklmnopqrstuvwxyz';

describe('Checkout.com mapping', () => {
  it('response codes become our errors; unknown codes by their class', () => {
    expect(checkoutRefusal('20051').error).toBe('INSUFFICIENT_FUNDS');
    expect(checkoutRefusal('20054').error).toBe('EXPIRED_CARD');
    expect(checkoutRefusal('30043').error).toBe('BLACKLISTED');
    expect(checkoutRefusal('20999')).toMatchObject({ error: 'DENIED', details: expect.stringContaining('20999') });
    expect(checkoutRefusal('49999').error).toBe('FRAUD_SUSPECTED');
  });

  it('an answer is believed only when it names our reference, amount and currency', () => {
    const answer = { id: PAY, reference: 'r1', amount: 1000, currency: 'EUR', approved: true, status: 'Captured', response_code: '10000', auth_code: '123456', scheme_id: '123' };
    expect(resultOfPayment(answer, { reference: 'r1', amount: 1000, currency: 'EUR' }, 'payment').result).toMatchObject({ outcome: 'APPROVED', processorId: PAY, authorization: '123456', cofTxnid: '123' });
    expect(resultOfPayment({ ...answer, amount: 1001 }, { reference: 'r1', amount: 1000, currency: 'EUR' }, 'payment').result.outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...answer, reference: 'r2' }, { reference: 'r1', amount: 1000, currency: 'EUR' }, 'payment').result.outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...answer, approved: false, status: 'Declined', response_code: '20154' }, { reference: 'r1', amount: 1000, currency: 'EUR' }, 'payment').result.outcome).toBe('CHALLENGE');
    expect(resultOfPayment({ ...answer, approved: false, status: 'Declined', response_code: '20005' }, { reference: 'r1', amount: 1000, currency: 'EUR' }, 'payment').result).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
  });

  it('Cko-Signature: the hex HMAC-SHA256 of the raw body under the webhook key, compared exactly', () => {
    const body = '{"id":"evt_1","type":"payment_approved","data":{"id":"pay_1"}}';
    const sig = createHmac('sha256', 'key-0123456789abcdef').update(body).digest('hex');
    expect(verifyWebhook(body, sig, 'key-0123456789abcdef')).toBe(true);
    expect(verifyWebhook(body, sig.toUpperCase(), 'key-0123456789abcdef')).toBe(true);
    expect(verifyWebhook(`${body} `, sig, 'key-0123456789abcdef')).toBe(false);
    expect(verifyWebhook(body, sig, 'another-key-0123456789')).toBe(false);
    expect(verifyWebhook(body, undefined, 'key-0123456789abcdef')).toBe(false);
  });

  it('a webhook settles only an operation of its kind, amount and currency', () => {
    const f = checkoutFacts({ id: 'evt_1', type: 'payment_refunded', data: { id: PAY, action_id: 'act_1', amount: 300, currency: 'EUR', reference: 'r3' } })!;
    expect(checkoutWebhook(f, { kind: 'refund', amount: 300, currency: 'EUR', paymentId: PAY })).toMatchObject({ outcome: 'APPROVED', amount: 300 });
    expect(checkoutWebhook(f, { kind: 'refund', amount: 400, currency: 'EUR', paymentId: PAY })).toBeNull();
    expect(checkoutWebhook(f, { kind: 'capture', amount: 300, currency: 'EUR', paymentId: PAY })).toBeNull();
  });

  it('production terminal credentials in Checkout.com\'s formats', () => {
    expect(checkoutTerminalProblems({ secret_key: 'sk_sbox_abcdefgh123', processing_channel_id: 'pc_abcdefghijklmnopqrstuvwxyz', webhook_signature_key: '0123456789abcdef' })).toEqual([]);
    expect(checkoutTerminalProblems({ secret_key: 'pk_abc', processing_channel_id: 'pc_x', webhook_signature_key: 'short' })).toHaveLength(3);
  });
});

describe('PayPal mapping', () => {
  it('amounts as PayPal\'s decimal strings, by the currency\'s minor units', () => {
    expect(toValue(1000, 'EUR')).toBe('10.00');
    expect(toValue(5, 'EUR')).toBe('0.05');
    expect(toValue(1000, 'JPY')).toBe('1000');
    expect(fromValue('10.00', 'EUR')).toBe(1000);
    expect(fromValue('0.5', 'EUR')).toBe(50);
    expect(fromValue('10.001', 'EUR')).toBeNull();
    expect(fromValue(10, 'EUR')).toBeNull();
  });

  it('codes become our errors', () => {
    expect(paypalRefusal('5120').error).toBe('INSUFFICIENT_FUNDS');
    expect(paypalRefusal('9520').error).toBe('BLACKLISTED');
    expect(paypalRefusal('ZZZZ')).toMatchObject({ error: 'DENIED', details: 'PayPal ZZZZ: Declined' });
  });

  it('an order\'s capture is believed only for our order, reference, amount and currency', () => {
    const order = (capture: Record<string, unknown>) => ({ id: 'ORDER1234567', status: 'COMPLETED', purchase_units: [{ custom_id: 'r1', payments: { captures: [{ id: 'CAP123', status: 'COMPLETED', amount: { currency_code: 'EUR', value: '10.00' }, custom_id: 'r1', processor_response: { response_code: '0000' }, ...capture }] } }] });
    const x = { orderId: 'ORDER1234567', reference: 'r1', amount: 1000, currency: 'EUR' };
    expect(resultOfOrder(order({}), x, 'CAPTURE').result).toMatchObject({ outcome: 'APPROVED', processorId: 'CAP123' });
    expect(resultOfOrder(order({ amount: { currency_code: 'EUR', value: '10.01' } }), x, 'CAPTURE').result.outcome).toBe('UNKNOWN');
    expect(resultOfOrder(order({}), { ...x, orderId: 'OTHER1234567' }, 'CAPTURE').result.outcome).toBe('UNKNOWN');
    expect(resultOfOrder(order({ status: 'DECLINED', processor_response: { response_code: '5120' } }), x, 'CAPTURE').result).toMatchObject({ outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS' });
    expect(resultOfOrder({ id: 'ORDER1234567', status: 'PAYER_ACTION_REQUIRED' }, x, 'CAPTURE').result.outcome).toBe('CHALLENGE');
  });

  it('reads a captured order of the recorded shape: custom_id only on the purchase unit, the capture without a processor response', () => {
    const recorded = {
      id: '1XA51906JG010741Y', intent: 'CAPTURE', status: 'COMPLETED',
      purchase_units: [{ reference_id: 'default', custom_id: 'r9', payments: { captures: [{ id: '0U293071RJ7793647', status: 'COMPLETED', amount: { currency_code: 'MXN', value: '1000.00' }, final_capture: true, seller_protection: { status: 'ELIGIBLE' }, create_time: '2021-06-11T15:05:04Z' }] } }],
      links: [{ href: 'https://api.sandbox.paypal.com/v2/checkout/orders/1XA51906JG010741Y', rel: 'self', method: 'GET' }],
    };
    expect(resultOfOrder(recorded, { orderId: '1XA51906JG010741Y', reference: 'r9', amount: 100000, currency: 'MXN' }, 'CAPTURE')).toMatchObject({ paymentId: '0U293071RJ7793647', result: { outcome: 'APPROVED', processorId: '0U293071RJ7793647', amount: 100000 } });
    expect(resultOfOrder(recorded, { orderId: '1XA51906JG010741Y', reference: 'other', amount: 100000, currency: 'MXN' }, 'CAPTURE').result.outcome).toBe('UNKNOWN');
  });

  it('the verification call carries the event exactly as received', () => {
    const raw = '{"id":"WH-1",  "event_type":"PAYMENT.CAPTURE.COMPLETED","resource":{"id":"C1"}}';
    const headers = { 'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': 'https://api.paypal.com/cert', 'paypal-transmission-id': 't1', 'paypal-transmission-sig': 's', 'paypal-transmission-time': '2026-01-01T00:00:00Z' };
    const body = verificationBody(headers, 'WEBHOOK1', raw);
    expect(body.endsWith(`"webhook_event":${raw}}`)).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ auth_algo: 'SHA256withRSA', transmission_id: 't1', webhook_id: 'WEBHOOK1', webhook_event: { id: 'WH-1' } });
  });

  it('production terminal credentials', () => {
    expect(credentialProblems(PAYPAL.credentials, null, { client_id: 'AbCdEfGhIjKlMnOpQr', client_secret: 'x', webhook_id: '8PT597110X687430LKGECATA' })).toEqual([]);
    expect(credentialProblems(PAYPAL.credentials, null, { client_id: 'short' })).toEqual([expect.stringContaining('client_secret, webhook_id'), expect.stringContaining('client_id')]);
  });
});
