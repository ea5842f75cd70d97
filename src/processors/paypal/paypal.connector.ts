/**
 * The PayPal connector (PAYPAL services and the PAYPAL APM), on Orders v2: the IO around the pure
 * mapping (mapping.ts). A card payment is two calls: the order is created (no money moves) and its id
 * recorded, then the order is captured (AUTHORIZATION) or authorized (DEFERRED) with the card as its
 * payment source. So an answer that does not come is always found again: the reconciler reads the
 * order (`GET /v2/checkout/orders/{id}`), which shows every capture, authorization and refund; an order
 * never captured moved no money. A buyer's PayPal account pays by redirect: the order is created with
 * the buyer's return URLs, the buyer approves on PayPal (its `payer-action` page), PayPal's webhook
 * (CHECKOUT.ORDER.APPROVED) reaches the gateway and the connector captures the order.
 *
 * Every request carries our reference as `PayPal-Request-Id` (a request sent twice is processed once)
 * and as `custom_id` (`invoice_id` for a capture of an authorization, whose request has no custom_id);
 * answers (not signed) are believed only when they name our order, reference, amount and currency.
 * Webhooks are verified through PayPal's verify-webhook-signature call, with the event as received,
 * before anything in them is used, and recorded once by event id.
 *
 * 3-D Secure: a card payment PayPal answers 422 PAYER_ACTION_REQUIRED is a CHALLENGE; the gateway's 3-D
 * Secure page sends the cardholder to the order's `payer-action` link (with `redirect_uri` back to the
 * page); back from it, the order's `authentication_result` decides by PayPal's table of recommended
 * actions whether the order is captured (or authorized) at all, and how the payment is recorded. A
 * capture, authorization or refund PENDING at PayPal is PENDING here until its webhook
 * (PAYMENT.CAPTURE.COMPLETED / DENIED) or the order read again decides it. Amounts are sent in PayPal's
 * decimals of the currency (currencies.ts); one PayPal cannot take is refused before anything is sent.
 *
 * Why not the official `@paypal/paypal-server-sdk`: it makes its own HTTP calls (axios) outside the
 * gateway's outgoing client (allowed hosts, deadlines, answer size cap), and it has no call for the
 * webhook verification; the part of the API used here is a handful of JSON calls.
 */
