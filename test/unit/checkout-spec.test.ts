/**
 * The Checkout.com mapping held to Checkout.com's published reference (spec.ts): every request the
 * mapping builds, for each scenario, is one the reference allows (SpecChecker.request), and the answers
 * the reference and the official SDKs' recorded tests show (their facts re-typed here: field names,
 * types, id formats, values) read as they should: payment details by status and approval (they carry no
 * response code), a decline's code from the payment's actions, a 202 to a capture, void or refund as an
 * accepted action, the webhooks of a follow-up's decision.
 */
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { CHECKOUT_SPEC } from '../../src/processors/checkout/spec.js';
import {
  acceptedAction, actionBody, authorizationOf, declineOf, followUpInActions, paymentBody, readDetails, resultOfPayment, resultOfWebhook, webhookFacts,
} from '../../src/processors/checkout/mapping.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

const spec = new SpecChecker(CHECKOUT_SPEC);
const CHANNEL = 'pc_specs000000000000000000aa';
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

const base: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'dynamicDescriptor' | 'storeCredential' | 'mit'> = {
  reference: '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10',
  amount: 1250,
  currency: 'EUR',
  card: { pan: secret('4242424242424242'), expiryMonth: 12, expiryYear: 2030, cvv: secret('123'), holder: 'Ana Pérez' },
  channel: 'ECOMMERCE',
  threeds: null,
  dynamicDescriptor: null,
};

describe('Checkout.com requests against the reference', () => {
  const scenarios: Array<[string, Record<string, unknown>]> = [
    ['a customer payment that stores the card', paymentBody({ ...base, storeCredential: true }, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: null })],
    ['a customer payment that does not', paymentBody(base, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: null })],
    ['a pre-authorization with a dynamic descriptor', paymentBody({ ...base, dynamicDescriptor: 'SHOP*ORDER 12345678901234567890' }, { kind: 'preauth', processingChannelId: CHANNEL, previousPaymentId: null })],
    ['a card verification', paymentBody(base, { kind: 'verify', processingChannelId: CHANNEL, previousPaymentId: null })],
    ['a MoTo payment', paymentBody({ ...base, channel: 'MOTO', card: { ...base.card, cvv: null } }, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: null })],
    ['external 3-D Secure', paymentBody({ ...base, threeds: { version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: null })],
    ['3-D Secure through Checkout.com', paymentBody(base, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: null, threeds3: { successUrl: 'https://pay.example/v1/payment/tokenized/t/cres', failureUrl: 'https://pay.example/v1/payment/tokenized/t/cres' } })],
    ['a subscription charge', paymentBody({ ...base, channel: 'MIT', card: { ...base.card, cvv: null }, mit: 'RECURRING' }, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: '489341065491658' })],
    ['an instalment', paymentBody({ ...base, channel: 'MIT', mit: 'INSTALMENT' }, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: '489341065491658' })],
    ['an unscheduled charge', paymentBody({ ...base, channel: 'MIT' }, { kind: 'payment', processingChannelId: CHANNEL, previousPaymentId: '489341065491658' })],
  ];
  it.each(scenarios)('%s is a request the reference allows', (_name, body) => {
    expect(spec.request('requestAPaymentOrPayout', json(body))).toEqual([]);
  });

  it('captures, voids and refunds are requests the reference allows', () => {
    expect(spec.request('captureAPayment', actionBody('capture', base.reference, 600))).toEqual([]);
    expect(spec.request('voidAPayment', actionBody('void', base.reference, 1250))).toEqual([]);
    expect(spec.request('refundAPayment', actionBody('refund', base.reference, 300))).toEqual([]);
  });

  it('the reference is closed: a field it does not define, or a payment type it does not list, is a violation', () => {
    expect(spec.request('requestAPaymentOrPayout', { ...(json(scenarios[0][1]) as object), stored_credential: true })).toEqual([expect.stringContaining('(stored_credential)')]);
    expect(spec.request('requestAPaymentOrPayout', { ...(json(scenarios[0][1]) as object), payment_type: 'Subscription' })).toEqual([expect.stringMatching(/^\/payment_type must be equal to one of the allowed values/)]);
    expect(spec.request('voidAPayment', { reference: 'r', amount: 10 })).toEqual([expect.stringContaining('(amount)')]);
  });

  it('stored credentials: the storing payment says so, a merchant-initiated one is flagged with its kind', () => {
    const storing = scenarios[0][1];
    expect(storing).toMatchObject({ payment_type: 'Regular', merchant_initiated: false, source: { type: 'card', store_for_future_use: true } });
    expect((storing.source as Record<string, unknown>).stored).toBeUndefined();
    expect(scenarios[1][1]).toMatchObject({ merchant_initiated: false, source: { store_for_future_use: false } });
    expect(scenarios[7][1]).toMatchObject({ payment_type: 'Recurring', merchant_initiated: true, previous_payment_id: '489341065491658', source: { stored: true } });
    expect((scenarios[7][1].source as Record<string, unknown>).store_for_future_use).toBeUndefined();
    expect(scenarios[8][1]).toMatchObject({ payment_type: 'Installment', merchant_initiated: true, source: { stored: true } });
    expect(scenarios[9][1]).toMatchObject({ payment_type: 'Unscheduled', merchant_initiated: true, source: { stored: true } });
  });
});

