/**
 * The Checkout.com simulator: a separate HTTP server speaking the Payments API as Checkout.com's public
 * API reference describes it (spec.ts), for the tests and for demos (`npx paygate checkout-simulator`,
 * then PAYGATE_CHECKOUT_URL=http://127.0.0.1:PORT).
 *
 *  - Every request it receives and every answer and webhook it gives is checked against the reference's
 *    schemas (`spec`, a SpecLedger): a request the reference does not allow is answered 422
 *    `request_invalid` with `error_codes`, as Checkout.com answers an invalid request, and recorded; an
 *    answer of its own that the reference does not allow is recorded (the tests fail on either).
 *  - `POST /payments` (card source; capture or not; Regular, MOTO, or merchant-initiated with
 *    `source.stored`, `previous_payment_id` and payment_type Recurring, Installment or Unscheduled;
 *    amount 0 verifies the card), answered 201, or 202 Pending with `_links.redirect` when `3ds.enabled`
 *    asks Checkout.com to authenticate (its 3-D Secure page: `/sim/3ds/{id}`, which sends the cardholder
 *    back to success_url or failure_url with `cko-session-id`); 401 for an unknown secret key. The flags
 *    a payment came with are kept (`payment(id).request`).
 *  - `POST /payments/{id}/captures|voids|refunds` → 202 {action_id, reference}: accepted, decided later,
 *    as Checkout.com processes them asynchronously. Right after the answer (or when the test calls
 *    `decide()`, with `holdDecisions`) the action is approved, or declined when a test asked for it
 *    (`declineNextFollowUp`); then it appears among the payment's actions and its webhook is sent
 *    (`payment_captured` / `payment_capture_declined`, `payment_voided` / `payment_void_declined`,
 *    `payment_refunded` / `payment_refund_declined`). 403 (no body) when the action is not allowed (more
 *    than is left, a voided payment...).
 *  - `GET /payments?reference=` and `GET /payments/{id}`: payment details, `status` and `approved` and no
 *    response code (by a `sid_` session id they also carry the summary of the payment's actions);
 *    `GET /payments/{id}/actions`, latest first, each with its response code.
 *  - `Cko-Idempotency-Key`: a request repeated under the same key gets the first answer;
 *  - webhooks (payment_approved, payment_declined, card_verified, payment_captured, and the follow-ups'
 *    above) posted to the webhook URL, signed `Cko-Signature` (hex HMAC-SHA256 of the raw body with the
 *    webhook's signature key); through `transport` when a test sets one;
 *  - the kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    on the way: approved, another amount), webhooks through `transport` when a test sets one.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { challengePage, readMultipart, SimulatorBase, type FaultKind, type SimRequest, type WebhookTransport as KitTransport } from '../../kit/simulator.js';
import { decide, summaryOf } from './rules.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { CHECKOUT_SPEC } from '../spec.js';

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

export type CheckoutFaultKind = Exclude<FaultKind, 'hang'>;

export type WebhookTransport = KitTransport;

type FollowUpKind = 'capture' | 'void' | 'refund';

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

/** What a payment request said about the card's storage and who initiated it. */
export interface SimPaymentRequestFlags {
  paymentType: string;
  merchantInitiated: boolean;
  /** `source.stored`: the card comes from the merchant's storage. */
  stored: boolean;
  /** `source.store_for_future_use` as sent (null: left out). */
  storeForFutureUse: boolean | null;
  previousPaymentId: string | null;
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
  fingerprint: string;
  expiryMonth: number;
  expiryYear: number;
  captured: number;
  refunded: number;
  capture: boolean;
  actions: Action[];
  request: SimPaymentRequestFlags;
  /** Accepted follow-ups not decided yet (amounts held). */
  pending: { capture: number; void: boolean; refund: number };
  /** 3DS through Checkout.com: what the payment waits for. */
  pending3ds: { number: string; successUrl: string; failureUrl: string } | null;
}

/** A dispute the simulator raised on a payment (`raiseDispute`), as Checkout.com's Disputes API shows it. */
export interface SimDispute {
  id: string;
  p: SimPayment;
  category: string;
  reasonCode: string;
  amount: number;
  status: string;
  /** What the scheme decides once the evidence is submitted (`decideDisputes`). */
  outcome: 'won' | 'lost';
  evidence: Record<string, string> | null;
  receivedOn: string;
  requiredBy: string;
  lastUpdate: string;
}

/** A capture, void or refund accepted (202) and not decided yet. */
interface PendingFollowUp {
  p: SimPayment;
  kind: FollowUpKind;
  id: string;
  amount: number;
  reference: string;
  /** Declined with this code when decided (a test asked for it); null: approved. */
  declineCode: string | null;
}

