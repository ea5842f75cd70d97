/**
 * The PayPal simulator: a separate HTTP server speaking the parts of PayPal's REST API the connector
 * uses, as PayPal's public API reference describes them, for the tests and for demos (`npx paygate
 * paypal-simulator`, then PAYGATE_PAYPAL_URL=http://127.0.0.1:PORT).
 *
 *  - `POST /v1/oauth2/token` (Basic client id and secret) → a bearer token;
 *  - Orders v2: create (`CREATED`; `PAYER_ACTION_REQUIRED` with a `payer-action` link for a PayPal
 *    account), `capture` / `authorize` with a card payment source (or after the buyer's approval),
 *    `GET` with every authorization, capture and refund; the buyer's approval page `/sim/approve/{id}`;
 *  - Payments v2: capture and void an authorization, refund a capture;
 *  - `PayPal-Request-Id`: a request repeated under the same id gets the first answer;
 *  - webhooks (PAYMENT.CAPTURE.COMPLETED / DECLINED / REFUNDED, PAYMENT.AUTHORIZATION.CREATED / VOIDED,
 *    CHECKOUT.ORDER.APPROVED) with the five PAYPAL-* transmission headers, and
 *    `POST /v1/notifications/verify-webhook-signature`, which answers SUCCESS only for an event it sent,
 *    unchanged, to that webhook id;
 *  - latency and faults on the money calls (captures, authorizations, voids, refunds): `lost`, `drop`,
 *    `drop-notify`, `notify-first`, `tamper` (as the Checkout.com simulator's).
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { decide } from './rules.js';
import { schemeTransactionId } from '../../scheme-ids.js';

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

export type PaypalFaultKind = 'lost' | 'drop' | 'drop-notify' | 'notify-first' | 'tamper';
export type WebhookTransport = (n: { url: string; headers: Record<string, string>; body: string }) => Promise<number>;

interface Money { currency_code: string; value: string }
interface Payment { id: string; status: string; amount: Money; custom_id: string; processor_response?: { response_code: string }; network_transaction_reference?: { id: string; network: string }; final_capture?: boolean; create_time: string }

interface SimOrder {
  id: string;
  clientId: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: string;
  customId: string;
  amount: Money;
  paypal: { returnUrl: string; cancelUrl: string } | null;
  captures: Payment[];
  authorizations: Payment[];
  refunds: Payment[];
  /** A card payment waiting for 3-D Secure on PayPal's page: the card's facts and where the buyer returns. */
  pendingCard: { number: string; expiry: string; merchantInitiated: boolean; returnUrl: string | null } | null;
  /** The 3-D Secure result of the pending card (Y passed, N failed), once the cardholder answered. */
  threeds: 'Y' | 'N' | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ppId = (n = 17) => Array.from({ length: n }, () => UP[randomInt(UP.length)]).join('');
const canonical = (text: string) => createHash('sha256').update(JSON.stringify(JSON.parse(text))).digest('hex');
const cents = (m: Money) => Math.round(Number(m.value) * 100);

export class PaypalSimulator {
  latencyMs: number;
  transport: WebhookTransport | null = null;
  readonly #opts: PaypalSimulatorOptions;
  readonly #server: http.Server;
  readonly #tokens = new Map<string, string>();
  readonly #orders = new Map<string, SimOrder>();
  /** Capture, authorization and refund ids → their order. */
  readonly #byPayment = new Map<string, string>();
  readonly #idempotent = new Map<string, { status: number; body: string }>();
  readonly #sent = new Map<string, { webhookId: string; digest: string }>();
  readonly #faults: Array<{ kind: PaypalFaultKind; left: number }> = [];
  readonly webhooks: Array<{ url: string; headers: Record<string, string>; body: string; status: number | null }> = [];
  /** Requests received: money (captures, authorizations, voids, refunds), orders created, queries, verifications. */
  readonly calls = { money: 0, orders: 0, queries: 0, verifications: 0, tokens: 0 };
  #url = '';

  constructor(opts: PaypalSimulatorOptions) {
    this.#opts = opts;
    this.latencyMs = opts.latencyMs ?? 0;
    this.#server = http.createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    this.#server.keepAliveTimeout = 60_000;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(port, host, resolve));
    const a = this.#server.address() as AddressInfo;
    this.#url = `http://${host.includes(':') ? `[${host}]` : host}:${a.port}`;
    return this.#url;
  }