describe('Checkout.com answers of the reference through the mapping', () => {
  // a card payment's 201 as the official Node SDK's tests record it (test/payments/requestPayment.js)
  const created = {
    id: 'pay_gjulv7byhhwerb3jyx2547xlme', action_id: 'act_t4u4g5ovx5huhk4ljrtyoo7eji', amount: 6540, currency: 'USD', approved: true, status: 'Authorized',
    auth_code: '655071', response_code: '10000', response_summary: 'Approved',
    balances: { total_authorized: 6540, total_voided: 0, available_to_void: 6540, total_captured: 0, available_to_capture: 6540, total_refunded: 0, available_to_refund: 0 },
    risk: { flagged: false },
    source: { id: 'src_d5vdj6uzrktufj7tfzqewapd6u', type: 'card', expiry_month: 7, expiry_year: 2028, scheme: 'Visa', last4: '4242', fingerprint: 'A8E3A7296143D9EFA0DBF46139A0BF3138C5A824072E88C4E0C2033AB40C9A1D', bin: '424242', card_type: 'CREDIT', card_category: 'CONSUMER', issuer_country: 'US' },
    processed_on: '2019-06-09T22:43:54Z', reference: 'ORD-5023-4E89', scheme_id: '638284745624527',
    _links: { self: { href: 'https://api.sandbox.checkout.com/payments/pay_gjulv7byhhwerb3jyx2547xlme' }, actions: { href: 'https://api.sandbox.checkout.com/payments/pay_gjulv7byhhwerb3jyx2547xlme/actions' } },
  };
  // a payment found by its reference, as the Node SDK's tests record it (test/payments/getPaymentList.js)
  const listed = {
    total_count: 1, skip: 0, limit: 10,
    data: [{
      id: 'pay_3lird6z63jpujguvaxnjyqsu4e', requested_on: '2022-11-16T11:49:05.7569066Z',
      source: { id: 'src_tau2xntwuseurnshye5fp722g4', type: 'card', expiry_month: 11, expiry_year: 2024, scheme: 'Visa', last4: '4242', fingerprint: '0418BC9FAEA9AC9630A54573D5ADEDB324F0255CE620CBA8CA62598726F3E77C', bin: '424242', card_type: 'CREDIT', card_category: 'CONSUMER', issuer_country: 'GB' },
      expires_on: '2022-12-16T11:49:05.867851Z', amount: 1000, currency: 'GBP', payment_type: 'Regular', reference: '1234', status: 'Authorized', approved: true,
      balances: { total_authorized: 1000, total_voided: 0, available_to_void: 1000, total_captured: 0, available_to_capture: 1000, total_refunded: 0, available_to_refund: 0 },
      risk: { flagged: false, score: 0 }, scheme_id: '678355673241835',
      _links: { self: { href: 'https://api.sandbox.checkout.com/payments/pay_3lird6z63jpujguvaxnjyqsu4e' }, actions: { href: 'https://api.sandbox.checkout.com/payments/pay_3lird6z63jpujguvaxnjyqsu4e/actions' } },
    }],
  };
  // a payment's actions, latest first (the reference's PaymentActionsResponse example)
  const actions = [
    { id: 'act_fd3h6evhpn3uxdoqbuu3lqnqbm', type: 'Refund', processed_on: '2018-01-20T10:30:48Z', amount: 1000, approved: true, response_code: '10000', response_summary: 'Approved' },
    { id: 'act_gefycn3jcvuupboxfmqrhk2aym', type: 'Capture', processed_on: '2018-01-17T10:30:48Z', amount: 6540, approved: true, response_code: '10000', response_summary: 'Approved', processing: { acquirer_reference_number: '24021219099007452440793', acquirer_transaction_id: '00745244079' } },
    { id: 'act_y3oqhf46pyzuxjbcn2giaqnb44', type: 'Authorization', processed_on: '2018-01-17T09:30:48Z', amount: 6540, approved: true, auth_code: '643381', response_code: '10000', response_summary: 'Approved', reference: 'ORD-5023-4E89' },
  ];
  const PAY = 'pay_y3oqhf46pyzuxjbcn2giaqnb44';

  it('the examples are answers the reference allows', () => {
    expect(spec.response('requestAPaymentOrPayout', 201, created)).toEqual([]);
    expect(spec.response('getPaymentLists', 200, listed)).toEqual([]);
    expect(spec.response('getPaymentActions', 200, actions)).toEqual([]);
  });

  it('a payment\'s 201 is read with its response code', () => {
    expect(resultOfPayment(created, { reference: 'ORD-5023-4E89', amount: 6540, currency: 'USD' }, 'preauth')).toMatchObject({
      paymentId: created.id, schemeId: '638284745624527', result: { outcome: 'APPROVED', authorization: '655071', processorId: created.id, amount: 6540, cofTxnid: '638284745624527' },
    });
  });

  it('payment details have no response code: a payment found by reference is read by status and approval', () => {
    const found = listed.data[0];
    expect(found).not.toHaveProperty('response_code');
    expect(readDetails(found, { reference: '1234', amount: 1000, currency: 'GBP' }, 'preauth')).toMatchObject({
      state: 'result', paymentId: found.id, schemeId: '678355673241835', result: { outcome: 'APPROVED', processorId: found.id, amount: 1000, cofTxnid: '678355673241835' },
    });
    // believed only for our reference, amount and currency
    expect(readDetails(found, { reference: '1234', amount: 1001, currency: 'GBP' }, 'preauth')).toMatchObject({ state: 'result', result: { outcome: 'UNKNOWN' } });
    // declined: the reason is on the payment's actions
    const declined = { ...found, status: 'Declined', approved: false };
    expect(spec.response('getPaymentDetails', 200, declined)).toEqual([]);
    expect(readDetails(declined, { reference: '1234', amount: 1000, currency: 'GBP' }, 'preauth')).toEqual({ state: 'declined', paymentId: found.id });
    const declinedActions = [{ id: 'act_juevt3h5mcjulir2t5g3wfug6u', type: 'Authorization', processed_on: '2020-01-29T11:53:40Z', amount: 1000, approved: false, response_code: '20051', response_summary: 'Insufficient Funds' }];
    expect(spec.response('getPaymentActions', 200, declinedActions)).toEqual([]);
    expect(declineOf(found.id, authorizationOf(declinedActions)!)).toMatchObject({ outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS', details: 'Checkout.com 20051: Insufficient Funds', processorId: found.id });
    // a payment waiting for 3-D Secure
    expect(readDetails({ ...found, status: 'Pending', approved: false, _links: { ...found._links, redirect: { href: 'https://3ds.example/pay' } } }, { reference: '1234', amount: 1000, currency: 'GBP' }, 'preauth')).toMatchObject({ state: 'result', result: { outcome: 'CHALLENGE' } });
  });

  it('a payment\'s details with a response code are not what the reference describes', () => {
    expect(spec.response('getPaymentDetails', 200, { ...listed.data[0], response_code: '10000' })).not.toEqual([]);
  });

  it('by its 3-D Secure session id the details carry the summary of the actions: the decline\'s code is read there', () => {
    const bySession = { ...listed.data[0], status: 'Declined', approved: false, actions: [{ id: 'act_y3oqhf46pyzuxjbcn2giaqnb44', type: 'Authorization', response_code: '20151', response_summary: 'Cardholder failed 3DS authentication' }] };
    expect(spec.response('getPaymentDetails', 200, bySession)).toEqual([]);
    expect(authorizationOf(bySession.actions)).toEqual({ code: '20151', summary: 'Cardholder failed 3DS authentication', authCode: null });
    expect(declineOf(bySession.id, authorizationOf(bySession.actions)!)).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' });
  });

  it('a 202 to a capture, void or refund is an accepted action, decided later among the payment\'s actions', () => {
    const accepted = { action_id: 'act_y3oqhf46pyzuxjbcn2giaqnb44', reference: 'ORD-5023-4E89', _links: { payment: { href: `https://api.checkout.com/payments/${PAY}` } } };
    for (const op of ['captureAPayment', 'voidAPayment', 'refundAPayment']) expect(spec.response(op, 202, accepted)).toEqual([]);
    expect(acceptedAction(accepted, 'ORD-5023-4E89')).toEqual({ actionId: 'act_y3oqhf46pyzuxjbcn2giaqnb44' });
    // the refund of the example, by its action id
    expect(followUpInActions(actions, { kind: 'refund', reference: 'any', actionId: 'act_fd3h6evhpn3uxdoqbuu3lqnqbm', amount: 1000, paymentId: PAY })).toMatchObject({ state: 'decided', result: { outcome: 'APPROVED', amount: 1000 } });
    // not listed yet: undecided; listed without a decision: undecided; declined: its code
    expect(followUpInActions(actions, { kind: 'capture', reference: 'x', actionId: 'act_aaaaaaaaaaaaaaaaaaaaaaaaaa', amount: 6540, paymentId: PAY })).toEqual({ state: 'absent' });
    expect(followUpInActions([{ ...actions[0], approved: undefined }], { kind: 'refund', reference: 'x', actionId: actions[0].id, amount: 1000, paymentId: PAY })).toEqual({ state: 'undecided' });
    expect(followUpInActions([{ ...actions[0], approved: false, response_code: '20057' }], { kind: 'refund', reference: 'x', actionId: actions[0].id, amount: 1000, paymentId: PAY })).toMatchObject({ state: 'decided', result: { outcome: 'DECLINED', error: 'DENIED' } });
    expect(followUpInActions(actions, { kind: 'refund', reference: 'x', actionId: actions[0].id, amount: 999, paymentId: PAY })).toEqual({ state: 'mismatch' });
  });

  it('the webhook of a declined refund (the documented example) refuses the refund', () => {
    const declined = {
      id: 'evt_z5w4pkadoi3u5hu5lmlklwrxla', type: 'payment_refund_declined', version: '1.0.1', created_on: '2018-04-10T08:12:14Z',
      data: { id: PAY, action_id: 'act_y3oqhf46pyzuxjbcn2giaqnb44', amount: 6540, currency: 'USD', response_code: '20120', response_summary: 'Invalid Customer/User', reference: 'ORD-5023-4E89', metadata: { coupon_code: 'NY2018', partner_id: 123989 }, processed_on: '2018-04-19T15:56:59Z' },
      _links: { self: { href: 'https://api.checkout.com/events/evt_z5w4pkadoi3u5hu5lmlklwrxla' } },
    };
    expect(spec.response('webhook', 'payment_refund_declined', declined)).toEqual([]);
    const facts = webhookFacts(declined)!;
    expect(resultOfWebhook(facts, { kind: 'refund', amount: 6540, currency: 'USD', paymentId: PAY })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'Checkout.com 20120: Invalid Customer/User' });
    expect(resultOfWebhook({ ...facts, type: 'payment_refunded' }, { kind: 'refund', amount: 6540, currency: 'USD', paymentId: PAY })).toMatchObject({ outcome: 'APPROVED', amount: 6540 });
    // a capture's decline settles a capture, not a refund
    expect(resultOfWebhook({ ...facts, type: 'payment_capture_declined' }, { kind: 'refund', amount: 6540, currency: 'USD', paymentId: PAY })).toBeNull();
  });
});
