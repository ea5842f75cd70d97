/**
 * The PayPal simulator: a separate HTTP server speaking the parts of PayPal's REST API the connector
 * uses, as PayPal's reference describes them (spec.ts, with its sources and versions), for the tests and
 * for demos (`npx paygate paypal-simulator`, then PAYGATE_PAYPAL_URL=http://127.0.0.1:PORT).
 *
 * Every request it receives and every answer and webhook it gives is checked against spec.ts through
 * its `spec` ledger (a SpecLedger): a request the reference does not allow is answered as PayPal answers
 * one (400 INVALID_REQUEST, or the 422 issue PayPal documents for it: INCOMPATIBLE_PARAMETER_VALUE,
 * MERCHANT_INITIATED_WITH_SECURITY_CODE, DECIMALS_NOT_SUPPORTED, DECIMAL_PRECISION,
 * INVALID_CURRENCY_CODE) and recorded; the test harness fails a test file whose simulator recorded any.
 *
 *  - `POST /v1/oauth2/token` (Basic client id and secret) → a bearer token;
 *  - Orders v2: create (`CREATED`; `PAYER_ACTION_REQUIRED` with a `payer-action` link for a PayPal
 *    account), `capture` / `authorize` with a card payment source or after the payer acted, `GET` with
 *    every authorization, capture and refund and the card's 3-D Secure result; the buyer's approval page
 *    `/sim/approve/{id}`;
 *  - 3-D Secure ("3D Secure: Orders API"): a customer's card payment asking for it (SCA_ALWAYS, or
 *    SCA_WHEN_REQUIRED when the issuer requires it) is answered 422 PAYER_ACTION_REQUIRED with the
 *    `payer-action` link, PayPal's page `/sim/3ds/{id}` (authenticate, fail, or cannot authenticate),
 *    which returns the cardholder to `redirect_uri` (or the card's experience_context return_url) and
 *    leaves the result in the order's `payment_source.card.authentication_result`; the order is then
 *    captured or authorized with an empty body;
 *  - Payments v2: capture and void an authorization, refund a capture, `GET` of each;
 *  - PENDING: a capture or authorization held for review (test card) until `decidePending` completes or
 *    denies it (PAYMENT.CAPTURE.PENDING, then .COMPLETED or .DENIED);
 *  - amounts in PayPal's decimals of each currency (HUF, JPY, TWD without decimals);
 *  - `PayPal-Request-Id`: a request repeated under the same id gets the first answer;
 *  - webhooks (PAYMENT.CAPTURE.COMPLETED / DECLINED / DENIED / PENDING / REFUNDED,
 *    PAYMENT.AUTHORIZATION.CREATED / VOIDED, CHECKOUT.ORDER.APPROVED) with the five PAYPAL-* transmission
 *    headers, and `POST /v1/notifications/verify-webhook-signature`, which answers SUCCESS only for an
 *    event it sent, unchanged, to that webhook id;
 *  - the kit's server (kit/simulator.ts): latency and faults on the money calls (captures,
 *    authorizations, voids, refunds), webhooks through `transport` when a test sets one.
 */
import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { challengePage, readMultipart, type SimRequest } from '../../kit/simulator.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { issuerRule, simNetwork } from './rules.js';
import { type PaypalSimApp, type Json, type Money, type Authentication, type Out, type SimDispute, ppId, canonical, obj, units, money } from './model.js';
import { PaypalSimulatorCore } from './core.js';

export { type PaypalSimApp, type PaypalSimulatorOptions, type PaypalFaultKind, type WebhookTransport, type SimDispute } from './model.js';