interface Route {
  op: string;
  method: 'GET' | 'POST';
  paymentId?: string;
  sessionId?: string;
  follow?: FollowUpKind;
  actions?: boolean;
}

const FOLLOW_UP_OP: Record<FollowUpKind, string> = { capture: 'captureAPayment', void: 'voidAPayment', refund: 'refundAPayment' };
const FOLLOW_UP_PATH: Record<string, FollowUpKind> = { captures: 'capture', voids: 'void', refunds: 'refund' };
const FOLLOW_UP_EVENT: Record<FollowUpKind, { approved: string; declined: string; type: Action['type'] }> = {
  capture: { approved: 'payment_captured', declined: 'payment_capture_declined', type: 'Capture' },
  void: { approved: 'payment_voided', declined: 'payment_void_declined', type: 'Void' },
  refund: { approved: 'payment_refunded', declined: 'payment_refund_declined', type: 'Refund' },
};

/** Error codes of invalid fields, by the field's path (Checkout.com's error codes where it names them). */
const FIELD_CODES: Record<string, string> = {
  '/source': 'payment_source_invalid',
  '/source/number': 'card_number_invalid',
  '/source/expiry_month': 'card_expiry_month_invalid',
  '/source/expiry_year': 'card_expiry_year_invalid',
  '/source/cvv': 'cvv_invalid',
  '/3ds': 'three_ds_invalid',
};

/** The error codes of a request's problems (as SpecChecker words them): `<field>_required` / `<field>_invalid`. */
export function errorCodesOf(problems: string[]): string[] {
  const codes = new Set<string>();
  for (const p of problems) {
    const where = p.split(' ')[0];
    const missing = /must have required property '([^']+)'/.exec(p)?.[1];
    const extra = /\(([a-z0-9_]+)\)$/.exec(p)?.[1];
    if (missing) codes.add(where === '(body)' && missing === 'source' ? 'payment_source_required' : `${missing}_required`);
    else if (/must NOT have additional properties/.test(p) && extra) codes.add(`${extra}_invalid`);
    else if (where === '(body)') codes.add('request_body_malformed');
    else codes.add(FIELD_CODES[where] ?? `${where.split('/').filter(Boolean).join('_')}_invalid`);
  }
  return [...codes];
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const id = (prefix: string) => prefix + Array.from({ length: 26 }, () => ALNUM[randomInt(ALNUM.length)]).join('');

export class CheckoutSimulator extends SimulatorBase {
  /** Follow-ups are decided only when `decide()` is called (otherwise right after their 202 answer). */
  holdDecisions = false;
  readonly #opts: CheckoutSimulatorOptions;
  readonly #payments = new Map<string, SimPayment>();
  readonly #byReference = new Map<string, string>();
  readonly #idempotent = new Map<string, { status: number; body: string }>();
  readonly #declines: Array<{ kind: FollowUpKind | null; code: string }> = [];
  readonly #undecided: PendingFollowUp[] = [];
  readonly #followUpIds = new Set<string>();
  readonly #fingerprintKey = randomBytes(16);
  readonly #disputes = new Map<string, SimDispute>();
  /** Files uploaded for dispute evidence (POST /files): their owner's key, name, type and bytes. */
  readonly #files = new Map<string, { secretKey: string; filename: string; contentType: string; content: Buffer }>();
  /** Requests received: payments (POST /payments), actions (captures, voids, refunds), queries. */
  readonly calls = { payments: 0, actions: 0, queries: 0 };

  constructor(opts: CheckoutSimulatorOptions) {
    // dispute evidence files of up to 4 MB come as multipart bodies
    super({ spec: CHECKOUT_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.webhookHeaders, bodyLimit: 6 * 1024 * 1024 });
    this.#opts = opts;
  }

  /** Closes once every decision under way is done and its webhook sent. */
  override async close(): Promise<void> {
    await this.settled();
    await super.close();
  }

  paymentCalls(): number {
    return this.calls.payments + this.calls.actions;
  }

  /**
   * The next capture, void or refund accepted (of `kind`, or of any kind) is answered 202 as usual and
   * then declined with `code` (default 20005) when it is decided: its `payment_*_declined` webhook, and
   * the declined action among the payment's actions.
   */
  declineNextFollowUp(opts: { kind?: FollowUpKind; code?: string } = {}): void {
    this.#declines.push({ kind: opts.kind ?? null, code: opts.code ?? '20005' });
  }

