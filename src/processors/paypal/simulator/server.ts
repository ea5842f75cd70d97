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
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { challengePage, readMultipart, SimulatorBase, type FaultKind, type SimRequest, type WebhookTransport as KitTransport } from '../../kit/simulator.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { PAYPAL_CURRENCY_DECIMALS } from '../currencies.js';
import { PAYPAL_SPEC } from '../spec.js';
import { issuerRule, simNetwork } from './rules.js';

export interface PaypalSimApp {
  clientSecret: string;
  webhookId: string;
  /** Where its webhooks go (the gateway's `/v1/processor/paypal/webhook`); none: not sent. */
  webhookUrl?: string | null;
}

export interface PaypalSimulatorOptions {
  /** REST apps by client id. */
  apps: Record<string, PaypalSimApp>;
  latencyMs?: number;
  clock?: () => Date;
  webhookHeaders?: Record<string, string>;
}

export type PaypalFaultKind = Exclude<FaultKind, 'hang'>;
export type WebhookTransport = KitTransport;

type Json = Record<string, unknown>;
interface Money { currency_code: string; value: string }
interface Payment {
  id: string;
  status: string;
  status_details?: { reason: string };
  amount: Money;
  custom_id?: string;
  invoice_id?: string;
  processor_response?: { response_code: string };
  network_transaction_reference?: { id: string; network: string; date?: string };
  final_capture?: boolean;
  create_time: string;
  update_time: string;
}

/** What PayPal left in `payment_source.card.authentication_result` after 3-D Secure. */
interface Authentication { liability_shift: string; three_d_secure: { enrollment_status: string; authentication_status?: string } }

interface SimOrder {
  id: string;
  clientId: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: string;
  customId: string;
  amount: Money;
  createTime: string;
  paypal: { returnUrl: string; cancelUrl: string } | null;
  captures: Payment[];
  authorizations: Payment[];
  refunds: Payment[];
  /** The card of the order's payment as PayPal shows it (never its number). */
  card: { last_digits: string; brand: string; authentication_result?: Authentication } | null;
  /** A card payment waiting for 3-D Secure on PayPal's page: the card and where the cardholder returns. */
  pendingCard: { number: string; expiry: string; returnUrl: string | null } | null;
  /** The last card request's stored_credential and verification method, as sent (tests read them). */
  storedCredential: Json | null;
  verification: string | null;
}

type Out = { status: number; body: unknown; hooks: Array<{ type: string; resource: Json }> };

/** A dispute the simulator raised on a capture (`raiseDispute`), as PayPal's Disputes API shows it. */
export interface SimDispute {
  id: string;
  clientId: string;
  order: SimOrder;
  capture: Payment;
  reason: string;
  stage: string;
  amount: Money;
  status: string;
  outcomeCode: string | null;
  /** How PayPal decides it once the merchant provided evidence (`decideDisputes`). */
  decision: 'RESOLVED_SELLER_FAVOUR' | 'RESOLVED_BUYER_FAVOUR';
  evidences: Json[];
  /** The `evidence-file` parts received, by name. */
  files: Map<string, { contentType: string | null; content: Buffer }>;
  externalReasonCode: string | null;
  createTime: string;
  updateTime: string;
  dueDate: string;
}

const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ppId = (n = 17) => Array.from({ length: n }, () => UP[randomInt(UP.length)]).join('');
const canonical = (text: string) => createHash('sha256').update(JSON.stringify(JSON.parse(text))).digest('hex');
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);

/** An amount in PayPal's smallest unit of its currency (cents; whole yen, forints, dollars). */
const decimalsOf = (currency: string) => PAYPAL_CURRENCY_DECIMALS[currency] ?? 2;
const units = (m: Money) => Math.round(Number(m.value) * 10 ** decimalsOf(m.currency_code));
const money = (n: number, currency: string): Money => {
  const d = decimalsOf(currency);
  return { currency_code: currency, value: d === 0 ? String(n) : (n / 10 ** d).toFixed(d) };
};

