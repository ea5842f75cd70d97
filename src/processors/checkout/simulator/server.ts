/**
 * The Checkout.com simulator: a separate HTTP server speaking the Payments API as Checkout.com's public
 * API reference describes it, for the tests and for demos (`npx paygate checkout-simulator`, then
 * PAYGATE_CHECKOUT_URL=http://127.0.0.1:PORT).
 *
 *  - `POST /payments` (card source; capture or not; Regular, MOTO, Unscheduled with
 *    merchant_initiated and previous_payment_id; amount 0 verifies the card), answered 201, or 202
 *    Pending with `_links.redirect` when `3ds.enabled` asks Checkout.com to authenticate (its 3-D Secure
 *    page: `/sim/3ds/{id}`, which sends the cardholder back to success_url or failure_url with
 *    `cko-session-id`); 401 for an unknown secret key, 422 with `error_codes` for an invalid request;
 *  - `POST /payments/{id}/captures|voids|refunds` → 202 {action_id, reference}, 403 when the action is
 *    not allowed (more than is left, a voided payment...);
 *  - `GET /payments?reference=`, `GET /payments/{id}`, `GET /payments/{id}/actions`;
 *  - `Cko-Idempotency-Key`: a request repeated under the same key gets the first answer;
 *  - webhooks (payment_approved, payment_declined, payment_captured, payment_voided, payment_refunded,
 *    card_verified) posted to the webhook URL, signed `Cko-Signature` (hex HMAC-SHA256 of the raw body
 *    with the webhook's signature key); through `transport` when a test sets one;
 *  - latency and faults for tests: `lost` (never processed), `drop` (processed, the answer lost),
 *    `drop-notify` (the same, its webhook sent), `notify-first` (the webhook delivered before the
 *    answer), `tamper` (the answer altered on the way: approved, another amount).
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { decide, summaryOf } from './rules.js';
import { schemeTransactionId } from '../../scheme-ids.js';

export interface CheckoutSimAccount {
  processingChannelId: string;
  webhookKey: string;
  /** Where its webhooks go (the gateway's `/v1/processor/checkout/webhook`); none: not sent. */
  webhookUrl?: string | null;
}

export interface CheckoutSimulatorOptions {
  /** Accounts by secret key. */
  accounts: Record<string, CheckoutSimAccount>;
  latencyMs?: number;
  clock?: () => Date;
  /** Extra headers of the webhooks it posts (tests: the TLS proxy's `x-forwarded-proto`). */
  webhookHeaders?: Record<string, string>;
}

export type CheckoutFaultKind = 'lost' | 'drop' | 'drop-notify' | 'notify-first' | 'tamper';

export type WebhookTransport = (n: { url: string; headers: Record<string, string>; body: string }) => Promise<number>;

interface Action {
  id: string;
  type: 'Authorization' | 'Card Verification' | 'Capture' | 'Void' | 'Refund';
  amount: number;
  approved: boolean;
  response_code: string;
  response_summary: string;
  reference: string;
  processed_on: string;
  auth_code?: string;
}