  /** Decides every accepted follow-up waiting (with `holdDecisions`), and sends their webhooks. */
  override async decide(): Promise<void> {
    for (const f of this.#undecided.splice(0)) await this.#decide(f);
    await this.settled();
  }

  /** Follow-ups accepted and not decided yet. */
  undecided(): number {
    return this.#undecided.length;
  }

  /** True for the action id of a capture, void or refund asked through the API. */
  isFollowUpAction(actionId: string): boolean {
    return this.#followUpIds.has(actionId);
  }

  /** A payment as the simulator keeps it (tests). */
  payment(paymentId: string): Readonly<SimPayment> | undefined {
    return this.#payments.get(paymentId);
  }

  /** A payment by its reference (the first made under it), as the simulator keeps it (tests). */
  paymentByReference(reference: string): Readonly<SimPayment> | undefined {
    for (const p of this.#payments.values()) if (p.reference === reference) return p;
    return undefined;
  }

  #route(method: string | undefined, path: string): Route | null {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/payments') return { op: 'requestAPaymentOrPayout', method: 'POST' };
    if (method === 'GET' && path === '/payments') return { op: 'getPaymentLists', method: 'GET' };
    if (method === 'GET' && (m = /^\/payments\/((?:pay|sid)_[a-z0-9]+)(\/actions)?$/.exec(path))) {
      return m[2] ? { op: 'getPaymentActions', method: 'GET', paymentId: m[1], actions: true } : { op: 'getPaymentDetails', method: 'GET', paymentId: m[1] };
    }
    if (method === 'POST' && (m = /^\/payments\/(pay_[a-z0-9]+)\/(captures|voids|refunds)$/.exec(path))) {
      const follow = FOLLOW_UP_PATH[m[2]];
      return { op: FOLLOW_UP_OP[follow], method: 'POST', paymentId: m[1], follow };
    }
    return null;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const { raw, url, headers } = r;
    const req = { method: r.method, headers };
    if (url.pathname.startsWith('/sim/3ds/')) return this.#threedsPage(r.method, url, raw, res);
    if (url.pathname.startsWith('/disputes/')) return this.#disputeApi(r, res);
    if (url.pathname === '/files' && r.method === 'POST') return this.#uploadFile(r, res);
    const route = this.#route(req.method, url.pathname);
    const write = (status: number, body: unknown) => this.write(res, status, body);
    if (!route) return write(404, null);
    // every answer is checked against the reference before it leaves
    const answer = (status: number, body: unknown) => {
      this.spec.response(route.op, status, body);
      write(status, body);
    };
    const key = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? String(req.headers.authorization ?? '');
    const account = this.#opts.accounts[key];
    if (!account) return answer(401, null);

    if (route.method === 'GET') {
      this.calls.queries++;
      const problems = this.spec.request(route.op, raw === '' ? undefined : raw);
      if (problems.length > 0) return answer(422, this.#invalid(errorCodesOf(problems)).body);
      if (route.op === 'getPaymentLists') {
        const ref = url.searchParams.get('reference') ?? '';
        const p = this.#payments.get(this.#byReference.get(`${key}:${ref}`) ?? '');
        const limit = Number(url.searchParams.get('limit') ?? 10);
        return answer(200, { limit: Number.isInteger(limit) && limit > 0 ? limit : 10, skip: 0, total_count: p ? 1 : 0, data: p ? [this.#details(p, false)] : [] });
      }
      // a payment by its id, or by the session id its 3-D Secure redirect came back with
      const bySession = route.paymentId!.startsWith('sid_');
      const p = this.#payments.get(route.paymentId!.replace(/^sid_/, 'pay_'));
      if (!p || p.secretKey !== key || (route.actions && bySession)) return answer(404, null);
      if (route.actions) return answer(p.actions.length > 0 ? 200 : 404, p.actions.length > 0 ? [...p.actions].reverse().map((a) => this.#actionOut(a)) : null);
      return answer(200, this.#details(p, bySession));
    }

    if (route.follow) this.calls.actions++;
    else this.calls.payments++;
    const idem = req.headers['cko-idempotency-key'];
    const idemKey = typeof idem === 'string' ? `${key}:${url.pathname}:${idem}` : null;
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    type Out = { status: number; body: unknown; webhooks: Array<{ type: string; p: SimPayment; action: Action }>; accepted: PendingFollowUp | null };
    let out: Out;
    const again = idemKey ? this.#idempotent.get(idemKey) : undefined;
    if (again) out = { status: again.status, body: again.body === '' ? null : JSON.parse(again.body), webhooks: [], accepted: null };
    else {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const problems = this.spec.request(route.op, body);
      if (problems.length > 0) out = { ...this.#invalid(errorCodesOf(problems)), accepted: null };
      else out = route.follow ? this.#act(key, route.paymentId!, route.follow, body as Record<string, unknown>) : { ...this.#pay(key, account, body as Record<string, unknown>), accepted: null };
      if (idemKey && out.status < 500) this.#idempotent.set(idemKey, { status: out.status, body: out.body === null ? '' : JSON.stringify(out.body) });
    }
    this.spec.response(route.op, out.status, out.body);
    return this.answer(r, res, fault, {
      status: out.status,
      body: out.body,
      // in order: the authorization's event before its capture's
      notify: out.webhooks.length > 0 ? async () => {
        for (const w of out.webhooks) await this.#webhook(account, w.type, w.p, w.action);
      } : null,
      // altered on the way, after the simulator answered
      tamper: (a) => ({ ...(a as Record<string, unknown>), approved: true, status: 'Captured', response_code: '10000', response_summary: 'Approved', amount: Number((a as Record<string, unknown>).amount ?? 0) + 1 }),
      // a capture, void or refund is decided after it was accepted
      after: () => {
        const f = out.accepted;
        if (!f) return;
        if (this.holdDecisions) this.#undecided.push(f);
        else void this.track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#decide(f)));
      },
    });
  }

  #invalid(codes: string[]) {
    return { status: 422, body: { request_id: id('req_'), error_type: 'request_invalid', error_codes: codes }, webhooks: [] };
  }

  /** A card's fingerprint as Checkout.com gives one (upper-case hex); never a long run of digits. */
  #fingerprint(number: string): string {
    for (let salt = 0; ; salt++) {
      const fp = createHmac('sha256', this.#fingerprintKey).update(`${salt}:${number}`).digest('hex').toUpperCase();
      if (!/\d{12,}/.test(fp)) return fp;
    }
  }

  #pay(key: string, account: CheckoutSimAccount, b: Record<string, unknown>) {
    const src = (b.source ?? null) as Record<string, unknown> | null;
    const codes: string[] = [];
    if (!src) codes.push('payment_source_required');
    const number = typeof src?.number === 'string' ? src.number : '';
    if (src && !/^\d{12,19}$/.test(number)) codes.push('card_number_invalid');
    if (b.processing_channel_id !== account.processingChannelId) codes.push('processing_channel_id_invalid');
    if (typeof b.reference !== 'string') codes.push('reference_invalid');
    if (b.merchant_initiated === true && typeof b.previous_payment_id !== 'string') codes.push('previous_payment_id_required');
    if (codes.length > 0) return this.#invalid(codes);
    // no amount: a card verification
    const amount = typeof b.amount === 'number' ? b.amount : 0;
    const threeds = (b['3ds'] ?? null) as Record<string, unknown> | null;
    const request: SimPaymentRequestFlags = {
      paymentType: typeof b.payment_type === 'string' ? b.payment_type : 'Regular',
      merchantInitiated: b.merchant_initiated === true,
      stored: src!.stored === true,
      storeForFutureUse: typeof src!.store_for_future_use === 'boolean' ? src!.store_for_future_use : null,
      previousPaymentId: typeof b.previous_payment_id === 'string' ? b.previous_payment_id : null,
    };
    const p: SimPayment = {
      id: id('pay_'), secretKey: key, reference: b.reference as string, amount, currency: b.currency as string,
      status: 'Pending', approved: false, code: '', authCode: String(randomInt(100000, 999999)), schemeId: schemeTransactionId(),
      last4: number.slice(-4), bin: number.slice(0, 6), fingerprint: this.#fingerprint(number), expiryMonth: src!.expiry_month as number, expiryYear: src!.expiry_year as number,
      captured: 0, refunded: 0, capture: b.capture !== false && amount > 0, actions: [], request, pending: { capture: 0, void: false, refund: 0 }, pending3ds: null,
    };
    this.#payments.set(p.id, p);
    this.#byReference.set(`${key}:${p.reference}`, p.id);
    if (threeds?.enabled === true && !threeds.cryptogram && typeof b.success_url === 'string' && typeof b.failure_url === 'string') {
      // Checkout.com authenticates first: the cardholder goes to its 3-D Secure page
      p.pending3ds = { number, successUrl: b.success_url, failureUrl: b.failure_url };
      return { status: 202, body: { id: p.id, status: 'Pending', reference: p.reference, customer: { id: id('cus_') }, '3ds': { downgraded: false, enrolled: 'Y' }, _links: { self: { href: `${this.url}/payments/${p.id}` }, redirect: { href: `${this.url}/sim/3ds/${p.id}` } } }, webhooks: [] };
    }
    const authenticated = threeds?.enabled === true && typeof threeds.cryptogram === 'string';
    const code = decide({ number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, ...request, authenticated, now: this.now() });
    const action = this.#authorize(p, code);
    return { status: 201, body: this.#answer(p, action), webhooks: this.#authWebhooks(p, action) };
  }

  #authorize(p: SimPayment, code: string): Action {
    p.code = code;
    p.approved = code === '10000';
    const verify = p.amount === 0;
    p.status = !p.approved ? 'Declined' : verify ? 'Card Verified' : p.capture ? 'Captured' : 'Authorized';
    if (p.approved && p.capture) p.captured = p.amount;
    const action: Action = { id: id('act_'), type: verify ? 'Card Verification' : 'Authorization', amount: p.amount, approved: p.approved, response_code: code, response_summary: summaryOf(code), reference: p.reference, processed_on: this.now().toISOString(), ...(p.approved ? { auth_code: p.authCode } : {}) };
    p.actions.push(action);
    if (p.approved && p.capture) p.actions.push({ id: id('act_'), type: 'Capture', amount: p.amount, approved: true, response_code: code, response_summary: summaryOf(code), reference: p.reference, processed_on: action.processed_on });
    return action;
  }

  #authWebhooks(p: SimPayment, action: Action) {
    const type = !p.approved ? (p.amount === 0 ? 'card_verification_declined' : 'payment_declined') : p.amount === 0 ? 'card_verified' : 'payment_approved';
    const hooks = [{ type, p, action }];
    if (p.approved && p.capture) hooks.push({ type: 'payment_captured', p, action: p.actions.at(-1)! });
    return hooks;
  }

  #links(p: SimPayment) {
    const base = `${this.url}/payments/${p.id}`;
    return {
      self: { href: base }, actions: { href: `${base}/actions` },
      ...(p.status === 'Authorized' ? { capture: { href: `${base}/captures` }, void: { href: `${base}/voids` } } : {}),
      ...(p.captured > p.refunded ? { refund: { href: `${base}/refunds` } } : {}),
      ...(p.pending3ds ? { redirect: { href: `${this.url}/sim/3ds/${p.id}` } } : {}),
    };
  }

  #source(p: SimPayment) {
    return { type: 'card', id: `src_${p.id.slice(4)}`, expiry_month: p.expiryMonth, expiry_year: p.expiryYear, scheme: 'Visa', last4: p.last4, fingerprint: p.fingerprint, bin: p.bin };
  }

  /** The 201 answer of a payment (PaymentResponse): the authorization's response code with it. */
  #answer(p: SimPayment, action: Action) {
    return {
      id: p.id, action_id: action.id, amount: p.amount, currency: p.currency, approved: p.approved, status: p.status,
      ...(p.approved ? { auth_code: p.authCode } : {}),
      response_code: p.code, response_summary: summaryOf(p.code),
      source: this.#source(p),
      processed_on: action.processed_on, reference: p.reference, ...(p.approved ? { scheme_id: p.schemeId } : {}),
      risk: { flagged: false },
      _links: this.#links(p),
    };
  }

  /**
   * A payment's details (PaymentDetails): status and approval, no response code. Fetched by its 3-D
   * Secure session id they carry the summary of its actions (with their codes).
   */
  #details(p: SimPayment, withActions: boolean) {
    return {
      id: p.id, requested_on: p.actions[0]?.processed_on ?? this.now().toISOString(), source: this.#source(p), amount: p.amount, currency: p.currency,
      payment_type: p.request.paymentType, reference: p.reference, status: p.status, approved: p.approved,
      ...(p.approved ? { scheme_id: p.schemeId } : {}),
      balances: {
        total_authorized: p.approved ? p.amount : 0, total_voided: p.status === 'Voided' ? p.amount : 0,
        available_to_void: p.status === 'Authorized' ? p.amount : 0, total_captured: p.captured,
        available_to_capture: p.status === 'Authorized' ? p.amount : 0, total_refunded: p.refunded, available_to_refund: p.captured - p.refunded,
      },
      risk: { flagged: false },
      ...(withActions && p.actions.length > 0 ? { actions: [...p.actions].reverse().map((a) => ({ id: a.id, type: a.type, response_code: a.response_code, response_summary: a.response_summary })) } : {}),
      _links: this.#links(p),
    };
  }

  #actionOut(a: Action) {
    return { id: a.id, type: a.type, processed_on: a.processed_on, amount: a.amount, approved: a.approved, ...(a.auth_code ? { auth_code: a.auth_code } : {}), response_code: a.response_code, response_summary: a.response_summary, reference: a.reference };
  }

  /** A capture, void or refund: checked against what is left, accepted (202) and decided later. */
  #act(key: string, paymentId: string, kind: FollowUpKind, b: Record<string, unknown>) {
    const none = { webhooks: [], accepted: null };
    const p = this.#payments.get(paymentId);
    if (!p || p.secretKey !== key) return { status: 404, body: null, ...none };
    const reference = typeof b.reference === 'string' ? b.reference : '';
    const notAllowed = { status: 403, body: null, ...none };
    const amount = typeof b.amount === 'number' ? b.amount : null;
    if (amount !== null && amount <= 0) return { ...this.#invalid(['amount_invalid']), accepted: null };
    const busy = p.pending.capture > 0 || p.pending.void;
    let value: number;
    if (kind === 'capture') {
      if (!p.approved || p.status !== 'Authorized' || busy) return notAllowed;
      value = amount ?? p.amount;
      if (value > p.amount) return notAllowed;
      p.pending.capture = value;
    } else if (kind === 'void') {
      if (!p.approved || p.status !== 'Authorized' || busy) return notAllowed;
      value = p.amount;
      p.pending.void = true;
    } else {
      const left = p.captured - p.refunded - p.pending.refund;
      value = amount ?? left;
      if (!p.approved || p.captured === 0 || value <= 0 || value > left) return notAllowed;
      p.pending.refund += value;
    }
    const i = this.#declines.findIndex((d) => d.kind === null || d.kind === kind);
    const declineCode = i >= 0 ? this.#declines.splice(i, 1)[0].code : null;
    const accepted: PendingFollowUp = { p, kind, id: id('act_'), amount: value, reference, declineCode };
    this.#followUpIds.add(accepted.id);
    return { status: 202, body: { action_id: accepted.id, reference, _links: { payment: { href: `${this.url}/payments/${p.id}` } } }, webhooks: [], accepted };
  }

  /** Decides an accepted follow-up: the balances, the action among the payment's actions, the webhook. */
  async #decide(f: PendingFollowUp): Promise<void> {
    const { p } = f;
    const approved = f.declineCode === null;
    if (f.kind === 'capture') {
      p.pending.capture = 0;
      if (approved) {
        p.captured = f.amount;
        p.status = f.amount < p.amount ? 'Partially Captured' : 'Captured';
      }
    } else if (f.kind === 'void') {
      p.pending.void = false;
      if (approved) p.status = 'Voided';
    } else {
      p.pending.refund -= f.amount;
      if (approved) {
        p.refunded += f.amount;
        p.status = p.refunded === p.captured ? 'Refunded' : 'Partially Refunded';
      }
    }
    const code = f.declineCode ?? '10000';
    const event = FOLLOW_UP_EVENT[f.kind];
    const action: Action = { id: f.id, type: event.type, amount: f.amount, approved, response_code: code, response_summary: summaryOf(code), reference: f.reference, processed_on: this.now().toISOString() };
    p.actions.push(action);
    await this.#webhook(this.#opts.accounts[p.secretKey], approved ? event.approved : event.declined, p, action, true);
  }