const MESSAGES: Record<number, { name: string; message: string }> = {
  400: { name: 'INVALID_REQUEST', message: 'Request is not well-formed, syntactically incorrect, or violates schema.' },
  401: { name: 'AUTHENTICATION_FAILURE', message: 'Authentication failed due to missing authorization header, or invalid authentication credentials.' },
  404: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' },
  422: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed, semantically incorrect, or failed business validation.' },
};

export class PaypalSimulator extends SimulatorBase {
  readonly #opts: PaypalSimulatorOptions;
  readonly #tokens = new Map<string, string>();
  readonly #orders = new Map<string, SimOrder>();
  /** Capture, authorization and refund ids → their order. */
  readonly #byPayment = new Map<string, string>();
  /** Refund id → the capture it refunds. */
  readonly #refundOf = new Map<string, string>();
  readonly #idempotent = new Map<string, { status: number; body: unknown }>();
  readonly #sent = new Map<string, { webhookId: string; digest: string }>();
  readonly #disputes = new Map<string, SimDispute>();
  /** Requests received: money (captures, authorizations, voids, refunds), orders created, queries, verifications. */
  readonly calls = { money: 0, orders: 0, queries: 0, verifications: 0, tokens: 0 };

  constructor(opts: PaypalSimulatorOptions) {
    // dispute evidence files come as multipart bodies
    super({ spec: PAYPAL_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.webhookHeaders, bodyLimit: 24 * 1024 * 1024 });
    this.#opts = opts;
  }

  paymentCalls(): number {
    return this.calls.money;
  }

  order(id: string): Readonly<SimOrder> | undefined {
    return this.#orders.get(id);
  }

  /** The order of a capture, authorization or refund id. */
  orderOf(paymentId: string): Readonly<SimOrder> | undefined {
    return this.#orders.get(this.#byPayment.get(paymentId) ?? '');
  }

  /**
   * PayPal decides a capture or authorization it held (PENDING): completed (or, for an authorization,
   * created) or denied, with its webhook (PAYMENT.CAPTURE.COMPLETED / .DENIED; PAYMENT.AUTHORIZATION.CREATED).
   */
  async decidePending(paymentId: string, decision: 'COMPLETED' | 'DENIED'): Promise<void> {
    const o = this.#orders.get(this.#byPayment.get(paymentId) ?? '');
    const capture = o?.captures.find((c) => c.id === paymentId);
    const auth = o?.authorizations.find((a) => a.id === paymentId);
    const p = capture ?? auth;
    if (!o || !p || p.status !== 'PENDING') throw new Error(`paypal simulator: ${paymentId} is not a PENDING payment`);
    delete p.status_details;
    p.update_time = this.now().toISOString();
    const app = this.#opts.apps[o.clientId];
    if (capture) {
      capture.status = decision === 'COMPLETED' ? 'COMPLETED' : 'DECLINED';
      if (decision === 'DENIED') capture.status_details = { reason: 'OTHER' };
      await this.#webhook(app, decision === 'COMPLETED' ? 'PAYMENT.CAPTURE.COMPLETED' : 'PAYMENT.CAPTURE.DENIED', this.#resource(o, capture));
    } else {
      auth!.status = decision === 'COMPLETED' ? 'CREATED' : 'DENIED';
      if (decision === 'COMPLETED') await this.#webhook(app, 'PAYMENT.AUTHORIZATION.CREATED', this.#resource(o, auth!));
    }
  }