interface SimPayment {
  id: string;
  secretKey: string;
  reference: string;
  amount: number;
  currency: string;
  status: string;
  approved: boolean;
  code: string;
  authCode: string;
  schemeId: string;
  last4: string;
  bin: string;
  expiryMonth: number;
  expiryYear: number;
  captured: number;
  refunded: number;
  capture: boolean;
  actions: Action[];
  /** 3DS through Checkout.com: what the payment waits for. */
  pending3ds: { number: string; paymentType: string; merchantInitiated: boolean; successUrl: string; failureUrl: string } | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const id = (prefix: string) => prefix + Array.from({ length: 26 }, () => ALNUM[randomInt(ALNUM.length)]).join('');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export class CheckoutSimulator {
  latencyMs: number;
  /** Delivers webhooks instead of posting them over HTTP (tests: into an in-process gateway). */
  transport: WebhookTransport | null = null;
  readonly #opts: CheckoutSimulatorOptions;
  readonly #server: http.Server;
  readonly #payments = new Map<string, SimPayment>();
  readonly #byReference = new Map<string, string>();
  readonly #idempotent = new Map<string, { status: number; body: string }>();
  readonly #faults: Array<{ kind: CheckoutFaultKind; left: number }> = [];
  /** Webhooks sent, in order (tests read them). */
  readonly webhooks: Array<{ url: string; headers: Record<string, string>; body: string; status: number | null }> = [];
  /** Requests received: payments (POST /payments), actions (captures, voids, refunds), queries. */
  readonly calls = { payments: 0, actions: 0, queries: 0 };
  #url = '';

  constructor(opts: CheckoutSimulatorOptions) {
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

  injectFault(kind: CheckoutFaultKind, times = 1): void {
    this.#faults.push({ kind, left: times });
  }

  /** A payment as the simulator keeps it (tests). */
  payment(paymentId: string): Readonly<SimPayment> | undefined {
    return this.#payments.get(paymentId);
  }

  #takeFault(): CheckoutFaultKind | null {
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
    if (url.pathname.startsWith('/sim/3ds/')) return this.#threedsPage(req.method ?? 'GET', url, raw, res);
    const json = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(body === null ? '' : JSON.stringify(body));
    const key = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? String(req.headers.authorization ?? '');
    const account = this.#opts.accounts[key];
    if (!account) return void res.writeHead(401).end();
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && url.pathname === '/payments') {
      this.calls.queries++;
      const ref = url.searchParams.get('reference') ?? '';
      const p = this.#payments.get(this.#byReference.get(`${key}:${ref}`) ?? '');
      return json(200, { limit: Number(url.searchParams.get('limit') ?? 10), skip: 0, total_count: p ? 1 : 0, data: p ? [this.#details(p)] : [] });
    }
    if (req.method === 'GET' && (m = /^\/payments\/((?:pay|sid)_[a-z0-9]+)(\/actions)?$/.exec(url.pathname))) {
      this.calls.queries++;
      // a payment by its id, or by the session id its 3-D Secure redirect came back with
      const p = this.#payments.get(m[1].replace(/^sid_/, 'pay_'));
      if (!p || p.secretKey !== key) return json(404, null);
      return json(200, m[2] ? [...p.actions].reverse() : this.#details(p));
    }
    const isPayment = req.method === 'POST' && url.pathname === '/payments';
    const action = req.method === 'POST' ? /^\/payments\/(pay_[a-z0-9]+)\/(captures|voids|refunds)$/.exec(url.pathname) : null;
    if (!isPayment && !action) return json(404, null);
    if (isPayment) this.calls.payments++;
    else this.calls.actions++;
    const idem = req.headers['cko-idempotency-key'];
    const idemKey = typeof idem === 'string' ? `${key}:${url.pathname}:${idem}` : null;
    const fault = this.#takeFault();
    if (fault === 'lost') return void req.socket.destroy();
    let out: { status: number; body: unknown; webhooks: Array<{ type: string; p: SimPayment; action: Action }> };
    const again = idemKey ? this.#idempotent.get(idemKey) : undefined;
    if (again) out = { status: again.status, body: JSON.parse(again.body), webhooks: [] };
    else {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
      } catch {
        return json(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['request_body_malformed'] });
      }
      out = isPayment ? this.#pay(key, account, body) : this.#act(key, action![1], action![2] as 'captures' | 'voids' | 'refunds', body);
      if (idemKey && out.status < 500) this.#idempotent.set(idemKey, { status: out.status, body: JSON.stringify(out.body) });
    }
    const send = async () => {
      // in order: the authorization's event before its capture's
      for (const w of out.webhooks) await this.#webhook(account, w.type, w.p, w.action);
    };
    if (fault === 'drop') return void req.socket.destroy();
    if (fault === 'drop-notify' || fault === 'notify-first') {
      await send();
      if (fault === 'drop-notify') return void req.socket.destroy();
      out.webhooks = [];
    }
    let answer = out.body;
    if (fault === 'tamper' && answer && typeof answer === 'object') {
      const a = answer as Record<string, unknown>;
      answer = { ...a, approved: true, status: 'Captured', response_code: '10000', response_summary: 'Approved', amount: Number(a.amount ?? 0) + 1 };
    }
    json(out.status, answer);
    void send();
  }

  #invalid(codes: string[]) {
    return { status: 422, body: { request_id: id('req_'), error_type: 'request_invalid', error_codes: codes }, webhooks: [] };
  }

  #pay(key: string, account: CheckoutSimAccount, b: Record<string, unknown>) {
    const src = b.source as Record<string, unknown> | undefined;
    const codes: string[] = [];
    if (!src || src.type !== 'card') codes.push('source_type_invalid');
    const number = typeof src?.number === 'string' ? src.number : '';
    if (!/^\d{12,19}$/.test(number)) codes.push('card_number_invalid');
    if (typeof src?.expiry_month !== 'number') codes.push('card_expiry_month_invalid');
    if (typeof src?.expiry_year !== 'number') codes.push('card_expiry_year_invalid');
    if (!Number.isInteger(b.amount) || (b.amount as number) < 0) codes.push('amount_invalid');
    if (typeof b.currency !== 'string' || !/^[A-Z]{3}$/.test(b.currency)) codes.push('currency_invalid');
    if (b.processing_channel_id !== account.processingChannelId) codes.push('processing_channel_id_invalid');
    if (typeof b.reference !== 'string' || b.reference.length > 80) codes.push('reference_invalid');
    if (b.merchant_initiated === true && typeof b.previous_payment_id !== 'string') codes.push('previous_payment_id_required');
    if (codes.length > 0) return this.#invalid(codes);
    const amount = b.amount as number;
    const threeds = (b['3ds'] ?? null) as Record<string, unknown> | null;
    const paymentType = typeof b.payment_type === 'string' ? b.payment_type : 'Regular';
    const p: SimPayment = {
      id: id('pay_'), secretKey: key, reference: b.reference as string, amount, currency: b.currency as string,
      status: 'Pending', approved: false, code: '', authCode: String(randomInt(100000, 999999)), schemeId: schemeTransactionId(),
      last4: number.slice(-4), bin: number.slice(0, 6), expiryMonth: src!.expiry_month as number, expiryYear: src!.expiry_year as number,
      captured: 0, refunded: 0, capture: b.capture !== false && amount > 0, actions: [], pending3ds: null,
    };
    this.#payments.set(p.id, p);
    this.#byReference.set(`${key}:${p.reference}`, p.id);
    if (threeds?.enabled === true && !threeds.cryptogram && typeof b.success_url === 'string' && typeof b.failure_url === 'string') {
      // Checkout.com authenticates first: the cardholder goes to its 3-D Secure page
      p.pending3ds = { number, paymentType, merchantInitiated: b.merchant_initiated === true, successUrl: b.success_url, failureUrl: b.failure_url };
      return { status: 202, body: { id: p.id, status: 'Pending', reference: p.reference, customer: { id: id('cus_') }, '3ds': { downgraded: false, enrolled: 'Y' }, _links: { self: { href: `${this.#url}/payments/${p.id}` }, redirect: { href: `${this.#url}/sim/3ds/${p.id}` } } }, webhooks: [] };
    }
    const authenticated = threeds?.enabled === true && typeof threeds.cryptogram === 'string';
    const code = decide({ number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, paymentType, merchantInitiated: b.merchant_initiated === true, authenticated, now: this.#now() });
    const action = this.#authorize(p, code);
    return { status: 201, body: this.#answer(p, action), webhooks: this.#authWebhooks(p, action) };
  }

  #authorize(p: SimPayment, code: string): Action {
    p.code = code;
    p.approved = code === '10000';
    const verify = p.amount === 0;
    p.status = !p.approved ? 'Declined' : verify ? 'Card Verified' : p.capture ? 'Captured' : 'Authorized';
    if (p.approved && p.capture) p.captured = p.amount;
    const action: Action = { id: id('act_'), type: verify ? 'Card Verification' : 'Authorization', amount: p.amount, approved: p.approved, response_code: code, response_summary: summaryOf(code), reference: p.reference, processed_on: this.#now().toISOString(), auth_code: p.authCode };
    p.actions.push(action);
    if (p.approved && p.capture) p.actions.push({ ...action, id: id('act_'), type: 'Capture' });
    return action;
  }

  #authWebhooks(p: SimPayment, action: Action) {
    const type = !p.approved ? 'payment_declined' : p.amount === 0 ? 'card_verified' : 'payment_approved';
    const hooks = [{ type, p, action }];
    if (p.approved && p.capture) hooks.push({ type: 'payment_captured', p, action: p.actions.at(-1)! });
    return hooks;
  }

  #answer(p: SimPayment, action: Action) {
    return {
      id: p.id, action_id: action.id, amount: p.amount, currency: p.currency, approved: p.approved, status: p.status,
      ...(p.approved ? { auth_code: p.authCode } : {}),
      response_code: p.code, response_summary: summaryOf(p.code),
      source: { type: 'card', id: `src_${p.id.slice(4)}`, expiry_month: p.expiryMonth, expiry_year: p.expiryYear, last4: p.last4, bin: p.bin, scheme: 'Visa' },
      processed_on: action.processed_on, reference: p.reference, ...(p.approved ? { scheme_id: p.schemeId } : {}),
      risk: { flagged: false },
      _links: { self: { href: `${this.#url}/payments/${p.id}` }, actions: { href: `${this.#url}/payments/${p.id}/actions` } },
    };
  }

  #details(p: SimPayment) {
    return {
      id: p.id, requested_on: p.actions[0]?.processed_on ?? this.#now().toISOString(), amount: p.amount, currency: p.currency, reference: p.reference,
      status: p.status, approved: p.approved, ...(p.approved ? { auth_code: p.authCode, scheme_id: p.schemeId } : {}),
      ...(p.code ? { response_code: p.code, response_summary: summaryOf(p.code) } : {}),
      balances: { total_authorized: p.approved ? p.amount : 0, total_captured: p.captured, total_refunded: p.refunded },
      source: { type: 'card', last4: p.last4, bin: p.bin, expiry_month: p.expiryMonth, expiry_year: p.expiryYear },
      ...(p.pending3ds ? { _links: { redirect: { href: `${this.#url}/sim/3ds/${p.id}` } } } : {}),
    };
  }