export class PaypalSimulator extends PaypalSimulatorCore {
  protected override _orderMoney(clientId: string, orderId: string, what: 'capture' | 'authorize', b: Json): Out {
    const o = this._orders.get(orderId);
    const refuse = (issue: string, extra: Json = {}): Out => ({ status: 422, body: this._error(422, issue, extra), hooks: [] });
    if (!o || o.clientId !== clientId) return { status: 404, body: this._error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
    if ((what === 'capture') !== (o.intent === 'CAPTURE')) return refuse('ACTION_DOES_NOT_MATCH_INTENT');
    if (o.status === 'COMPLETED') return refuse(what === 'capture' ? 'ORDER_ALREADY_CAPTURED' : 'ORDER_ALREADY_AUTHORIZED');
    const card = obj(obj(b.payment_source)?.card);
    const now = this.now();
    let code: string;
    let pending = false;
    let number: string;
    if (card) {
      number = String(card.number ?? '');
      const stored = obj(card.stored_credential);
      const method = String(obj(obj(card.attributes)?.verification)?.method ?? 'SCA_WHEN_REQUIRED');
      o.storedCredential = stored;
      o.verification = method;
      const issuer = issuerRule({ number, expiry: String(card.expiry ?? ''), now });
      o.card = { last_digits: number.slice(-4), brand: simNetwork(number) };
      // 3-D Secure: asked always (SCA_ALWAYS, 3D_SECURE), or when the issuer requires it (SCA_WHEN_REQUIRED,
      // the default) for a customer's payment; merchant-initiated payments and AVS/CVV verification are not authenticated
      const customer = stored?.payment_initiator !== 'MERCHANT';
      const threeds = customer && issuer.code === '0000' && (method === 'SCA_ALWAYS' || method === '3D_SECURE' || (method === 'SCA_WHEN_REQUIRED' && issuer.requiresSca));
      if (threeds) {
        const ctx = obj(card.experience_context);
        o.status = 'PAYER_ACTION_REQUIRED';
        o.pendingCard = { number, expiry: String(card.expiry), returnUrl: typeof ctx?.return_url === 'string' ? ctx.return_url : null };
        return refuse('PAYER_ACTION_REQUIRED', {
          detail: { description: 'Transaction cannot complete successfully, instruct the buyer to return to PayPal.' },
          links: [{ href: this._payerAction(o)!, rel: 'payer-action', method: 'GET' }],
        });
      }
      code = issuer.code;
      pending = issuer.pending;
    } else if (o.pendingCard && o.card?.authentication_result) {
      // after 3-D Secure: the issuer approves a card that needs authentication only when the liability may shift
      number = o.pendingCard.number;
      const issuer = issuerRule({ number, expiry: o.pendingCard.expiry, now });
      code = issuer.requiresSca && o.card.authentication_result.liability_shift !== 'POSSIBLE' ? '5650' : issuer.code;
      pending = issuer.pending;
      o.pendingCard = null;
    } else if (o.status === 'APPROVED' && o.paypal) {
      number = '';
      code = '0000';
    } else if (o.status === 'PAYER_ACTION_REQUIRED') {
      const action = this._payerAction(o);
      return refuse('PAYER_ACTION_REQUIRED', action ? { links: [{ href: action, rel: 'payer-action', method: 'GET' }] } : {});
    } else return refuse('ORDER_NOT_APPROVED');
    const ok = code === '0000';
    const network = number && ok ? simNetwork(number) : null;
    const ntr = network ? { network_transaction_reference: { id: schemeTransactionId(), network, ...(network === 'MASTERCARD' || network === 'DISCOVER' ? { date: `${String(now.getUTCMonth() + 1).padStart(2, '0')}${String(now.getUTCDate()).padStart(2, '0')}` } : {}) } } : {};
    const response = number ? { processor_response: { response_code: code } } : {};
    const review = pending && ok ? { status_details: { reason: 'PENDING_REVIEW' } } : {};
    const hooks: Out['hooks'] = [];
    if (what === 'capture') {
      const p = this._payment(o, o.amount, !ok ? 'DECLINED' : pending ? 'PENDING' : 'COMPLETED', { ...response, ...review, ...ntr, ...(ok ? { final_capture: true } : {}) });
      o.captures.push(p);
      hooks.push({ type: !ok ? 'PAYMENT.CAPTURE.DECLINED' : pending ? 'PAYMENT.CAPTURE.PENDING' : 'PAYMENT.CAPTURE.COMPLETED', resource: this._resource(o, p) });
    } else {
      const p = this._payment(o, o.amount, !ok ? 'DENIED' : pending ? 'PENDING' : 'CREATED', { ...response, ...review, ...ntr });
      o.authorizations.push(p);
      if (ok && !pending) hooks.push({ type: 'PAYMENT.AUTHORIZATION.CREATED', resource: this._resource(o, p) });
    }
    if (ok) o.status = 'COMPLETED';
    return { status: 201, body: this._present(o), hooks };
  }

  protected override _paymentAction(clientId: string, op: string, id: string, b: Json): Out {
    const o = this._orders.get(this._byPayment.get(id) ?? '');
    const refuse = (issue: string): Out => ({ status: 422, body: this._error(422, issue), hooks: [] });
    if (!o || o.clientId !== clientId) return { status: 404, body: this._error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
    const amount = (obj(b.amount) as unknown as Money | null) ?? null;
    if (op === 'authorizations.capture' || op === 'authorizations.void') {
      const auth = o.authorizations.find((a) => a.id === id);
      if (!auth) return { status: 404, body: this._error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
      if (auth.status !== 'CREATED') return refuse(auth.status === 'VOIDED' ? (op === 'authorizations.void' ? 'PREVIOUSLY_VOIDED' : 'AUTHORIZATION_VOIDED') : op === 'authorizations.void' ? 'PREVIOUSLY_CAPTURED' : 'AUTHORIZATION_ALREADY_CAPTURED');
      if (op === 'authorizations.void') {
        auth.status = 'VOIDED';
        auth.update_time = this.now().toISOString();
        return { status: 200, body: this._resource(o, auth), hooks: [{ type: 'PAYMENT.AUTHORIZATION.VOIDED', resource: this._resource(o, auth) }] };
      }
      const value = amount ?? auth.amount;
      if (value.currency_code !== auth.amount.currency_code) return refuse('CURRENCY_MISMATCH');
      if (units(value) > units(auth.amount)) return refuse('MAX_CAPTURE_AMOUNT_EXCEEDED');
      auth.status = units(value) === units(auth.amount) ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
      const p = this._payment(o, value, 'COMPLETED', { ...(typeof b.invoice_id === 'string' ? { invoice_id: b.invoice_id } : {}), final_capture: b.final_capture === true });
      o.captures.push(p);
      return { status: 201, body: this._resource(o, p), hooks: [{ type: 'PAYMENT.CAPTURE.COMPLETED', resource: this._resource(o, p) }] };
    }
    const cap = o.captures.find((c) => c.id === id);
    if (!cap) return { status: 404, body: this._error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
    if (cap.status !== 'COMPLETED' && cap.status !== 'PARTIALLY_REFUNDED') return refuse(cap.status === 'REFUNDED' ? 'CAPTURE_FULLY_REFUNDED' : 'REFUND_NOT_ALLOWED');
    const refunded = o.refunds.filter((r) => this._refundOf.get(r.id) === cap.id).reduce((n, r) => n + units(r.amount), 0);
    const value = amount ?? money(units(cap.amount) - refunded, cap.amount.currency_code);
    if (value.currency_code !== cap.amount.currency_code) return refuse('REFUND_CAPTURE_CURRENCY_MISMATCH');
    if (refunded + units(value) > units(cap.amount)) return refuse('REFUND_AMOUNT_EXCEEDED');
    const r = this._payment(o, value, 'COMPLETED', { ...(typeof b.custom_id === 'string' ? { custom_id: b.custom_id } : {}), ...(typeof b.invoice_id === 'string' ? { invoice_id: b.invoice_id } : {}) });
    this._refundOf.set(r.id, cap.id);
    o.refunds.push(r);
    cap.status = refunded + units(value) === units(cap.amount) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return { status: 201, body: this._resource(o, r), hooks: [{ type: 'PAYMENT.CAPTURE.REFUNDED', resource: this._resource(o, r) }] };
  }

  protected override async _webhook(app: PaypalSimApp, type: string, resource: Json): Promise<void> {
    if (!app.webhookUrl) return;
    const event = {
      id: `WH-${ppId(20)}`, event_version: '1.0', create_time: this.now().toISOString(),
      resource_type: type.startsWith('CHECKOUT') ? 'checkout-order' : type.includes('REFUND') ? 'refund' : type.includes('AUTHORIZATION') ? 'authorization' : 'capture',
      resource_version: '2.0', event_type: type, summary: type, resource,
    };
    this.spec.response('webhook', type, event);
    await this.send(app, JSON.stringify(event));
  }

  // ---- disputes ([DSP] Disputes API) ------------------------------------------------------------------

  /**
   * Raises a chargeback on a capture, as a buyer's bank would: WAITING_FOR_SELLER_RESPONSE, due 10 days
   * later, and its CUSTOMER.DISPUTE.CREATED webhook. Once the merchant provided evidence, `decideDisputes`
   * resolves it as `decision` says (in the seller's favour by default).
   */
  async raiseDispute(captureId: string, opts: { reason?: string; stage?: string; amount?: number; decision?: SimDispute['decision']; externalReasonCode?: string } = {}): Promise<SimDispute> {
    const orderId = this._byPayment.get(captureId);
    const order = orderId ? this._orders.get(orderId) : undefined;
    const capture = order?.captures.find((c) => c.id === captureId);
    if (!order || !capture) throw new Error(`no capture ${captureId}`);
    const now = this.now();
    const d: SimDispute = {
      id: `PP-R-${ppId(3)}-${ppId(8)}`, clientId: order.clientId, order, capture, reason: opts.reason ?? 'UNAUTHORISED', stage: opts.stage ?? 'CHARGEBACK',
      amount: opts.amount !== undefined ? money(opts.amount, capture.amount.currency_code) : capture.amount,
      status: 'WAITING_FOR_SELLER_RESPONSE', outcomeCode: null, decision: opts.decision ?? 'RESOLVED_SELLER_FAVOUR', evidences: [], files: new Map(), externalReasonCode: opts.externalReasonCode ?? null,
      createTime: now.toISOString(), updateTime: now.toISOString(), dueDate: new Date(now.getTime() + 10 * 86400_000).toISOString(),
    };
    this._disputes.set(d.id, d);
    await this._disputeWebhook(d, 'CUSTOMER.DISPUTE.CREATED');
    return d;
  }

  /** Resolves every dispute under review as it was raised to be, and sends CUSTOMER.DISPUTE.RESOLVED. */
  async decideDisputes(): Promise<void> {
    for (const d of this._disputes.values()) {
      if (d.status !== 'UNDER_REVIEW') continue;
      d.status = 'RESOLVED';
      d.outcomeCode = d.decision;
      d.updateTime = this.now().toISOString();
      await this._disputeWebhook(d, 'CUSTOMER.DISPUTE.RESOLVED');
    }
  }

  /** A dispute as the simulator keeps it (tests). */
  dispute(id: string): Readonly<SimDispute> | undefined {
    return this._disputes.get(id);
  }

  protected _disputeResource(d: SimDispute): Json {
    const external = d.externalReasonCode;
    return {
      dispute_id: d.id, create_time: d.createTime, update_time: d.updateTime,
      disputed_transactions: [{ seller_transaction_id: d.capture.id, ...(d.order.customId ? { custom: d.order.customId } : {}), transaction_status: 'COMPLETED', gross_amount: d.capture.amount, create_time: d.capture.create_time }],
      reason: d.reason, status: d.status, dispute_amount: d.amount, ...(external ? { external_reason_code: external } : {}),
      ...(d.outcomeCode ? { dispute_outcome: { outcome_code: d.outcomeCode } } : {}),
      dispute_life_cycle_stage: d.stage, dispute_channel: 'EXTERNAL', seller_response_due_date: d.dueDate,
      links: [{ href: `${this.url}/v1/customer/disputes/${d.id}`, rel: 'self', method: 'GET' }],
    };
  }

  protected async _disputeWebhook(d: SimDispute, type: string): Promise<void> {
    const app = this._opts.apps[d.clientId];
    if (!app?.webhookUrl) return;
    const event = { id: `WH-${ppId(20)}`, event_version: '1.0', create_time: this.now().toISOString(), resource_type: 'dispute', resource_version: '1.0', event_type: type, summary: type, resource: this._disputeResource(d) };
    this.spec.response('webhook', type, event);
    await this.send(app, JSON.stringify(event));
  }

  /** GET a dispute, provide-evidence, accept-claim (multipart `input`), each checked against the reference. */
  protected override async _disputeApi(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const m = /^\/v1\/customer\/disputes\/([A-Za-z0-9-]+)(\/provide-evidence|\/accept-claim)?$/.exec(r.url.pathname);
    const op = !m ? null : !m[2] && r.method === 'GET' ? 'disputes.get' : m[2] === '/provide-evidence' && r.method === 'POST' ? 'disputes.provide-evidence' : m[2] === '/accept-claim' && r.method === 'POST' ? 'disputes.accept-claim' : null;
    if (!m || !op) return this.write(res, 404, this._error(404, 'INVALID_RESOURCE_ID'));
    const answer = (status: number, body: unknown) => {
      this.spec.response(op, status, body);
      this.write(res, status, body);
    };
    const clientId = this._tokens.get(String(r.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!clientId) return answer(401, this._error(401, null));
    const d = this._disputes.get(m[1]);
    if (!d || d.clientId !== clientId) return answer(404, this._error(404, 'INVALID_RESOURCE_ID'));
    if (op === 'disputes.get') return answer(200, this._disputeResource(d));
    const parts = readMultipart(r.bytes, String(r.headers['content-type'] ?? ''));
    if (!parts) return answer(400, this._error(400, 'INVALID_REQUEST_BODY'));
    let input: unknown;
    try {
      const part = parts.find((p) => p.name === 'input');
      input = part ? JSON.parse(part.content.toString('utf8')) : undefined;
    } catch {
      input = undefined;
    }
    const files = parts.filter((p) => p.name === 'evidence-file' && p.filename !== null);
    const problems = this.spec.request(op, input ?? {});
    if (problems.length > 0) return answer(400, this._error(400, 'INVALID_PARAMETER_VALUE', { detail: { location: 'body', description: problems.join('; ') } }));
    if (d.status !== 'WAITING_FOR_SELLER_RESPONSE') return answer(422, this._error(422, 'NOT_AUTHORIZED_TO_PERFORM_ACTION'));
    if (op === 'disputes.provide-evidence') {
      // every document an evidence names is one of the request's files: a PDF, PNG or JPEG
      const named = ((input as { evidences: Json[] }).evidences).flatMap((e) => ((e.documents as Json[] | undefined) ?? []).map((x) => String(x.name)));
      const kind = (b: Buffer) => (b.subarray(0, 5).toString('latin1') === '%PDF-' ? 'application/pdf' : b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) ? 'image/png' : b[0] === 0xff && b[1] === 0xd8 ? 'image/jpeg' : null);
      if (named.some((n) => !files.some((f) => f.filename === n)) || files.some((f) => !kind(f.content))) return answer(400, this._error(400, 'INVALID_EVIDENCE_FILE'));
      for (const f of files) d.files.set(f.filename!, { contentType: f.contentType, content: Buffer.from(f.content) });
      d.evidences.push(...((input as { evidences: Json[] }).evidences));
      d.status = 'UNDER_REVIEW';
    } else {
      d.status = 'RESOLVED';
      d.outcomeCode = 'ACCEPTED';
    }
    d.updateTime = this.now().toISOString();
    return answer(200, { links: [{ href: `${this.url}/v1/customer/disputes/${d.id}`, rel: 'self', method: 'GET' }] });
  }

  /** Posts a webhook body with its transmission headers (tests: a late or replayed delivery). */
  async send(app: PaypalSimApp, body: string): Promise<number | null> {
    const transmission = randomUUID();
    this._sent.set(transmission, { webhookId: app.webhookId, digest: canonical(body) });
    // PayPal's signature (base64) as the verification call's pattern takes it: starting with a word character
    let sig = '';
    for (let n = 0; !/^\w/.test(sig); n++) sig = createHash('sha256').update(`${transmission}|${app.webhookId}|${body}|${n}`).digest('base64');
    const headers = {
      'content-type': 'application/json',
      'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': `${this.url}/v1/notifications/certs/CERT-360caa42-fca2a594-sim`,
      'paypal-transmission-id': transmission, 'paypal-transmission-time': this.now().toISOString(),
      'paypal-transmission-sig': sig,
    };
    return (await this.deliver(app.webhookUrl ?? '', headers, body)).status;
  }

  /**
   * PayPal's 3-D Secure page of a card payment (the order's payer-action link): the cardholder
   * authenticates, fails, or cannot be authenticated; a card not enrolled comes straight back. The result
   * stays in the order's `payment_source.card.authentication_result`; the cardholder goes back to
   * `redirect_uri` (appended to the link by the merchant) or the card's experience_context return_url,
   * with the order's token.
   */
  protected override async _threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const o = this._orders.get(url.pathname.slice('/sim/3ds/'.length));
    const pending = o?.pendingCard;
    if (!o || !pending || o.status !== 'PAYER_ACTION_REQUIRED') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const back = url.searchParams.get('redirect_uri') ?? pending.returnUrl;
    if (!back || !/^https?:\/\//.test(back)) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('no page to return the cardholder to');
    const enrolled = issuerRule({ number: pending.number, expiry: pending.expiry, now: this.now() }).enrolled;
    const result = method === 'POST' ? new URLSearchParams(raw).get('result') : null;
    if (enrolled && result !== 'Y' && result !== 'N' && result !== 'U') {
      return this.html(res, 200, challengePage({
        title: '3-D Secure', heading: '3-D Secure (PayPal simulator)', lines: [`${o.amount.value} ${o.amount.currency_code}, card ending ${pending.number.slice(-4)}`], action: `/sim/3ds/${o.id}${url.search}`, unavailable: {},
      }));
    }
    const outcome: Authentication = !enrolled
      ? { liability_shift: 'NO', three_d_secure: { enrollment_status: 'N' } }
      : result === 'Y'
        ? { liability_shift: 'POSSIBLE', three_d_secure: { enrollment_status: 'Y', authentication_status: 'Y' } }
        : result === 'N'
          ? { liability_shift: 'NO', three_d_secure: { enrollment_status: 'Y', authentication_status: 'N' } }
          : { liability_shift: 'UNKNOWN', three_d_secure: { enrollment_status: 'Y', authentication_status: 'U' } };
    o.card = { ...(o.card ?? { last_digits: pending.number.slice(-4), brand: simNetwork(pending.number) }), authentication_result: outcome };
    o.status = 'APPROVED';
    const to = new URL(back);
    to.searchParams.set('token', o.id);
    res.writeHead(302, { location: to.toString() }).end();
  }

  /** The buyer's approval page of an order (PayPal account): approve or cancel; back to the merchant. */
  protected override async _approvePage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const o = this._orders.get(url.pathname.slice('/sim/approve/'.length));
    if (!o?.paypal || o.status !== 'PAYER_ACTION_REQUIRED') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished order');
    const action = method === 'POST' ? new URLSearchParams(raw).get('action') : null;
    if (action !== 'approve' && action !== 'cancel') {
      return this.html(res, 200, challengePage({
        title: 'PayPal', heading: 'Pay with PayPal (simulator)', lines: [`${o.amount.value} ${o.amount.currency_code}`], action: `/sim/approve/${o.id}`, name: 'action',
        pass: { value: 'approve', id: 'approve', label: 'Pay Now' }, fail: { value: 'cancel', id: 'cancel', label: 'Cancel and return' },
      }));
    }
    const back = new URL(action === 'approve' ? o.paypal.returnUrl : o.paypal.cancelUrl);
    back.searchParams.set('token', o.id);
    if (action === 'approve') {
      o.status = 'APPROVED';
      back.searchParams.set('PayerID', ppId(13));
      const app = this._opts.apps[o.clientId];
      void this._webhook(app, 'CHECKOUT.ORDER.APPROVED', this._present(o));
    }
    res.writeHead(302, { location: back.toString() }).end();
  }
}