  /** The operation a request path names (PayPal's operationId), with its ids. */
  #route(method: string, path: string): { op: string; ids: string[]; money: boolean } | null {
    const routes: Array<[string, RegExp, string, boolean]> = [
      ['POST', /^\/v1\/notifications\/verify-webhook-signature$/, 'verify-webhook-signature.post', false],
      ['POST', /^\/v2\/checkout\/orders$/, 'orders.create', false],
      ['GET', /^\/v2\/checkout\/orders\/([A-Z0-9]+)$/, 'orders.get', false],
      ['POST', /^\/v2\/checkout\/orders\/([A-Z0-9]+)\/capture$/, 'orders.capture', true],
      ['POST', /^\/v2\/checkout\/orders\/([A-Z0-9]+)\/authorize$/, 'orders.authorize', true],
      ['POST', /^\/v2\/payments\/authorizations\/([A-Z0-9]+)\/capture$/, 'authorizations.capture', true],
      ['POST', /^\/v2\/payments\/authorizations\/([A-Z0-9]+)\/void$/, 'authorizations.void', true],
      ['GET', /^\/v2\/payments\/authorizations\/([A-Z0-9]+)$/, 'authorizations.get', false],
      ['POST', /^\/v2\/payments\/captures\/([A-Z0-9]+)\/refund$/, 'captures.refund', true],
      ['GET', /^\/v2\/payments\/captures\/([A-Z0-9]+)$/, 'captures.get', false],
      ['GET', /^\/v2\/payments\/refunds\/([A-Z0-9]+)$/, 'refunds.get', false],
    ];
    for (const [m, re, op, isMoney] of routes) {
      const hit = m === method ? re.exec(path) : null;
      if (hit) return { op, ids: hit.slice(1), money: isMoney };
    }
    return null;
  }

  #error(status: number, issue: string | null, extra: Json = {}): Json {
    const e = MESSAGES[status] ?? { name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error occurred.' };
    return { ...e, debug_id: ppId(13).toLowerCase(), ...(issue ? { details: [{ issue, ...(extra.detail ? (extra.detail as Json) : {}) }] } : {}), ...(extra.links ? { links: extra.links } : {}) };
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const { raw, url, method } = r;
    const req = { headers: r.headers };
    const write = (status: number, body: unknown) => this.write(res, status, body);
    /** An answer of `op`, checked against the reference, then sent. */
    const answer = (op: string, status: number, body: unknown) => {
      this.spec.response(op, status, body);
      write(status, body);
    };
    if (url.pathname.startsWith('/sim/approve/')) return this.#approvePage(method, url, raw, res);
    if (url.pathname.startsWith('/sim/3ds/')) return this.#threedsPage(method, url, raw, res);
    if (method === 'POST' && url.pathname === '/v1/oauth2/token') {
      this.calls.tokens++;
      const form = Object.fromEntries(new URLSearchParams(raw));
      if (this.spec.request('oauth2.token', form).length > 0) return answer('oauth2.token', 400, { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL or not supported' });
      const [id, secret] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
      if (!id || this.#opts.apps[id]?.clientSecret !== secret) return answer('oauth2.token', 401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
      const token = `A21AA${ppId(40)}`;
      this.#tokens.set(token, id);
      return answer('oauth2.token', 200, { scope: 'https://uri.paypal.com/services/payments/payment', access_token: token, token_type: 'Bearer', app_id: `APP-${ppId(17)}`, expires_in: 32400, nonce: `${this.now().toISOString()}${ppId(10)}` });
    }
    if (url.pathname.startsWith('/v1/customer/disputes/')) return this.#disputeApi(r, res);
    const route = this.#route(method, url.pathname);
    if (!route) return write(404, this.#error(404, 'INVALID_RESOURCE_ID'));
    const clientId = this.#tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!clientId) return answer(route.op, 401, this.#error(401, null));
    const app = this.#opts.apps[clientId];
    let body: unknown;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        this.spec.violations.push(`PayPal ${route.op} request: not JSON`);
        return answer(route.op, 400, this.#error(400, 'MALFORMED_REQUEST_JSON'));
      }
    }
    const hasRequest = !!this.spec.checker.operation(route.op).request;
    const problems = this.spec.request(route.op, hasRequest ? body ?? {} : body);
    if (problems.length > 0) {
      const refused = this.#businessRefusal(body) ?? { status: 400, issue: problems.some((p) => p.includes('required property')) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_VALUE', description: problems.join('; ') };
      return answer(route.op, refused.status, this.#error(refused.status, refused.issue, { detail: { location: 'body', description: refused.description } }));
    }
    const b = obj(body) ?? {};
    if (route.op === 'verify-webhook-signature.post') {
      this.calls.verifications++;
      const sent = this.#sent.get(String(b.transmission_id));
      let ok = false;
      try {
        ok = !!sent && sent.webhookId === b.webhook_id && sent.webhookId === app.webhookId && sent.digest === canonical(JSON.stringify(b.webhook_event));
      } catch {
        ok = false;
      }
      return answer(route.op, 200, { verification_status: ok ? 'SUCCESS' : 'FAILURE' });
    }
    if (method === 'GET') {
      this.calls.queries++;
      const found = this.#get(clientId, route.op, route.ids[0]);
      return found ? answer(route.op, 200, found) : answer(route.op, 404, this.#error(404, 'INVALID_RESOURCE_ID'));
    }
    const requestId = typeof req.headers['paypal-request-id'] === 'string' ? `${clientId}:${url.pathname}:${req.headers['paypal-request-id']}` : null;
    const again = requestId ? this.#idempotent.get(requestId) : undefined;
    if (route.op === 'orders.create') {
      this.calls.orders++;
      if (again) return answer(route.op, again.status, again.body);
      const out = this.#create(clientId, b);
      if (requestId) this.#idempotent.set(requestId, { status: out.status, body: out.body });
      return answer(route.op, out.status, out.body);
    }
    this.calls.money++;
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    let out: Out;
    if (again) out = { status: again.status, body: again.body, hooks: [] };
    else {
      out = route.op === 'orders.capture' || route.op === 'orders.authorize'
        ? this.#orderMoney(clientId, route.ids[0], route.op === 'orders.capture' ? 'capture' : 'authorize', b)
        : this.#paymentAction(clientId, route.op, route.ids[0], b);
      if (requestId && out.status < 500) this.#idempotent.set(requestId, { status: out.status, body: out.body });
    }
    this.spec.response(route.op, out.status, out.body);
    return this.answer(r, res, fault, {
      status: out.status,
      body: out.status === 204 ? null : out.body,
      notify: out.hooks.length > 0 ? async () => {
        for (const h of out.hooks) await this.#webhook(app, h.type, h.resource);
      } : null,
      // the answer altered on the way: every payment in it completed, for one unit more
      tamper: (sent) => JSON.parse(JSON.stringify(sent).replace(/"status":"DECLINED"/g, '"status":"COMPLETED"').replace(/"response_code":"[0-9A-Z]+"/g, '"response_code":"0000"').replace(/"value":"(\d+)\.(\d\d)"/g, (_s, a: string, c: string) => `"value":"${a}.${String(Number(c) + 1).padStart(2, '0')}"`)),
    });
  }

  /** The 422 PayPal documents for a request that breaks one of its rules (else null: a 400). */
  #businessRefusal(body: unknown): { status: number; issue: string; description: string } | null {
    const b = obj(body);
    const amounts: Money[] = [];
    const add = (m: unknown) => {
      const o = obj(m);
      if (o && typeof o.currency_code === 'string' && typeof o.value === 'string') amounts.push(o as unknown as Money);
    };
    add(b?.amount);
    if (Array.isArray(b?.purchase_units)) for (const u of b.purchase_units) add(obj(u)?.amount);
    for (const m of amounts) {
      const d = PAYPAL_CURRENCY_DECIMALS[m.currency_code];
      if (d === undefined) return { status: 422, issue: 'INVALID_CURRENCY_CODE', description: 'Currency code is invalid or is not currently supported.' };
      const frac = m.value.split('.')[1];
      if (d === 0 && frac !== undefined) return { status: 422, issue: 'DECIMALS_NOT_SUPPORTED', description: 'Currency does not support decimals.' };
      if (frac !== undefined && frac.length > d) return { status: 422, issue: 'DECIMAL_PRECISION', description: 'If the currency supports decimals, only two decimal place precision is supported.' };
    }
    const card = obj(obj(b?.payment_source)?.card);
    const stored = obj(card?.stored_credential);
    if (stored) {
      const merchant = stored.payment_initiator === 'MERCHANT';
      if (merchant && card?.security_code !== undefined) return { status: 422, issue: 'MERCHANT_INITIATED_WITH_SECURITY_CODE', description: '`stored_payment_source.payment_initiator` = `MERCHANT` is not supported if `payment_source.card.security_code` is present in the order.' };
      if ((merchant && (stored.payment_type === 'ONE_TIME' || stored.usage === 'FIRST')) || (!merchant && stored.previous_network_transaction_reference !== undefined)) {
        return { status: 422, issue: 'INCOMPATIBLE_PARAMETER_VALUE', description: 'The value of the field is incompatible/redundant with other fields in the order.' };
      }
    }
    return null;
  }

  #get(clientId: string, op: string, id: string): Json | null {
    if (op === 'orders.get') {
      const o = this.#orders.get(id);
      return o && o.clientId === clientId ? this.#present(o) : null;
    }
    const o = this.#orders.get(this.#byPayment.get(id) ?? '');
    if (!o || o.clientId !== clientId) return null;
    const list = op === 'captures.get' ? o.captures : op === 'authorizations.get' ? o.authorizations : o.refunds;
    const p = list.find((x) => x.id === id);
    return p ? this.#resource(o, p) : null;
  }

  #create(clientId: string, b: Json): Out {
    const unit = obj((b.purchase_units as unknown[])[0])!;
    const amount = unit.amount as Money;
    const ctx = obj(obj(obj(b.payment_source)?.paypal)?.experience_context);
    const now = this.now().toISOString();
    const o: SimOrder = {
      id: ppId(), clientId, intent: b.intent as 'CAPTURE' | 'AUTHORIZE', status: ctx ? 'PAYER_ACTION_REQUIRED' : 'CREATED', customId: String(unit.custom_id ?? ''),
      amount: { currency_code: amount.currency_code, value: amount.value }, createTime: now,
      paypal: ctx ? { returnUrl: String(ctx.return_url), cancelUrl: String(ctx.cancel_url) } : null,
      captures: [], authorizations: [], refunds: [], card: null, pendingCard: null, storedCredential: null, verification: null,
    };
    this.#orders.set(o.id, o);
    return { status: ctx ? 200 : 201, body: this.#present(o), hooks: [] };
  }

  #present(o: SimOrder): Json {
    const payments = { ...(o.authorizations.length ? { authorizations: o.authorizations } : {}), ...(o.captures.length ? { captures: o.captures } : {}), ...(o.refunds.length ? { refunds: o.refunds } : {}) };
    const links: Array<{ href: string; rel: string; method: string }> = [{ href: `${this.url}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' }];
    const action = this.#payerAction(o);
    if (action) links.push({ href: action, rel: 'payer-action', method: 'GET' });
    return {
      id: o.id, intent: o.intent, status: o.status,
      ...(o.card ? { payment_source: { card: o.card } } : {}),
      purchase_units: [{ reference_id: 'default', custom_id: o.customId, amount: o.amount, ...(Object.keys(payments).length ? { payments } : {}) }],
      create_time: o.createTime, links,
    };
  }

  #payerAction(o: SimOrder): string | null {
    if (o.status !== 'PAYER_ACTION_REQUIRED') return null;
    return o.pendingCard ? `${this.url}/sim/3ds/${o.id}` : o.paypal ? `${this.url}/sim/approve/${o.id}` : null;
  }

  /** A capture, authorization or refund as a webhook or a GET shows it (with its related ids). */
  #resource(o: SimOrder, p: Payment): Json {
    const related: Json = { order_id: o.id };
    const capturedFrom = o.captures.includes(p) ? o.authorizations.find((a) => a.status === 'CAPTURED' || a.status === 'PARTIALLY_CAPTURED') : undefined;
    if (capturedFrom) related.authorization_id = capturedFrom.id;
    const refunded = this.#refundOf.get(p.id);
    if (refunded) related.capture_id = refunded;
    return { ...p, supplementary_data: { related_ids: related } };
  }

  #payment(o: SimOrder, amount: Money, status: string, extra: Partial<Payment> = {}): Payment {
    const now = this.now().toISOString();
    const p: Payment = { id: ppId(), status, amount, custom_id: o.customId, create_time: now, update_time: now, ...extra };
    this.#byPayment.set(p.id, o.id);
    return p;
  }

  #orderMoney(clientId: string, orderId: string, what: 'capture' | 'authorize', b: Json): Out {
    const o = this.#orders.get(orderId);
    const refuse = (issue: string, extra: Json = {}): Out => ({ status: 422, body: this.#error(422, issue, extra), hooks: [] });
    if (!o || o.clientId !== clientId) return { status: 404, body: this.#error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
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
          links: [{ href: this.#payerAction(o)!, rel: 'payer-action', method: 'GET' }],
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
      const action = this.#payerAction(o);
      return refuse('PAYER_ACTION_REQUIRED', action ? { links: [{ href: action, rel: 'payer-action', method: 'GET' }] } : {});
    } else return refuse('ORDER_NOT_APPROVED');
    const ok = code === '0000';
    const network = number && ok ? simNetwork(number) : null;
    const ntr = network ? { network_transaction_reference: { id: schemeTransactionId(), network, ...(network === 'MASTERCARD' || network === 'DISCOVER' ? { date: `${String(now.getUTCMonth() + 1).padStart(2, '0')}${String(now.getUTCDate()).padStart(2, '0')}` } : {}) } } : {};
    const response = number ? { processor_response: { response_code: code } } : {};
    const review = pending && ok ? { status_details: { reason: 'PENDING_REVIEW' } } : {};
    const hooks: Out['hooks'] = [];
    if (what === 'capture') {
      const p = this.#payment(o, o.amount, !ok ? 'DECLINED' : pending ? 'PENDING' : 'COMPLETED', { ...response, ...review, ...ntr, ...(ok ? { final_capture: true } : {}) });
      o.captures.push(p);
      hooks.push({ type: !ok ? 'PAYMENT.CAPTURE.DECLINED' : pending ? 'PAYMENT.CAPTURE.PENDING' : 'PAYMENT.CAPTURE.COMPLETED', resource: this.#resource(o, p) });
    } else {
      const p = this.#payment(o, o.amount, !ok ? 'DENIED' : pending ? 'PENDING' : 'CREATED', { ...response, ...review, ...ntr });
      o.authorizations.push(p);
      if (ok && !pending) hooks.push({ type: 'PAYMENT.AUTHORIZATION.CREATED', resource: this.#resource(o, p) });
    }
    if (ok) o.status = 'COMPLETED';
    return { status: 201, body: this.#present(o), hooks };
  }

  #paymentAction(clientId: string, op: string, id: string, b: Json): Out {
    const o = this.#orders.get(this.#byPayment.get(id) ?? '');
    const refuse = (issue: string): Out => ({ status: 422, body: this.#error(422, issue), hooks: [] });
    if (!o || o.clientId !== clientId) return { status: 404, body: this.#error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
    const amount = (obj(b.amount) as unknown as Money | null) ?? null;
    if (op === 'authorizations.capture' || op === 'authorizations.void') {
      const auth = o.authorizations.find((a) => a.id === id);
      if (!auth) return { status: 404, body: this.#error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
      if (auth.status !== 'CREATED') return refuse(auth.status === 'VOIDED' ? (op === 'authorizations.void' ? 'PREVIOUSLY_VOIDED' : 'AUTHORIZATION_VOIDED') : op === 'authorizations.void' ? 'PREVIOUSLY_CAPTURED' : 'AUTHORIZATION_ALREADY_CAPTURED');
      if (op === 'authorizations.void') {
        auth.status = 'VOIDED';
        auth.update_time = this.now().toISOString();
        return { status: 200, body: this.#resource(o, auth), hooks: [{ type: 'PAYMENT.AUTHORIZATION.VOIDED', resource: this.#resource(o, auth) }] };
      }
      const value = amount ?? auth.amount;
      if (value.currency_code !== auth.amount.currency_code) return refuse('CURRENCY_MISMATCH');
      if (units(value) > units(auth.amount)) return refuse('MAX_CAPTURE_AMOUNT_EXCEEDED');
      auth.status = units(value) === units(auth.amount) ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
      const p = this.#payment(o, value, 'COMPLETED', { ...(typeof b.invoice_id === 'string' ? { invoice_id: b.invoice_id } : {}), final_capture: b.final_capture === true });
      o.captures.push(p);
      return { status: 201, body: this.#resource(o, p), hooks: [{ type: 'PAYMENT.CAPTURE.COMPLETED', resource: this.#resource(o, p) }] };
    }
    const cap = o.captures.find((c) => c.id === id);
    if (!cap) return { status: 404, body: this.#error(404, 'INVALID_RESOURCE_ID'), hooks: [] };
    if (cap.status !== 'COMPLETED' && cap.status !== 'PARTIALLY_REFUNDED') return refuse(cap.status === 'REFUNDED' ? 'CAPTURE_FULLY_REFUNDED' : 'REFUND_NOT_ALLOWED');
    const refunded = o.refunds.filter((r) => this.#refundOf.get(r.id) === cap.id).reduce((n, r) => n + units(r.amount), 0);
    const value = amount ?? money(units(cap.amount) - refunded, cap.amount.currency_code);
    if (value.currency_code !== cap.amount.currency_code) return refuse('REFUND_CAPTURE_CURRENCY_MISMATCH');
    if (refunded + units(value) > units(cap.amount)) return refuse('REFUND_AMOUNT_EXCEEDED');
    const r = this.#payment(o, value, 'COMPLETED', { ...(typeof b.custom_id === 'string' ? { custom_id: b.custom_id } : {}), ...(typeof b.invoice_id === 'string' ? { invoice_id: b.invoice_id } : {}) });
    this.#refundOf.set(r.id, cap.id);
    o.refunds.push(r);
    cap.status = refunded + units(value) === units(cap.amount) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return { status: 201, body: this.#resource(o, r), hooks: [{ type: 'PAYMENT.CAPTURE.REFUNDED', resource: this.#resource(o, r) }] };
  }

  async #webhook(app: PaypalSimApp, type: string, resource: Json): Promise<void> {
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
    const orderId = this.#byPayment.get(captureId);
    const order = orderId ? this.#orders.get(orderId) : undefined;
    const capture = order?.captures.find((c) => c.id === captureId);
    if (!order || !capture) throw new Error(`no capture ${captureId}`);
    const now = this.now();
    const d: SimDispute = {
      id: `PP-R-${ppId(3)}-${ppId(8)}`, clientId: order.clientId, order, capture, reason: opts.reason ?? 'UNAUTHORISED', stage: opts.stage ?? 'CHARGEBACK',
      amount: opts.amount !== undefined ? money(opts.amount, capture.amount.currency_code) : capture.amount,
      status: 'WAITING_FOR_SELLER_RESPONSE', outcomeCode: null, decision: opts.decision ?? 'RESOLVED_SELLER_FAVOUR', evidences: [], files: new Map(), externalReasonCode: opts.externalReasonCode ?? null,
      createTime: now.toISOString(), updateTime: now.toISOString(), dueDate: new Date(now.getTime() + 10 * 86400_000).toISOString(),
    };
    this.#disputes.set(d.id, d);
    await this.#disputeWebhook(d, 'CUSTOMER.DISPUTE.CREATED');
    return d;
  }

  /** Resolves every dispute under review as it was raised to be, and sends CUSTOMER.DISPUTE.RESOLVED. */
  async decideDisputes(): Promise<void> {
    for (const d of this.#disputes.values()) {
      if (d.status !== 'UNDER_REVIEW') continue;
      d.status = 'RESOLVED';
      d.outcomeCode = d.decision;
      d.updateTime = this.now().toISOString();
      await this.#disputeWebhook(d, 'CUSTOMER.DISPUTE.RESOLVED');
    }
  }

  /** A dispute as the simulator keeps it (tests). */
  dispute(id: string): Readonly<SimDispute> | undefined {
    return this.#disputes.get(id);
  }

  #disputeResource(d: SimDispute): Json {
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

  async #disputeWebhook(d: SimDispute, type: string): Promise<void> {
    const app = this.#opts.apps[d.clientId];
    if (!app?.webhookUrl) return;
    const event = { id: `WH-${ppId(20)}`, event_version: '1.0', create_time: this.now().toISOString(), resource_type: 'dispute', resource_version: '1.0', event_type: type, summary: type, resource: this.#disputeResource(d) };
    this.spec.response('webhook', type, event);
    await this.send(app, JSON.stringify(event));
  }

  /** GET a dispute, provide-evidence, accept-claim (multipart `input`), each checked against the reference. */
  async #disputeApi(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const m = /^\/v1\/customer\/disputes\/([A-Za-z0-9-]+)(\/provide-evidence|\/accept-claim)?$/.exec(r.url.pathname);
    const op = !m ? null : !m[2] && r.method === 'GET' ? 'disputes.get' : m[2] === '/provide-evidence' && r.method === 'POST' ? 'disputes.provide-evidence' : m[2] === '/accept-claim' && r.method === 'POST' ? 'disputes.accept-claim' : null;
    if (!m || !op) return this.write(res, 404, this.#error(404, 'INVALID_RESOURCE_ID'));
    const answer = (status: number, body: unknown) => {
      this.spec.response(op, status, body);
      this.write(res, status, body);
    };
    const clientId = this.#tokens.get(String(r.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!clientId) return answer(401, this.#error(401, null));
    const d = this.#disputes.get(m[1]);
    if (!d || d.clientId !== clientId) return answer(404, this.#error(404, 'INVALID_RESOURCE_ID'));
    if (op === 'disputes.get') return answer(200, this.#disputeResource(d));
    const parts = readMultipart(r.bytes, String(r.headers['content-type'] ?? ''));
    if (!parts) return answer(400, this.#error(400, 'INVALID_REQUEST_BODY'));
    let input: unknown;
    try {
      const part = parts.find((p) => p.name === 'input');
      input = part ? JSON.parse(part.content.toString('utf8')) : undefined;
    } catch {
      input = undefined;
    }
    const files = parts.filter((p) => p.name === 'evidence-file' && p.filename !== null);
    const problems = this.spec.request(op, input ?? {});
    if (problems.length > 0) return answer(400, this.#error(400, 'INVALID_PARAMETER_VALUE', { detail: { location: 'body', description: problems.join('; ') } }));
    if (d.status !== 'WAITING_FOR_SELLER_RESPONSE') return answer(422, this.#error(422, 'NOT_AUTHORIZED_TO_PERFORM_ACTION'));
    if (op === 'disputes.provide-evidence') {
      // every document an evidence names is one of the request's files: a PDF, PNG or JPEG
      const named = ((input as { evidences: Json[] }).evidences).flatMap((e) => ((e.documents as Json[] | undefined) ?? []).map((x) => String(x.name)));
      const kind = (b: Buffer) => (b.subarray(0, 5).toString('latin1') === '%PDF-' ? 'application/pdf' : b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) ? 'image/png' : b[0] === 0xff && b[1] === 0xd8 ? 'image/jpeg' : null);
      if (named.some((n) => !files.some((f) => f.filename === n)) || files.some((f) => !kind(f.content))) return answer(400, this.#error(400, 'INVALID_EVIDENCE_FILE'));
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
    this.#sent.set(transmission, { webhookId: app.webhookId, digest: canonical(body) });
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
  async #threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const o = this.#orders.get(url.pathname.slice('/sim/3ds/'.length));
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
  async #approvePage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const o = this.#orders.get(url.pathname.slice('/sim/approve/'.length));
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
      const app = this.#opts.apps[o.clientId];
      void this.#webhook(app, 'CHECKOUT.ORDER.APPROVED', this.#present(o));
    }
    res.writeHead(302, { location: back.toString() }).end();
  }
}