  #act(key: string, paymentId: string, what: 'captures' | 'voids' | 'refunds', b: Record<string, unknown>) {
    const p = this.#payments.get(paymentId);
    if (!p || p.secretKey !== key) return { status: 404, body: null, webhooks: [] };
    const reference = typeof b.reference === 'string' ? b.reference : '';
    const notAllowed = (code: string) => ({ status: 403, body: { request_id: id('req_'), error_type: 'action_not_allowed', error_codes: [code] }, webhooks: [] });
    const amount = b.amount === undefined ? null : b.amount;
    if (amount !== null && (!Number.isInteger(amount) || (amount as number) <= 0)) return this.#invalid(['amount_invalid']);
    let type: Action['type'];
    let hook: string;
    let value: number;
    if (what === 'captures') {
      if (!p.approved || p.status !== 'Authorized') return notAllowed('capture_not_allowed');
      value = (amount as number | null) ?? p.amount;
      if (value > p.amount) return notAllowed('capture_amount_exceeds_authorized');
      p.captured = value;
      p.status = value < p.amount ? 'Partially Captured' : 'Captured';
      [type, hook] = ['Capture', 'payment_captured'];
    } else if (what === 'voids') {
      if (!p.approved || p.status !== 'Authorized') return notAllowed('void_not_allowed');
      value = p.amount;
      p.status = 'Voided';
      [type, hook] = ['Void', 'payment_voided'];
    } else {
      const left = p.captured - p.refunded;
      value = (amount as number | null) ?? left;
      if (!p.approved || p.captured === 0) return notAllowed('refund_not_allowed');
      if (value > left) return notAllowed('refund_amount_exceeds_balance');
      p.refunded += value;
      p.status = p.refunded === p.captured ? 'Refunded' : 'Partially Refunded';
      [type, hook] = ['Refund', 'payment_refunded'];
    }
    const action: Action = { id: id('act_'), type, amount: value, approved: true, response_code: '10000', response_summary: 'Approved', reference, processed_on: this.#now().toISOString() };
    p.actions.push(action);
    return { status: 202, body: { action_id: action.id, reference, _links: { payment: { href: `${this.#url}/payments/${p.id}` } } }, webhooks: [{ type: hook, p, action }] };
  }