  get url(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  injectFault(kind: PaypalFaultKind, times = 1): void {
    this.#faults.push({ kind, left: times });
  }

  order(id: string): Readonly<SimOrder> | undefined {
    return this.#orders.get(id);
  }

  #takeFault(): PaypalFaultKind | null {
    const f = this.#faults[0];
    if (!f) return null;
    if (--f.left <= 0) this.#faults.shift();
    return f.kind;
  }

  #now(): Date {
    return this.#opts.clock?.() ?? new Date();
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://sim');
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(body === null ? '' : JSON.stringify(body));
    if (url.pathname.startsWith('/sim/approve/')) return this.#approvePage(req.method ?? 'GET', url, raw, res);
    if (url.pathname.startsWith('/sim/3ds/')) return this.#threedsPage(req.method ?? 'GET', url, raw, res);
    if (req.method === 'POST' && url.pathname === '/v1/oauth2/token') {
      this.calls.tokens++;
      const [id, secret] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
      if (!id || this.#opts.apps[id]?.clientSecret !== secret || !/grant_type=client_credentials/.test(raw)) return json(401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
      const token = `A21AA${ppId(40)}`;
      this.#tokens.set(token, id);
      return json(200, { scope: 'https://uri.paypal.com/services/payments/payment', access_token: token, token_type: 'Bearer', app_id: `APP-${ppId(17)}`, expires_in: 32400, nonce: `${this.#now().toISOString()}${ppId(10)}` });
    }
    const clientId = this.#tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!clientId) return json(401, { error: 'invalid_token', error_description: 'Token signature verification failed' });
    const app = this.#opts.apps[clientId];
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return json(400, { name: 'INVALID_REQUEST', message: 'Request is not well-formed', details: [{ issue: 'MALFORMED_REQUEST_JSON' }] });
      }
    }
    if (req.method === 'POST' && url.pathname === '/v1/notifications/verify-webhook-signature') {
      this.calls.verifications++;
      const sent = this.#sent.get(String(body.transmission_id));
      let ok = false;
      try {
        ok = !!sent && sent.webhookId === body.webhook_id && sent.webhookId === app.webhookId && sent.digest === canonical(JSON.stringify(body.webhook_event));
      } catch {
        ok = false;
      }
      return json(200, { verification_status: ok ? 'SUCCESS' : 'FAILURE' });
    }
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/v2\/checkout\/orders\/([A-Z0-9]+)$/.exec(url.pathname))) {
      this.calls.queries++;
      const o = this.#orders.get(m[1]);
      return o && o.clientId === clientId ? json(200, this.#present(o)) : json(404, { name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID' }] });
    }
    const requestId = typeof req.headers['paypal-request-id'] === 'string' ? `${clientId}:${url.pathname}:${req.headers['paypal-request-id']}` : null;
    const again = requestId ? this.#idempotent.get(requestId) : undefined;
    if (req.method === 'POST' && url.pathname === '/v2/checkout/orders') {
      this.calls.orders++;
      if (again) return void res.writeHead(again.status, { 'content-type': 'application/json' }).end(again.body);
      const out = this.#create(clientId, body);
      if (requestId) this.#idempotent.set(requestId, { status: out.status, body: JSON.stringify(out.body) });
      return json(out.status, out.body);
    }
    const money =
      req.method === 'POST'
        ? /^\/v2\/checkout\/orders\/([A-Z0-9]+)\/(capture|authorize)$/.exec(url.pathname) ?? /^\/v2\/payments\/(authorizations|captures)\/([A-Z0-9]+)\/(capture|void|refund)$/.exec(url.pathname)
        : null;
    if (!money) return json(404, { name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID' }] });
    this.calls.money++;
    const fault = this.#takeFault();
    if (fault === 'lost') return void req.socket.destroy();
    let out: { status: number; body: unknown; hooks: Array<{ type: string; resource: Record<string, unknown> }> };
    if (again) out = { status: again.status, body: again.body ? JSON.parse(again.body) : null, hooks: [] };
    else {
      out = money.length === 3 ? this.#orderMoney(clientId, money[1], money[2] as 'capture' | 'authorize', body) : this.#paymentAction(clientId, money[1] as 'authorizations' | 'captures', money[2], money[3] as 'capture' | 'void' | 'refund', body);
      if (requestId && out.status < 500) this.#idempotent.set(requestId, { status: out.status, body: out.body === null ? '' : JSON.stringify(out.body) });
    }
    const send = async () => {
      for (const h of out.hooks) await this.#webhook(app, h.type, h.resource);
    };
    if (fault === 'drop') return void req.socket.destroy();
    if (fault === 'drop-notify' || fault === 'notify-first') {
      await send();
      if (fault === 'drop-notify') return void req.socket.destroy();
      out.hooks = [];
    }
    let answer = out.body;
    if (fault === 'tamper' && answer && typeof answer === 'object') {
      // the answer altered on the way: every payment in it completed, for one cent more
      const text = JSON.stringify(answer).replace(/"status":"DECLINED"/g, '"status":"COMPLETED"').replace(/"response_code":"[0-9A-Z]+"/g, '"response_code":"0000"').replace(/"value":"(\d+)\.(\d\d)"/g, (_s, a: string, b: string) => `"value":"${a}.${String(Number(b) + 1).padStart(2, '0')}"`);
      answer = JSON.parse(text);
    }
    if (out.status === 204) res.writeHead(204).end();
    else json(out.status, answer);
    void send();
  }

  #unprocessable(issue: string) {
    return { status: 422, body: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed, semantically incorrect, or failed business validation.', details: [{ issue }] }, hooks: [] };
  }

  #create(clientId: string, b: Record<string, unknown>) {
    const unit = Array.isArray(b.purchase_units) ? (b.purchase_units[0] as Record<string, unknown>) : null;
    const amount = unit?.amount as Money | undefined;
    if ((b.intent !== 'CAPTURE' && b.intent !== 'AUTHORIZE') || !unit || !amount || !/^[A-Z]{3}$/.test(String(amount.currency_code)) || !/^\d+(\.\d{2})?$/.test(String(amount.value))) {
      return { status: 400, body: { name: 'INVALID_REQUEST', details: [{ issue: 'INVALID_PARAMETER_VALUE' }] } };
    }
    const ctx = ((b.payment_source as Record<string, Record<string, unknown>> | undefined)?.paypal?.experience_context ?? null) as Record<string, unknown> | null;
    const o: SimOrder = {
      id: ppId(), clientId, intent: b.intent, status: ctx ? 'PAYER_ACTION_REQUIRED' : 'CREATED', customId: String(unit.custom_id ?? ''), amount: { currency_code: amount.currency_code, value: amount.value },
      paypal: ctx ? { returnUrl: String(ctx.return_url), cancelUrl: String(ctx.cancel_url) } : null, captures: [], authorizations: [], refunds: [], pendingCard: null, threeds: null,
    };
    this.#orders.set(o.id, o);
    return { status: ctx ? 200 : 201, body: this.#present(o) };
  }

  #present(o: SimOrder) {
    const payments = { ...(o.authorizations.length ? { authorizations: o.authorizations } : {}), ...(o.captures.length ? { captures: o.captures } : {}), ...(o.refunds.length ? { refunds: o.refunds } : {}) };
    const links = [{ href: `${this.#url}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' }];
    if (o.status === 'PAYER_ACTION_REQUIRED') links.push({ href: o.pendingCard ? `${this.#url}/sim/3ds/${o.id}` : `${this.#url}/sim/approve/${o.id}`, rel: 'payer-action', method: 'GET' });
    return {
      id: o.id, intent: o.intent, status: o.status,
      purchase_units: [{ reference_id: 'default', custom_id: o.customId, amount: o.amount, ...(Object.keys(payments).length ? { payments } : {}) }],
      create_time: this.#now().toISOString(), links,
    };
  }

  #payment(o: SimOrder, amount: Money, status: string, code: string | null, extra: Partial<Payment> = {}): Payment {
    const p: Payment = { id: ppId(), status, amount, custom_id: o.customId, create_time: this.#now().toISOString(), ...(code ? { processor_response: { response_code: code } } : {}), ...extra };
    this.#byPayment.set(p.id, o.id);
    return p;
  }

  #orderMoney(clientId: string, orderId: string, what: 'capture' | 'authorize', b: Record<string, unknown>) {
    const o = this.#orders.get(orderId);
    if (!o || o.clientId !== clientId) return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID' }] }, hooks: [] };
    if ((what === 'capture') !== (o.intent === 'CAPTURE')) return this.#unprocessable('ACTION_DOES_NOT_MATCH_INTENT');
    if (o.status === 'COMPLETED') return this.#unprocessable('ORDER_ALREADY_CAPTURED');
    const card = (b.payment_source as Record<string, Record<string, unknown>> | undefined)?.card;
    let code: string;
    let network: { id: string; network: string } | undefined;
    const networkOf = (number: string) => ({ id: schemeTransactionId(), network: number.startsWith('5') ? 'MASTERCARD' : 'VISA' });
    if (card) {
      const stored = card.stored_credential as Record<string, unknown> | undefined;
      const method = ((card.attributes as Record<string, Record<string, unknown>> | undefined)?.verification?.method ?? null) as string | null;
      const ctx = (card.experience_context ?? null) as Record<string, unknown> | null;
      code = decide({ number: String(card.number ?? ''), expiry: String(card.expiry ?? ''), merchantInitiated: stored?.payment_initiator === 'MERCHANT', now: this.#now() });
      if (code === 'SCA' || (method === 'SCA_ALWAYS' && code === '0000')) {
        // 3-D Secure on PayPal's page first (the payer-action link), then the order is captured
        o.status = 'PAYER_ACTION_REQUIRED';
        o.pendingCard = { number: String(card.number), expiry: String(card.expiry), merchantInitiated: stored?.payment_initiator === 'MERCHANT', returnUrl: typeof ctx?.return_url === 'string' ? ctx.return_url : null };
        o.threeds = null;
        return { status: 200, body: this.#present(o), hooks: [] };
      }
      network = networkOf(String(card.number));
    } else if (o.pendingCard && o.threeds) {
      // the card after its 3-D Secure: approved when the cardholder passed
      code = o.threeds === 'Y' ? decide({ number: o.pendingCard.number, expiry: o.pendingCard.expiry, merchantInitiated: true, now: this.#now() }) : '7710';
      if (code === '0000') network = networkOf(o.pendingCard.number);
      o.pendingCard = null;
    } else if (o.status === 'APPROVED' && o.paypal) code = '0000';
    else return this.#unprocessable(o.status === 'PAYER_ACTION_REQUIRED' ? 'PAYER_ACTION_REQUIRED' : 'ORDER_NOT_APPROVED');
    const ok = code === '0000';
    const hooks: Array<{ type: string; resource: Record<string, unknown> }> = [];
    if (what === 'capture') {
      const p = this.#payment(o, o.amount, ok ? 'COMPLETED' : 'DECLINED', card ? code : null, ok && network ? { network_transaction_reference: network, final_capture: true } : {});
      o.captures.push(p);
      hooks.push({ type: ok ? 'PAYMENT.CAPTURE.COMPLETED' : 'PAYMENT.CAPTURE.DECLINED', resource: { ...p, supplementary_data: { related_ids: { order_id: o.id } } } });
    } else {
      const p = this.#payment(o, o.amount, ok ? 'CREATED' : 'DENIED', code, ok && network ? { network_transaction_reference: network } : {});
      o.authorizations.push(p);
      if (ok) hooks.push({ type: 'PAYMENT.AUTHORIZATION.CREATED', resource: { ...p, supplementary_data: { related_ids: { order_id: o.id } } } });
    }
    o.status = ok ? 'COMPLETED' : o.status;
    return { status: 201, body: this.#present(o), hooks };
  }

  #paymentAction(clientId: string, kind: 'authorizations' | 'captures', id: string, what: 'capture' | 'void' | 'refund', b: Record<string, unknown>) {
    const o = this.#orders.get(this.#byPayment.get(id) ?? '');
    if (!o || o.clientId !== clientId) return { status: 404, body: { name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID' }] }, hooks: [] };
    const custom = typeof b.custom_id === 'string' ? b.custom_id : '';
    const amount = (b.amount as Money | undefined) ?? null;
    if (kind === 'authorizations') {
      const auth = o.authorizations.find((a) => a.id === id);
      if (!auth || what === 'refund') return this.#unprocessable('INVALID_RESOURCE_ID');
      if (auth.status !== 'CREATED') return this.#unprocessable(auth.status === 'VOIDED' ? 'AUTHORIZATION_VOIDED' : 'AUTHORIZATION_ALREADY_CAPTURED');
      if (what === 'void') {
        auth.status = 'VOIDED';
        return { status: 200, body: auth, hooks: [{ type: 'PAYMENT.AUTHORIZATION.VOIDED', resource: { ...auth } }] };
      }
      const value = amount ?? auth.amount;
      if (cents(value) > cents(auth.amount) || value.currency_code !== auth.amount.currency_code) return this.#unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED');
      auth.status = 'CAPTURED';
      const p = this.#payment(o, value, 'COMPLETED', null, { custom_id: custom, final_capture: true });
      o.captures.push(p);
      return { status: 201, body: p, hooks: [{ type: 'PAYMENT.CAPTURE.COMPLETED', resource: { ...p, supplementary_data: { related_ids: { order_id: o.id, authorization_id: auth.id } } } }] };
    }
    const cap = o.captures.find((c) => c.id === id);
    if (!cap || what !== 'refund' || cap.status !== 'COMPLETED' && cap.status !== 'PARTIALLY_REFUNDED') return this.#unprocessable('CAPTURE_NOT_REFUNDABLE');
    const refunded = o.refunds.filter((r) => this.#byPayment.get(`${r.id}:capture`) === cap.id).reduce((n, r) => n + cents(r.amount), 0);
    const value = amount ?? { currency_code: cap.amount.currency_code, value: ((cents(cap.amount) - refunded) / 100).toFixed(2) };
    if (refunded + cents(value) > cents(cap.amount)) return this.#unprocessable('REFUND_AMOUNT_EXCEEDED');
    const r = this.#payment(o, value, 'COMPLETED', null, { custom_id: custom });
    this.#byPayment.set(`${r.id}:capture`, cap.id);
    o.refunds.push(r);
    cap.status = refunded + cents(value) === cents(cap.amount) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return { status: 201, body: r, hooks: [{ type: 'PAYMENT.CAPTURE.REFUNDED', resource: { ...r, supplementary_data: { related_ids: { order_id: o.id, capture_id: cap.id } } } }] };
  }

  async #webhook(app: PaypalSimApp, type: string, resource: Record<string, unknown>): Promise<void> {
    if (!app.webhookUrl) return;
    const body = JSON.stringify({ id: `WH-${ppId(20)}`, event_version: '1.0', create_time: this.#now().toISOString(), resource_type: type.startsWith('CHECKOUT') ? 'checkout-order' : type.includes('REFUND') ? 'refund' : type.includes('AUTHORIZATION') ? 'authorization' : 'capture', event_type: type, summary: type, resource });
    await this.send(app, body);
  }

  /** Posts a webhook body with its transmission headers (tests: a late or replayed delivery). */
  async send(app: PaypalSimApp, body: string): Promise<number | null> {
    const transmission = randomUUID();
    this.#sent.set(transmission, { webhookId: app.webhookId, digest: canonical(body) });
    const headers = {
      ...this.#opts.webhookHeaders, 'content-type': 'application/json',
      'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': `${this.#url}/v1/notifications/certs/CERT-360caa42-fca2a594-sim`,
      'paypal-transmission-id': transmission, 'paypal-transmission-time': this.#now().toISOString(),
      'paypal-transmission-sig': createHash('sha256').update(`${transmission}|${app.webhookId}|${body}`).digest('base64'),
    };
    const sent = { url: app.webhookUrl ?? '', headers, body, status: null as number | null };
    try {
      if (this.transport) sent.status = await this.transport({ url: sent.url, headers, body });
      else {
        const res = await request(sent.url, { method: 'POST', headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
        await res.body.dump();
        sent.status = res.statusCode;
      }
    } catch {
      sent.status = null;
    }
    this.webhooks.push(sent);
    return sent.status;
  }

  /** PayPal's 3-D Secure page of a card payment: the cardholder passes or fails; back to the return URL with the order's token. */
  async #threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const o = this.#orders.get(url.pathname.slice('/sim/3ds/'.length));
    if (!o?.pendingCard || o.status !== 'PAYER_ACTION_REQUIRED' || !o.pendingCard.returnUrl) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const result = method === 'POST' ? new URLSearchParams(raw).get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>3-D Secure</title></head><body><main><h1>3-D Secure (PayPal simulator)</h1><p>${o.amount.value} ${o.amount.currency_code}, card ending ${o.pendingCard.number.slice(-4)}</p><form method="post" action="/sim/3ds/${o.id}"><button name="result" value="Y" id="pass">Authenticate</button> <button name="result" value="N" id="fail">Fail</button></form></main></body></html>`;
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    }
    o.threeds = result;
    o.status = 'APPROVED';
    const back = new URL(o.pendingCard.returnUrl);
    back.searchParams.set('token', o.id);
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** The buyer's approval page of an order (PayPal account): approve or cancel; back to the merchant. */
  async #approvePage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const o = this.#orders.get(url.pathname.slice('/sim/approve/'.length));
    if (!o?.paypal || o.status !== 'PAYER_ACTION_REQUIRED') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished order');
    const action = method === 'POST' ? new URLSearchParams(raw).get('action') : null;
    if (action !== 'approve' && action !== 'cancel') {
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>PayPal</title></head><body><main><h1>Pay with PayPal (simulator)</h1><p>${o.amount.value} ${o.amount.currency_code}</p><form method="post" action="/sim/approve/${o.id}"><button name="action" value="approve" id="approve">Pay Now</button> <button name="action" value="cancel" id="cancel">Cancel and return</button></form></main></body></html>`;
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
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