import type { AcquirerThreeDS, ApmCompleteRequest, ThreeDSPayment, ApmStartRequest, ApmStartResult, AuthenticateRequest, AuthenticationResult, ThreeDSResult, Connector, FollowUpRequest, LookupRequest, LookupResult, NotificationResult, PaymentRequest, PayoutRequest, ProcessorResult, ProviderForm, VerifyCardRequest, VerifyCardResult } from '../connector.js';
import type { PaypalTerminal } from './credentials.js';
import { smallestAmount } from './currencies.js';
import type { PaypalOperation } from './ledger.js';
import { parseObject } from '../kit/http.js';
import { cardPresentRefused, declined, ignored, noAnswer, notBelieved, notJson, payoutNotOffered, terminalOfRecord, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';
import { authenticationOf, cardNetwork, cardPaymentSource, EVENT_KINDS, followUpBody, followUpInOrder, issuesOf, orderBody, payerActionOf, resultOfAction, resultOfOrder, resultOfWebhook, threedsDecision, TRANSMISSION_HEADERS, verificationBody, webhookFacts, withRedirect, type NetworkReference } from './mapping.js';
import { PaypalCalls } from './paypal.calls.js';

export { PAYPAL_PRODUCTION_URL, PAYPAL_SANDBOX_URL, type PaypalConnectorOptions } from './paypal.calls.js';

export class PaypalConnector extends PaypalCalls implements Connector {
  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('PayPal');
    const intent = kind === 'payment' ? 'CAPTURE' : 'AUTHORIZE';
    const amount = kind === 'verify' ? smallestAmount(req.currency) : req.amount;
    const refused = this.notSendable(amount, req.currency);
    if (refused) return refused;
    const t = await this.terminal(req.terminal);
    const recorded = await this.record({ reference: req.reference, kind, amount, currency: req.currency, clientId: t.clientId, orderId: null, paymentId: null, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    // 1. the order: no money moves
    const ordered = await this.order(t, recorded, intent);
    if ('result' in ordered) return ordered.result;
    const op = ordered.op;
    // 2. the money: capture or authorize the order with the card
    const pan = req.card.pan.reveal().replace(/\s+/g, '');
    const fingerprint = this.deps.fingerprint(pan);
    const network = cardNetwork(pan);
    const previous = req.channel === 'MIT' ? await this.previous(t.clientId, fingerprint, req.cofTxnid, network) : null;
    const source = cardPaymentSource(req.card, { channel: req.channel, storeCredential: req.storeCredential, mit: req.mit, previous });
    const sent = await this.call(t, 'POST', `/v2/checkout/orders/${op.orderId}/${intent === 'CAPTURE' ? 'capture' : 'authorize'}`, { payment_source: source }, req.reference);
    if (sent.kind === 'failed') return sent.result;
    if (sent.kind === 'unknown') return noAnswer(sent);
    const noAuthentication = (details: string, processorId: string | null = null): ProcessorResult => ({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: `${details}, which a ${req.channel === 'MOTO' ? 'MoTo' : 'merchant-initiated'} payment cannot go through`, processorId });
    if (sent.status === 422 && issuesOf(sent.json).includes('PAYER_ACTION_REQUIRED')) {
      // 3-D Secure first (422 PAYER_ACTION_REQUIRED with the payer-action link): the gateway's 3-D Secure page
      if (req.channel !== 'ECOMMERCE') return noAuthentication('PayPal asks for 3-D Secure (PAYER_ACTION_REQUIRED)');
      return { outcome: 'CHALLENGE', details: 'PayPal asks for 3-D Secure authentication (422 PAYER_ACTION_REQUIRED)' };
    }
    if (sent.status !== 200 && sent.status !== 201) return this.refused(sent, 'payment');
    if (!sent.json) return notJson('PayPal');
    const f = resultOfOrder(sent.json, { orderId: op.orderId!, reference: req.reference, amount, currency: req.currency, cardNetwork: network }, intent);
    if (f.result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'paypal', { reference: req.reference }, f.result.details);
    if (f.paymentId) await this.save(req.reference, { paymentId: f.paymentId });
    if (f.result.outcome === 'CHALLENGE' && req.channel !== 'ECOMMERCE') return noAuthentication(f.result.details, f.paymentId);
    if (f.result.outcome !== 'APPROVED') return f.result;
    // the card's first network reference, which later merchant-initiated payments quote
    if (req.channel !== 'MIT' && f.network) await this.ledger.keepCof(t.clientId, fingerprint, f.network);
    if (req.channel === 'MIT') return { ...f.result, amount: req.amount, cofTxnid: previous?.id ?? req.cofTxnid ?? null };
    return { ...f.result, amount: req.amount };
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  /** PayPal approves the whole amount or nothing. */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, 'preauth');
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const t = await this.terminal(req.terminal);
    const original = await this.find(req.original.reference);
    // a refund acts on a capture: the payment's own, or the capture of a pre-authorization
    let target = original?.paymentId ?? null;
    if (kind === 'refund' && original?.kind === 'preauth' && original.paymentId) {
      const capture = (await this.operationsOf({ paymentId: original.paymentId })).find((o) => o.kind === 'capture' && o.actionId);
      target = capture?.actionId ?? null;
    }
    if (!original || !target || !original.orderId) return declined('The payment was not made through PayPal by this gateway: no capture or authorization to refer to');
    const refused = kind === 'void' ? null : this.notSendable(req.amount, req.currency);
    if (refused) return refused;
    await this.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, clientId: original.clientId, orderId: original.orderId, paymentId: target, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
    const path = kind === 'refund' ? `/v2/payments/captures/${target}/refund` : `/v2/payments/authorizations/${target}/${kind}`;
    const body = followUpBody(kind, req.reference, req.amount, req.currency);
    const sent = await this.call(t, 'POST', path, body, req.reference);
    if (sent.kind === 'failed') return sent.result;
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (kind === 'void') {
      if (sent.status === 204 || (sent.status === 200 && sent.json?.status === 'VOIDED')) return { outcome: 'APPROVED', authorization: target, processorId: target, amount: req.amount };
      if (sent.status === 200) return unknown('PayPal answered the void without VOIDED');
      return this.refused(sent, 'void');
    }
    if (sent.status !== 200 && sent.status !== 201) return this.refused(sent, kind);
    const r = sent.json ? resultOfAction(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency, paymentId: target }) : null;
    if (!r) return notBelieved(this.deps.logger, 'paypal', { reference: req.reference, kind }, `The PayPal answer to the ${kind} does not match it`, 'answer not believed; left to the reconciler');
    if (typeof sent.json?.id === 'string') await this.save(req.reference, { actionId: sent.json.id });
    if (r.outcome === 'PENDING') this.deps.logger?.info({ reference: req.reference, kind }, 'paypal: PENDING at PayPal; its webhook or the reconciler settles it');
    return r;
  }

  capture(req: FollowUpRequest) {
    return this.#followUp(req, 'capture');
  }

  cancel(req: FollowUpRequest) {
    return this.#followUp(req, 'void');
  }

  refund(req: FollowUpRequest) {
    return this.#followUp(req, 'refund');
  }

  /** Payouts to cards are not offered through Orders (PayPal Payouts pays PayPal accounts). */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('PayPal');
  }

  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.find(req.reference);
    // recorded before sending; without an order nothing could be charged
    if (!op || !op.orderId) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'PAYPAL');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const t = opened.terminal;
    const sent = await this.call(t, 'GET', `/v2/checkout/orders/${op.orderId}`, null, null);
    if (sent.kind === 'failed') return { found: 'unknown', details: sent.result.outcome === 'DECLINED' ? sent.result.details : 'no token' };
    if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
    if (sent.status !== 200 || !sent.json) return { found: 'unknown', details: `PayPal answered the order query with HTTP ${sent.status}` };
    if (op.kind === 'capture' || op.kind === 'void' || op.kind === 'refund') {
      const r = followUpInOrder(sent.json, { kind: op.kind, reference: op.reference, amount: op.amount, currency: op.currency, paymentId: op.paymentId ?? '' });
      if (!r) return { found: false };
      if (r.outcome === 'APPROVED' || r.outcome === 'DECLINED') return { found: true, result: r };
      return { found: 'unknown', details: r.outcome === 'PENDING' || r.outcome === 'UNKNOWN' || r.outcome === 'CHALLENGE' ? r.details : 'not decided' };
    }
    const intent = op.kind === 'payment' || op.kind === 'apm' ? 'CAPTURE' : 'AUTHORIZE';
    const f = resultOfOrder(sent.json, { orderId: op.orderId, reference: op.reference, amount: op.amount, currency: op.currency }, intent);
    if (f.paymentId) await this.save(op.reference, { paymentId: f.paymentId });
    if (f.result.outcome === 'APPROVED' || f.result.outcome === 'DECLINED') return { found: true, result: f.result };
    if (f.result.outcome === 'UNKNOWN' && (sent.json.status === 'CREATED' || sent.json.status === 'VOIDED')) return { found: false };
    // PENDING at PayPal, or waiting for the payer (3-D Secure, the buyer's approval): not decided yet
    return { found: 'unknown', details: f.result.outcome === 'CHALLENGE' ? 'the order waits for the payer' : f.result.details };
  }

  /**
   * 3-D Secure for card payments, driven by our hosted page (PayPal "3D Secure: Orders API"). The
   * cardholder goes to the order's `payer-action` link with `redirect_uri` back to the page: the link of
   * a payment PayPal answered 422 PAYER_ACTION_REQUIRED, or, for a payment not tried yet (a secure order),
   * of the capture (or authorization) sent with the card asking for SCA_ALWAYS. Back from PayPal (the
   * order's `token`, as `cres`), the order's authentication_result decides by PayPal's recommended
   * actions: continue (the order is captured or authorized with an empty body), do not continue, or do
   * not and have the cardholder retry; only a payment whose liability may shift is recorded as
   * authenticated.
   */
  readonly threeds: AcquirerThreeDS = {
    start: async () => ({ outcome: 'READY' }),
    authenticate: (req, _browser, urls) => this.#threedsPay(req, urls.challengeNotification),
    complete: (req, cres) => this.#threedsComplete(req, cres),
  };

  /** After a capture or authorization answered with its result: keeps the network reference, and the payment as ours. */
  async #settled(t: PaypalTerminal, req: PaymentRequest, f: { result: ProcessorResult; paymentId: string | null; network: NetworkReference | null }): Promise<ProcessorResult> {
    if (f.paymentId) await this.save(req.reference, { paymentId: f.paymentId });
    if (f.result.outcome === 'APPROVED' && f.network) await this.ledger.keepCof(t.clientId, this.fingerprintOf(req.card), f.network);
    if (f.result.outcome === 'CHALLENGE') return declined(f.result.details, 'AUTHENTICATION_FAILED', f.paymentId);
    return f.result.outcome === 'APPROVED' ? { ...f.result, amount: req.amount } : f.result;
  }

  async #threedsPay(req: PaymentRequest & { preauthorization: boolean }, back: string): Promise<ThreeDSPayment> {
    const result = (r: ProcessorResult, threeds: ThreeDSResult | null = null): ThreeDSPayment => ({ outcome: 'RESULT', result: r, threeds, flow: 'FRICTIONLESS' });
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const intent = kind === 'payment' ? 'CAPTURE' : 'AUTHORIZE';
    const refused = this.notSendable(req.amount, req.currency);
    if (refused) return result(refused);
    const t = await this.terminal(req.terminal);
    const recorded = await this.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, clientId: t.clientId, orderId: null, paymentId: null, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const challenge = (link: string): ThreeDSPayment => ({ outcome: 'ACS_CHALLENGE', acsUrl: withRedirect(link, back), creq: Buffer.from(recorded.orderId ?? '').toString('base64url'), method: 'get' });
    const network = cardNetwork(req.card.pan.reveal().replace(/\s+/g, ''));
    if (recorded.orderId) {
      // a payment PayPal asked 3-D Secure for: the order's payer-action link
      const got = await this.call(t, 'GET', `/v2/checkout/orders/${recorded.orderId}`, null, null);
      if (got.kind === 'failed') return result(got.result);
      if (got.kind === 'unknown') return result(noAnswer(got));
      if (got.status !== 200 || !got.json || got.json.id !== recorded.orderId) return result(unknown(`PayPal answered the order query with HTTP ${got.status}`));
      const link = payerActionOf(got.json);
      if (got.json.status === 'PAYER_ACTION_REQUIRED' && link) return challenge(link);
      const f = resultOfOrder(got.json, { orderId: recorded.orderId, reference: req.reference, amount: req.amount, currency: req.currency, cardNetwork: network }, intent);
      if (f.result.outcome === 'APPROVED' || f.result.outcome === 'DECLINED' || f.result.outcome === 'PENDING') return result(await this.#settled(t, req, f), threedsDecision(authenticationOf(got.json)).threeds);
      // an order with nothing charged: the card is sent asking for 3-D Secure
    }
    const ordered = await this.order(t, recorded, intent);
    if ('result' in ordered) return result(ordered.result);
    const orderId = ordered.op.orderId!;
    const source = cardPaymentSource(req.card, { channel: 'ECOMMERCE', storeCredential: req.storeCredential, threeds: { returnUrl: back } });
    const sent = await this.call(t, 'POST', `/v2/checkout/orders/${orderId}/${intent === 'CAPTURE' ? 'capture' : 'authorize'}`, { payment_source: source }, `${req.reference}-3ds`);
    if (sent.kind === 'failed') return result(sent.result);
    if (sent.kind === 'unknown') return result(noAnswer(sent));
    if (sent.status === 422 && issuesOf(sent.json).includes('PAYER_ACTION_REQUIRED')) {
      const link = sent.json ? payerActionOf(sent.json) : null;
      if (link) return { outcome: 'ACS_CHALLENGE', acsUrl: withRedirect(link, back), creq: Buffer.from(orderId).toString('base64url'), method: 'get' };
      return result(declined('PayPal asked for 3-D Secure without the page to go through it', 'AUTHENTICATION_FAILED'));
    }
    if (sent.status !== 200 && sent.status !== 201) return result(this.refused(sent, 'payment'));
    if (!sent.json) return result(notJson('PayPal'));
    // no challenge: the answer is the payment's result, and says how the cardholder was authenticated
    const f = resultOfOrder(sent.json, { orderId, reference: req.reference, amount: req.amount, currency: req.currency, cardNetwork: network }, intent);
    if (f.result.outcome === 'UNKNOWN') return result(f.result);
    return result(await this.#settled(t, req, f), threedsDecision(authenticationOf(sent.json)).threeds);
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }, token: string): Promise<ThreeDSPayment> {
    const intent = req.preauthorization ? 'AUTHORIZE' : 'CAPTURE';
    const done = (r: ProcessorResult, threeds: ThreeDSResult | null = null): ThreeDSPayment => ({ outcome: 'RESULT', result: r, flow: 'CHALLENGE', threeds });
    const op = await this.find(req.reference);
    if (!op?.orderId) return done(declined('No PayPal order of this gateway for this payment', 'AUTHENTICATION_FAILED'));
    // PayPal names the order it sends the cardholder back for; the operation's own order is used when it names none
    if (token && token !== op.orderId) return done(declined('PayPal sent the cardholder back for another order', 'AUTHENTICATION_FAILED'));
    const t = await this.terminal(req.terminal);
    const network = cardNetwork(req.card.pan.reveal().replace(/\s+/g, ''));
    const x = { orderId: op.orderId, reference: req.reference, amount: req.amount, currency: req.currency, cardNetwork: network };
    // 1. what 3-D Secure came to (the order's payment_source.card.authentication_result)
    const got = await this.call(t, 'GET', `/v2/checkout/orders/${op.orderId}`, null, null);
    if (got.kind === 'failed') return done(got.result);
    if (got.kind === 'unknown') return done(noAnswer(got));
    if (got.status !== 200 || !got.json || got.json.id !== op.orderId) return done(unknown(`PayPal answered the order query with HTTP ${got.status}`));
    const decision = threedsDecision(authenticationOf(got.json));
    const before = resultOfOrder(got.json, x, intent);
    // already captured or authorized (the cardholder came back twice): the order says the result
    if (before.result.outcome === 'APPROVED' || before.result.outcome === 'DECLINED' || before.result.outcome === 'PENDING') return done(await this.#settled(t, req, before), decision.threeds);
    // 2. PayPal's recommended action: not continued, the order is never captured (it moved no money)
    if (decision.action !== 'CONTINUE') return done(declined(decision.details, 'AUTHENTICATION_FAILED'), decision.threeds);
    // 3. continued: captured (or authorized) with an empty body
    const sent = await this.call(t, 'POST', `/v2/checkout/orders/${op.orderId}/${intent === 'CAPTURE' ? 'capture' : 'authorize'}`, {}, `${req.reference}-3ds-done`);
    if (sent.kind === 'failed') return done(sent.result);
    if (sent.kind === 'unknown') return done(noAnswer(sent));
    if (sent.status === 422 && issuesOf(sent.json).includes('PAYER_ACTION_REQUIRED')) return done(declined('The cardholder did not complete 3-D Secure on PayPal\'s page', 'AUTHENTICATION_FAILED'), decision.threeds);
    if (sent.status !== 200 && sent.status !== 201) return done(this.refused(sent, 'payment'));
    if (!sent.json) return done(notJson('PayPal'));
    const f = resultOfOrder(sent.json, x, intent);
    if (f.result.outcome === 'UNKNOWN') return done(f.result);
    return done(await this.#settled(t, req, f), decision.threeds);
  }

  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return unknown('PayPal authenticates cardholders itself (3-D Secure when the issuer requires it)');
  }

  /** A card is verified by an authorization of the smallest amount, voided at once. */
  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    const r = await this.#payment({ ...req, amount: smallestAmount(req.currency), channel: 'ECOMMERCE', threeds: null }, 'verify');
    if (r.outcome !== 'APPROVED') return verificationOf(r.outcome === 'PENDING' ? unknown(r.details) : r);
    const t = await this.terminal(req.terminal);
    const voided = await this.call(t, 'POST', `/v2/payments/authorizations/${r.processorId}/void`, null, `${req.reference}-void`);
    if (voided.kind !== 'answer' || (voided.status !== 204 && voided.status !== 200)) this.deps.logger?.warn({ reference: req.reference }, 'paypal: the verification\'s authorization was not voided (it expires by itself)');
    return { outcome: 'VERIFIED', processorId: r.processorId };
  }

  /** Tests a terminal's credentials without moving money: the app's access token is asked for. */
  async testCredentials(terminal: PaypalTerminal): Promise<string[]> {
    this.forgetToken(terminal.clientId);
    const tok = await this.token(terminal);
    return 'failed' in tok ? [tok.failed.outcome === 'DECLINED' ? tok.failed.details : 'PayPal did not answer'] : [];
  }

  /** The PAYPAL APM: an order the buyer approves on PayPal (its payer-action page), captured once approved. */
  async apmStart(req: ApmStartRequest): Promise<ApmStartResult> {
    if (req.apm !== 'PAYPAL') return declined(`${req.apm} is not offered through PayPal`);
    const refused = this.notSendable(req.amount, req.currency);
    if (refused) return refused as ApmStartResult;
    const t = await this.terminal(req.terminal);
    await this.record({ reference: req.reference, kind: 'apm', amount: req.amount, currency: req.currency, clientId: t.clientId, orderId: null, paymentId: null, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const back = req.returnUrl ?? this.deps.publicUrl;
    const sent = await this.call(t, 'POST', '/v2/checkout/orders', orderBody(req.reference, req.amount, req.currency, 'CAPTURE', { description: req.description, paypal: { returnUrl: back, cancelUrl: back } }), `${req.reference}-order`);
    if (sent.kind === 'failed') return sent.result as ApmStartResult;
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 200 && sent.status !== 201) return this.refused(sent, 'order') as ApmStartResult;
    const id = sent.json?.id;
    const link = sent.json ? payerActionOf(sent.json) : null;
    if (typeof id !== 'string' || !/^[A-Z0-9]{10,40}$/.test(id) || !link) return unknown('PayPal answered the order without its approval page');
    await this.save(req.reference, { orderId: id });
    // the buyer leaves from the gateway's own page (apmRedirectForm), whose form may go to PayPal's origin
    return { outcome: 'PENDING', processorId: id, redirectUrl: `${this.deps.publicUrl}/v1/processor/paypal/redirect/${encodeURIComponent(req.reference)}`, voucher: null, expiresAt: new Date(req.now.getTime() + 3 * 3600_000) };
  }

  /** PayPal's approval page of a started PAYPAL payment (its order's payer-action link), as a GET form. */
  async apmRedirectForm(reference: string): Promise<ProviderForm | null> {
    const op = await this.find(reference);
    if (!op?.orderId || op.kind !== 'apm' || !op.terminalRef) return null;
    const t = await this.terminal(terminalOfRecord(op.terminalRef, 'PAYPAL'));
    const sent = await this.call(t, 'GET', `/v2/checkout/orders/${op.orderId}`, null, null);
    if (sent.kind !== 'answer' || sent.status !== 200 || !sent.json || sent.json.id !== op.orderId) return null;
    const link = payerActionOf(sent.json);
    if (!link) return null;
    const u = new URL(link);
    const fields = Object.fromEntries(u.searchParams);
    u.search = '';
    return { url: u.toString(), fields, method: 'get', apm: 'PayPal' };
  }

  /** The buyer approved (or not): the order is captured. */
  async apmComplete(req: ApmCompleteRequest): Promise<ProcessorResult> {
    const op = await this.find(req.reference);
    if (!op?.orderId) return declined('No PayPal order of this gateway for this payment');
    if (req.action === 'REFUSED') return { outcome: 'DECLINED', error: 'DENIED', details: 'The buyer did not approve the payment on PayPal', processorId: op.orderId };
    return this.#captureApproved(await this.terminal(req.terminal), op);
  }

  async #captureApproved(t: PaypalTerminal, op: PaypalOperation): Promise<ProcessorResult> {
    const sent = await this.call(t, 'POST', `/v2/checkout/orders/${op.orderId}/capture`, {}, op.reference);
    if (sent.kind === 'failed') return sent.result;
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 200 && sent.status !== 201) return this.refused(sent, 'capture');
    if (!sent.json) return notJson('PayPal');
    const f = resultOfOrder(sent.json, { orderId: op.orderId!, reference: op.reference, amount: op.amount, currency: op.currency }, 'CAPTURE');
    if (f.paymentId) await this.save(op.reference, { paymentId: f.paymentId });
    return f.result;
  }

  /**
   * A webhook PayPal posted (`body`: the raw JSON; the `paypal-*` transmission headers). The operation
   * it names is found (by custom_id, order id or payment id) only to know which app's webhook id to
   * verify with; PayPal's verification call must answer SUCCESS before anything else is used.
   */
  async notification(fields: Record<string, string>): Promise<NotificationResult> {
    const raw = fields.body ?? '';
    const unverified = parseObject(raw);
    if (unverified && typeof unverified.event_type === 'string' && unverified.event_type.startsWith('CUSTOMER.DISPUTE.')) return this.disputeWebhook(fields, raw, unverified);
    const facts = unverified ? webhookFacts(unverified) : null;
    if (!facts) return ignored('not a PayPal webhook');
    const kinds = EVENT_KINDS[facts.type]?.kinds;
    if (!kinds) return ignored(`event ${facts.type.slice(0, 60)} settles nothing`);
    if (TRANSMISSION_HEADERS.some((h) => !fields[h])) return ignored('the PayPal transmission headers are missing');
    const candidates: PaypalOperation[] = [];
    if (facts.customId && facts.customId.length <= 100) {
      const byRef = await this.find(facts.customId);
      if (byRef) candidates.push(byRef);
    }
    candidates.push(...(await this.operationsOf({ orderId: facts.orderId, paymentId: facts.resourceId })));
    const ofKind = candidates.filter((c) => kinds.includes(c.kind));
    // a capture of an authorization is ours by invoice_id (its request has no custom_id)
    const op = ofKind.find((c) => c.reference === facts.customId && c.kind !== 'capture')
      ?? ofKind.find((c) => c.kind === 'capture' && (c.reference === facts.invoiceId || c.actionId === facts.resourceId))
      ?? ofKind.find((c) => c.kind === 'void' && c.paymentId === facts.resourceId)
      ?? ofKind.find((c) => c.kind === 'apm' && c.orderId === facts.orderId);
    if (!op || !op.terminalRef) return ignored('no operation of ours for this webhook');
    const opened = await this.terminalOf(op.terminalRef, 'PAYPAL');
    if ('problem' in opened) return ignored(opened.problem);
    const t = opened.terminal;
    const verified = await this.call(t, 'POST', '/v1/notifications/verify-webhook-signature', verificationBody(fields, t.webhookId, raw), null);
    if (verified.kind !== 'answer' || verified.status !== 200 || verified.json?.verification_status !== 'SUCCESS') {
      this.deps.logger?.error({ reference: op.reference }, 'paypal: webhook refused (PayPal did not verify it)');
      return ignored('signature not verified');
    }
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: facts.type, resourceId: facts.resourceId, reference: op.reference, outcome: 'VERIFIED' });
    if (!fresh) return ignored(`event ${facts.eventId} was received before (a replay)`);
    if (facts.type === 'CHECKOUT.ORDER.APPROVED') {
      // the buyer approved on PayPal: the order is captured now, and that settles the payment
      const r = await this.#captureApproved(t, op);
      if (r.outcome === 'APPROVED' || r.outcome === 'DECLINED') return { outcome: 'SETTLE', reference: op.reference, result: r };
      return ignored('the approved order could not be captured yet (the reconciler reads it again)');
    }
    const result = resultOfWebhook(facts, { kind: op.kind, amount: op.amount, currency: op.currency, paymentId: op.paymentId ?? facts.resourceId });
    if (!result) return ignored('the webhook does not match the operation (amount, currency or type)');
    if (!op.paymentId && (op.kind === 'payment' || op.kind === 'preauth' || op.kind === 'apm')) await this.save(op.reference, { paymentId: facts.resourceId });
    // PAYMENT.CAPTURE.PENDING (or a resource still PENDING): nothing final; the transaction stays PENDING
    if (result.outcome === 'PENDING') return ignored(result.details);
    return { outcome: 'SETTLE', reference: op.reference, result };
  }

}