  /** The webhook of an action, signed with the account's webhook key. */
  async #webhook(account: CheckoutSimAccount, type: string, p: SimPayment, a: Action): Promise<void> {
    if (!account.webhookUrl) return;
    const body = JSON.stringify({
      id: id('evt_'), type, version: '1.0.33', created_on: this.#now().toISOString(),
      data: {
        id: p.id, action_id: a.id, reference: a.reference, amount: a.amount, currency: p.currency, processed_on: a.processed_on,
        response_code: a.response_code, response_summary: a.response_summary, ...(a.auth_code && a.approved ? { auth_code: a.auth_code } : {}),
        ...(type === 'payment_approved' ? { scheme_id: p.schemeId, source: { type: 'card', last4: p.last4, bin: p.bin } } : {}),
      },
      _links: { self: { href: `${this.#url}/workflows/events/${id('evt_')}` }, payment: { href: `${this.#url}/payments/${p.id}` } },
    });
    await this.send(account.webhookUrl, body, account.webhookKey);
  }

  /** Posts a webhook body signed with `key` (tests: a late or replayed delivery). */
  async send(url: string, body: string, key: string): Promise<number | null> {
    const headers = { ...this.#opts.webhookHeaders, 'content-type': 'application/json', 'cko-signature': createHmac('sha256', key).update(body, 'utf8').digest('hex') };
    const sent = { url, headers, body, status: null as number | null };
    try {
      if (this.transport) sent.status = await this.transport({ url, headers, body });
      else {
        const res = await request(url, { method: 'POST', headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
        await res.body.dump();
        sent.status = res.statusCode;
      }
    } catch {
      sent.status = null;
    }
    this.webhooks.push(sent);
    return sent.status;
  }

  // ---- Checkout.com's 3-D Secure page ------------------------------------------------------------------

  /** The authentication page: the cardholder passes or fails; then back to success_url or failure_url. */
  async #threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const p = this.#payments.get(url.pathname.slice('/sim/3ds/'.length));
    if (!p?.pending3ds) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const result = method === 'POST' ? new URLSearchParams(raw).get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      // the page itself (a redirect, or a form posting creq to it)
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>3-D Secure</title></head><body><main><h1>3-D Secure authentication (simulator)</h1><p>Amount ${p.amount} ${esc(p.currency)}, card ending ${esc(p.last4)}</p><form method="post" action="/sim/3ds/${esc(p.id)}"><button name="result" value="Y" id="pass">Authenticate</button> <button name="result" value="N" id="fail">Fail</button></form></main></body></html>`;
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    }
    const passed = result === 'Y';
    const pending = p.pending3ds;
    p.pending3ds = null;
    const code = passed ? decide({ number: pending.number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, paymentType: pending.paymentType, merchantInitiated: pending.merchantInitiated, authenticated: true, now: this.#now() }) : '20151';
    const action = this.#authorize(p, code);
    const account = this.#opts.accounts[p.secretKey];
    void (async () => {
      for (const w of this.#authWebhooks(p, action)) await this.#webhook(account, w.type, w.p, w.action);
    })();
    const back = new URL(p.approved ? pending.successUrl : pending.failureUrl);
    back.searchParams.set('cko-session-id', `sid_${p.id.slice(4)}`);
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** A payment by the 3-D Secure session id of its redirect (`sid_...`), as `GET /payments/{sid}` finds it. */
  paymentOfSession(sid: string): Readonly<SimPayment> | undefined {
    return this.#payments.get(`pay_${sid.replace(/^sid_/, '')}`);
  }

  /** Fresh random bytes for demo keys. */
  static demoKey(): string {
    return randomBytes(24).toString('base64url');
  }
}
