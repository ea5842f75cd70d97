/** The PayPal simulator's state, routing and order reads (server.ts gathers it). */
import type http from 'node:http';
import { SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { PAYPAL_CURRENCY_DECIMALS } from '../currencies.js';
import { PAYPAL_SPEC } from '../spec.js';
import { type PaypalSimApp, type PaypalSimulatorOptions, type Json, type Money, type Payment, type Authentication, type SimOrder, type Out, type SimDispute, ppId, canonical, obj, money, MESSAGES } from './model.js';

/** The PayPal simulator's state, routing and order reads; `PaypalSimulator` (server.ts) adds the money calls, webhooks, disputes and the buyer's pages. */
export abstract class PaypalSimulatorCore extends SimulatorBase {
  protected abstract _approvePage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void>;
  protected abstract _disputeApi(r: SimRequest, res: http.ServerResponse): Promise<void>;
  protected abstract _orderMoney(clientId: string, orderId: string, what: 'capture' | 'authorize', b: Json): Out;
  protected abstract _paymentAction(clientId: string, op: string, id: string, b: Json): Out;
  protected abstract _threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void>;
  protected abstract _webhook(app: PaypalSimApp, type: string, resource: Json): Promise<void>;

  protected readonly _opts: PaypalSimulatorOptions;
  protected readonly _tokens = new Map<string, string>();
  protected readonly _orders = new Map<string, SimOrder>();
  /** Capture, authorization and refund ids → their order. */
  protected readonly _byPayment = new Map<string, string>();
  /** Refund id → the capture it refunds. */
  protected readonly _refundOf = new Map<string, string>();
  protected readonly _idempotent = new Map<string, { status: number; body: unknown }>();
  protected readonly _sent = new Map<string, { webhookId: string; digest: string }>();
  protected readonly _disputes = new Map<string, SimDispute>();
  /** Requests received: money (captures, authorizations, voids, refunds), orders created, queries, verifications. */
  readonly calls = { money: 0, orders: 0, queries: 0, verifications: 0, tokens: 0 };

  constructor(opts: PaypalSimulatorOptions) {
    // dispute evidence files come as multipart bodies
    super({ spec: PAYPAL_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.webhookHeaders, bodyLimit: 24 * 1024 * 1024 });
    this._opts = opts;
  }

  paymentCalls(): number {
    return this.calls.money;
  }

  order(id: string): Readonly<SimOrder> | undefined {
    return this._orders.get(id);
  }

  /** The order of a capture, authorization or refund id. */
  orderOf(paymentId: string): Readonly<SimOrder> | undefined {
    return this._orders.get(this._byPayment.get(paymentId) ?? '');
  }

  /**
   * PayPal decides a capture or authorization it held (PENDING): completed (or, for an authorization,
   * created) or denied, with its webhook (PAYMENT.CAPTURE.COMPLETED / .DENIED; PAYMENT.AUTHORIZATION.CREATED).
   */
  async decidePending(paymentId: string, decision: 'COMPLETED' | 'DENIED'): Promise<void> {
    const o = this._orders.get(this._byPayment.get(paymentId) ?? '');
    const capture = o?.captures.find((c) => c.id === paymentId);
    const auth = o?.authorizations.find((a) => a.id === paymentId);
    const p = capture ?? auth;
    if (!o || !p || p.status !== 'PENDING') throw new Error(`paypal simulator: ${paymentId} is not a PENDING payment`);
    delete p.status_details;
    p.update_time = this.now().toISOString();
    const app = this._opts.apps[o.clientId];
    if (capture) {
      capture.status = decision === 'COMPLETED' ? 'COMPLETED' : 'DECLINED';
      if (decision === 'DENIED') capture.status_details = { reason: 'OTHER' };
      await this._webhook(app, decision === 'COMPLETED' ? 'PAYMENT.CAPTURE.COMPLETED' : 'PAYMENT.CAPTURE.DENIED', this._resource(o, capture));
    } else {
      auth!.status = decision === 'COMPLETED' ? 'CREATED' : 'DENIED';
      if (decision === 'COMPLETED') await this._webhook(app, 'PAYMENT.AUTHORIZATION.CREATED', this._resource(o, auth!));
    }
  }

  /** The operation a request path names (PayPal's operationId), with its ids. */
  protected _route(method: string, path: string): { op: string; ids: string[]; money: boolean } | null {
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

  protected _error(status: number, issue: string | null, extra: Json = {}): Json {
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
    if (url.pathname.startsWith('/sim/approve/')) return this._approvePage(method, url, raw, res);
    if (url.pathname.startsWith('/sim/3ds/')) return this._threedsPage(method, url, raw, res);
    if (method === 'POST' && url.pathname === '/v1/oauth2/token') {
      this.calls.tokens++;
      const form = Object.fromEntries(new URLSearchParams(raw));
      if (this.spec.request('oauth2.token', form).length > 0) return answer('oauth2.token', 400, { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL or not supported' });
      const [id, secret] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
      if (!id || this._opts.apps[id]?.clientSecret !== secret) return answer('oauth2.token', 401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
      const token = `A21AA${ppId(40)}`;
      this._tokens.set(token, id);
      return answer('oauth2.token', 200, { scope: 'https://uri.paypal.com/services/payments/payment', access_token: token, token_type: 'Bearer', app_id: `APP-${ppId(17)}`, expires_in: 32400, nonce: `${this.now().toISOString()}${ppId(10)}` });
    }
    if (url.pathname.startsWith('/v1/customer/disputes/')) return this._disputeApi(r, res);
    const route = this._route(method, url.pathname);
    if (!route) return write(404, this._error(404, 'INVALID_RESOURCE_ID'));
    const clientId = this._tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!clientId) return answer(route.op, 401, this._error(401, null));
    const app = this._opts.apps[clientId];
    let body: unknown;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        this.spec.violations.push(`PayPal ${route.op} request: not JSON`);
        return answer(route.op, 400, this._error(400, 'MALFORMED_REQUEST_JSON'));
      }
    }
    const hasRequest = !!this.spec.checker.operation(route.op).request;
    const problems = this.spec.request(route.op, hasRequest ? body ?? {} : body);
    if (problems.length > 0) {
      const refused = this._businessRefusal(body) ?? { status: 400, issue: problems.some((p) => p.includes('required property')) ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_VALUE', description: problems.join('; ') };
      return answer(route.op, refused.status, this._error(refused.status, refused.issue, { detail: { location: 'body', description: refused.description } }));
    }
    const b = obj(body) ?? {};
    if (route.op === 'verify-webhook-signature.post') {
      this.calls.verifications++;
      const sent = this._sent.get(String(b.transmission_id));
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
      const found = this._get(clientId, route.op, route.ids[0]);
      return found ? answer(route.op, 200, found) : answer(route.op, 404, this._error(404, 'INVALID_RESOURCE_ID'));
    }
    const requestId = typeof req.headers['paypal-request-id'] === 'string' ? `${clientId}:${url.pathname}:${req.headers['paypal-request-id']}` : null;
    const again = requestId ? this._idempotent.get(requestId) : undefined;
    if (route.op === 'orders.create') {
      this.calls.orders++;
      if (again) return answer(route.op, again.status, again.body);
      const out = this._create(clientId, b);
      if (requestId) this._idempotent.set(requestId, { status: out.status, body: out.body });
      return answer(route.op, out.status, out.body);
    }
    this.calls.money++;
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    let out: Out;
    if (again) out = { status: again.status, body: again.body, hooks: [] };
    else {
      out = route.op === 'orders.capture' || route.op === 'orders.authorize'
        ? this._orderMoney(clientId, route.ids[0], route.op === 'orders.capture' ? 'capture' : 'authorize', b)
        : this._paymentAction(clientId, route.op, route.ids[0], b);
      if (requestId && out.status < 500) this._idempotent.set(requestId, { status: out.status, body: out.body });
    }
    this.spec.response(route.op, out.status, out.body);
    return this.answer(r, res, fault, {
      status: out.status,
      body: out.status === 204 ? null : out.body,
      notify: out.hooks.length > 0 ? async () => {
        for (const h of out.hooks) await this._webhook(app, h.type, h.resource);
      } : null,
      // the answer altered on the way: every payment in it completed, for one unit more
      tamper: (sent) => JSON.parse(JSON.stringify(sent).replace(/"status":"DECLINED"/g, '"status":"COMPLETED"').replace(/"response_code":"[0-9A-Z]+"/g, '"response_code":"0000"').replace(/"value":"(\d+)\.(\d\d)"/g, (_s, a: string, c: string) => `"value":"${a}.${String(Number(c) + 1).padStart(2, '0')}"`)),
    });
  }

  /** The 422 PayPal documents for a request that breaks one of its rules (else null: a 400). */
  protected _businessRefusal(body: unknown): { status: number; issue: string; description: string } | null {
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

  protected _get(clientId: string, op: string, id: string): Json | null {
    if (op === 'orders.get') {
      const o = this._orders.get(id);
      return o && o.clientId === clientId ? this._present(o) : null;
    }
    const o = this._orders.get(this._byPayment.get(id) ?? '');
    if (!o || o.clientId !== clientId) return null;
    const list = op === 'captures.get' ? o.captures : op === 'authorizations.get' ? o.authorizations : o.refunds;
    const p = list.find((x) => x.id === id);
    return p ? this._resource(o, p) : null;
  }

  protected _create(clientId: string, b: Json): Out {
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
    this._orders.set(o.id, o);
    return { status: ctx ? 200 : 201, body: this._present(o), hooks: [] };
  }

  protected _present(o: SimOrder): Json {
    const payments = { ...(o.authorizations.length ? { authorizations: o.authorizations } : {}), ...(o.captures.length ? { captures: o.captures } : {}), ...(o.refunds.length ? { refunds: o.refunds } : {}) };
    const links: Array<{ href: string; rel: string; method: string }> = [{ href: `${this.url}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' }];
    const action = this._payerAction(o);
    if (action) links.push({ href: action, rel: 'payer-action', method: 'GET' });
    return {
      id: o.id, intent: o.intent, status: o.status,
      ...(o.card ? { payment_source: { card: o.card } } : {}),
      purchase_units: [{ reference_id: 'default', custom_id: o.customId, amount: o.amount, ...(Object.keys(payments).length ? { payments } : {}) }],
      create_time: o.createTime, links,
    };
  }

  protected _payerAction(o: SimOrder): string | null {
    if (o.status !== 'PAYER_ACTION_REQUIRED') return null;
    return o.pendingCard ? `${this.url}/sim/3ds/${o.id}` : o.paypal ? `${this.url}/sim/approve/${o.id}` : null;
  }

  /** A capture, authorization or refund as a webhook or a GET shows it (with its related ids). */
  protected _resource(o: SimOrder, p: Payment): Json {
    const related: Json = { order_id: o.id };
    const capturedFrom = o.captures.includes(p) ? o.authorizations.find((a) => a.status === 'CAPTURED' || a.status === 'PARTIALLY_CAPTURED') : undefined;
    if (capturedFrom) related.authorization_id = capturedFrom.id;
    const refunded = this._refundOf.get(p.id);
    if (refunded) related.capture_id = refunded;
    return { ...p, supplementary_data: { related_ids: related } };
  }

  protected _payment(o: SimOrder, amount: Money, status: string, extra: Partial<Payment> = {}): Payment {
    const now = this.now().toISOString();
    const p: Payment = { id: ppId(), status, amount, custom_id: o.customId, create_time: now, update_time: now, ...extra };
    this._byPayment.set(p.id, o.id);
    return p;
  }

}