  /** The webhook of an action, signed with the account's webhook key, checked against the reference. */
  async #webhook(account: CheckoutSimAccount | undefined, type: string, p: SimPayment, a: Action, followUp = false): Promise<void> {
    if (!account?.webhookUrl) return;
    const eventId = id('evt_');
    const event = {
      id: eventId, type, version: '1.0.33', created_on: this.now().toISOString(),
      data: {
        id: p.id, action_id: a.id, reference: a.reference, amount: a.amount, currency: p.currency, processed_on: a.processed_on,
        response_code: a.response_code, response_summary: a.response_summary, ...(a.auth_code && a.approved ? { auth_code: a.auth_code } : {}),
        ...(type === 'payment_approved' ? { scheme_id: p.schemeId, source: { type: 'card', last4: p.last4, bin: p.bin } } : {}),
      },
      _links: { self: { href: `${this.url}/workflows/events/${eventId}` }, payment: { href: `${this.url}/payments/${p.id}` } },
    };
    this.spec.response('webhook', type, event);
    await this.send(account.webhookUrl, JSON.stringify(event), account.webhookKey, followUp);
  }

  // ---- disputes (Disputes API) ---------------------------------------------------------------------------

  /**
   * Raises a dispute on a captured payment, as an issuer would: `evidence_required`, due 7 days later
   * (Checkout.com: `received_on` + the scheme's days), and its `dispute_evidence_required` webhook. Once
   * its evidence is submitted, `decideDisputes` decides it as `outcome` says (won by default).
   */
  async raiseDispute(paymentId: string, opts: { category?: string; reasonCode?: string; amount?: number; outcome?: 'won' | 'lost'; dueInDays?: number } = {}): Promise<SimDispute> {
    const p = this.#payments.get(paymentId);
    if (!p) throw new Error(`no payment ${paymentId}`);
    const now = this.now();
    const d: SimDispute = {
      id: `dsp_${Array.from({ length: 22 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`,
      p, category: opts.category ?? 'fraudulent', reasonCode: opts.reasonCode ?? '10.4', amount: opts.amount ?? p.amount - p.refunded,
      status: 'evidence_required', outcome: opts.outcome ?? 'won', evidence: null,
      receivedOn: now.toISOString(), requiredBy: new Date(now.getTime() + (opts.dueInDays ?? 7) * 86400_000).toISOString(), lastUpdate: now.toISOString(),
    };
    this.#disputes.set(d.id, d);
    await this.#disputeWebhook(d, 'dispute_evidence_required');
    return d;
  }

  /** Decides every dispute whose evidence was submitted, as each was raised to be decided, and sends its webhook. */
  async decideDisputes(): Promise<void> {
    for (const d of this.#disputes.values()) {
      if (d.status !== 'evidence_under_review') continue;
      d.status = d.outcome;
      d.lastUpdate = this.now().toISOString();
      await this.#disputeWebhook(d, d.outcome === 'won' ? 'dispute_won' : 'dispute_lost');
    }
  }

  /** A dispute as the simulator keeps it (tests). */
  dispute(id: string): Readonly<SimDispute> | undefined {
    return this.#disputes.get(id);
  }

  /** A file uploaded for evidence (tests). */
  file(id: string): Readonly<{ filename: string; contentType: string; content: Buffer }> | undefined {
    return this.#files.get(id);
  }

  /** POST /files: a JPEG, PNG or PDF of at most 4 MB for dispute evidence ([REF] paths/files.yaml). */
  async #uploadFile(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const answer = (status: number, body: unknown) => {
      this.spec.response('uploadAFile', status, body);
      this.write(res, status, body);
    };
    const key = /^Bearer (\S+)$/.exec(String(r.headers.authorization ?? ''))?.[1] ?? '';
    if (!this.#opts.accounts[key]) return answer(401, null);
    const parts = readMultipart(r.bytes, String(r.headers['content-type'] ?? ''));
    const invalid = (code: string) => answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: [code] });
    if (!parts) return invalid('request_body_malformed');
    const fields = Object.fromEntries(parts.filter((p) => p.filename === null).map((p) => [p.name, p.content.toString('utf8')]));
    const problems = this.spec.request('uploadAFile', fields);
    if (problems.length > 0) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: errorCodesOf(problems) });
    const file = parts.find((p) => p.name === 'file' && p.filename !== null);
    if (!file) return invalid('file_required');
    const head = file.content.subarray(0, 8);
    const type = head.subarray(0, 5).toString('latin1') === '%PDF-' ? 'application/pdf' : head.equals(Buffer.from('89504e470d0a1a0a', 'hex')) ? 'image/png' : head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff ? 'image/jpeg' : null;
    if (!type) return invalid('file_type_invalid');
    if (file.content.length > 4 * 1024 * 1024) return invalid('file_too_large');
    const fileId = `file_${Array.from({ length: 20 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`;
    this.#files.set(fileId, { secretKey: key, filename: file.filename!, contentType: type, content: Buffer.from(file.content) });
    return answer(200, { id: fileId, _links: { self: { href: `${this.url}/files/${fileId}` } } });
  }

  #disputeSummary(d: SimDispute) {
    return {
      id: d.id, category: d.category, status: d.status, amount: d.amount, currency: d.p.currency, reason_code: d.reasonCode,
      payment_id: d.p.id, payment_action_id: d.p.actions[0]?.id, payment_reference: d.p.reference, payment_method: d.p.bin.startsWith('4') ? 'Visa' : 'Mastercard',
      evidence_required_by: d.requiredBy, received_on: d.receivedOn, last_update: d.lastUpdate,
    };
  }

  async #disputeWebhook(d: SimDispute, type: string): Promise<void> {
    const account = this.#opts.accounts[d.p.secretKey];
    if (!account?.webhookUrl) return;
    const eventId = id('evt_');
    const event = { id: eventId, type, version: '1.0.33', created_on: this.now().toISOString(), data: this.#disputeSummary(d), _links: { self: { href: `${this.url}/workflows/events/${eventId}` } } };
    this.spec.response('webhook', type, event);
    await this.send(account.webhookUrl, JSON.stringify(event), account.webhookKey);
  }

  /** GET /disputes/{id}, PUT and POST /disputes/{id}/evidence, POST /disputes/{id}/accept: each checked against the reference. */
  async #disputeApi(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const m = /^\/disputes\/(dsp_\w+)(\/evidence|\/accept)?$/.exec(r.url.pathname);
    const op = !m ? null : !m[2] && r.method === 'GET' ? 'getDisputeDetails' : m[2] === '/evidence' && r.method === 'PUT' ? 'provideDisputeEvidence' : m[2] === '/evidence' && r.method === 'POST' ? 'submitDisputeEvidence' : m[2] === '/accept' && r.method === 'POST' ? 'acceptDispute' : null;
    if (!m || !op) return this.write(res, 404, null);
    const answer = (status: number, body: unknown) => {
      this.spec.response(op, status, body);
      this.write(res, status, body);
    };
    const key = /^Bearer (\S+)$/.exec(String(r.headers.authorization ?? ''))?.[1] ?? '';
    if (!this.#opts.accounts[key]) return answer(401, null);
    const d = this.#disputes.get(m[1]);
    if (!d || d.p.secretKey !== key) return answer(404, null);
    if (op === 'getDisputeDetails') {
      const { payment_id: _p, payment_action_id: _a, payment_reference: _r, payment_method: method, ...rest } = this.#disputeSummary(d);
      return answer(200, { ...rest, payment: { id: d.p.id, action_id: d.p.actions[0]?.id, amount: d.p.amount, currency: d.p.currency, method }, _links: { self: { href: `${this.url}/disputes/${d.id}` } } });
    }
    if (op === 'provideDisputeEvidence') {
      const body = r.raw === '' ? undefined : (JSON.parse(r.raw) as unknown);
      const problems = this.spec.request(op, body);
      if (problems.length > 0) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: errorCodesOf(problems) });
      if (d.status !== 'evidence_required') return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['dispute_evidence_not_required'] });
      // a file named must be one this account uploaded
      const unknownFile = Object.entries(body as Record<string, string>).some(([k, v]) => k.endsWith('_file') && this.#files.get(v)?.secretKey !== key);
      if (unknownFile) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['file_not_found'] });
      d.evidence = { ...(d.evidence ?? {}), ...(body as Record<string, string>) };
      return answer(204, null);
    }
    if (d.status !== 'evidence_required') return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['dispute_not_open'] });
    if (op === 'submitDisputeEvidence') {
      if (!d.evidence) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['dispute_evidence_required'] });
      d.status = 'evidence_under_review';
    } else d.status = 'accepted';
    d.lastUpdate = this.now().toISOString();
    return answer(204, null);
  }

  /** Posts a webhook body signed with `key` (tests: a late or replayed delivery). */
  async send(url: string, body: string, key: string, followUp = false): Promise<number | null> {
    return (await this.deliver(url, { 'content-type': 'application/json', 'cko-signature': createHmac('sha256', key).update(body, 'utf8').digest('hex') }, body, { followUp })).status;
  }

  // ---- Checkout.com's 3-D Secure page ------------------------------------------------------------------

  /** The authentication page: the cardholder passes or fails; then back to success_url or failure_url. */
  async #threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const p = this.#payments.get(url.pathname.slice('/sim/3ds/'.length));
    if (!p?.pending3ds) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const result = method === 'POST' ? new URLSearchParams(raw).get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      // the page itself (a redirect, or a form posting creq to it)
      return this.html(res, 200, challengePage({ title: '3-D Secure', heading: '3-D Secure authentication (simulator)', lines: [`Amount ${p.amount} ${p.currency}, card ending ${p.last4}`], action: `/sim/3ds/${p.id}` }));
    }
    const passed = result === 'Y';
    const pending = p.pending3ds;
    p.pending3ds = null;
    const code = passed ? decide({ number: pending.number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, ...p.request, authenticated: true, now: this.now() }) : '20151';
    const action = this.#authorize(p, code);
    const account = this.#opts.accounts[p.secretKey];
    void this.track((async () => {
      for (const w of this.#authWebhooks(p, action)) await this.#webhook(account, w.type, w.p, w.action);
    })());
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
