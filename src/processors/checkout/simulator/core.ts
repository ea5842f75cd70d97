/** The Checkout.com simulator's payments, captures, voids and refunds (server.ts gathers it). */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { decide, summaryOf } from './rules.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { CHECKOUT_SPEC } from '../spec.js';
import { type CheckoutSimAccount, type CheckoutSimulatorOptions, type FollowUpKind, type Action, type SimPaymentRequestFlags, type SimPayment, type SimDispute, type PendingFollowUp, type Route, FOLLOW_UP_OP, FOLLOW_UP_PATH, FOLLOW_UP_EVENT, errorCodesOf, id } from './model.js';

/** The Checkout.com simulator's state and payments API; `CheckoutSimulator` (server.ts) adds disputes and the 3-D Secure page. */
export abstract class CheckoutSimulatorCore extends SimulatorBase {
  protected abstract _disputeApi(r: SimRequest, res: http.ServerResponse): Promise<void>;
  protected abstract _threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void>;
  protected abstract _uploadFile(r: SimRequest, res: http.ServerResponse): Promise<void>;

  /** Follow-ups are decided only when `decide()` is called (otherwise right after their 202 answer). */
  holdDecisions = false;
  protected readonly _opts: CheckoutSimulatorOptions;
  protected readonly _payments = new Map<string, SimPayment>();
  protected readonly _byReference = new Map<string, string>();
  protected readonly _idempotent = new Map<string, { status: number; body: string }>();
  protected readonly _declines: Array<{ kind: FollowUpKind | null; code: string }> = [];
  protected readonly _undecided: PendingFollowUp[] = [];
  protected readonly _followUpIds = new Set<string>();
  protected readonly _fingerprintKey = randomBytes(16);
  protected readonly _disputes = new Map<string, SimDispute>();
  /** Files uploaded for dispute evidence (POST /files): their owner's key, name, type and bytes. */
  protected readonly _files = new Map<string, { secretKey: string; filename: string; contentType: string; content: Buffer }>();
  /** Requests received: payments (POST /payments), actions (captures, voids, refunds), queries. */
  readonly calls = { payments: 0, actions: 0, queries: 0 };

  constructor(opts: CheckoutSimulatorOptions) {
    // dispute evidence files of up to 4 MB come as multipart bodies
    super({ spec: CHECKOUT_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.webhookHeaders, bodyLimit: 6 * 1024 * 1024 });
    this._opts = opts;
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
    this._declines.push({ kind: opts.kind ?? null, code: opts.code ?? '20005' });
  }

  /** Decides every accepted follow-up waiting (with `holdDecisions`), and sends their webhooks. */
  override async decide(): Promise<void> {
    for (const f of this._undecided.splice(0)) await this._decide(f);
    await this.settled();
  }

  /** Follow-ups accepted and not decided yet. */
  undecided(): number {
    return this._undecided.length;
  }

  /** True for the action id of a capture, void or refund asked through the API. */
  isFollowUpAction(actionId: string): boolean {
    return this._followUpIds.has(actionId);
  }

  /** A payment as the simulator keeps it (tests). */
  payment(paymentId: string): Readonly<SimPayment> | undefined {
    return this._payments.get(paymentId);
  }

  /** A payment by its reference (the first made under it), as the simulator keeps it (tests). */
  paymentByReference(reference: string): Readonly<SimPayment> | undefined {
    for (const p of this._payments.values()) if (p.reference === reference) return p;
    return undefined;
  }

  protected _route(method: string | undefined, path: string): Route | null {
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
    if (url.pathname.startsWith('/sim/3ds/')) return this._threedsPage(r.method, url, raw, res);
    if (url.pathname.startsWith('/disputes/')) return this._disputeApi(r, res);
    if (url.pathname === '/files' && r.method === 'POST') return this._uploadFile(r, res);
    const route = this._route(req.method, url.pathname);
    const write = (status: number, body: unknown) => this.write(res, status, body);
    if (!route) return write(404, null);
    // every answer is checked against the reference before it leaves
    const answer = (status: number, body: unknown) => {
      this.spec.response(route.op, status, body);
      write(status, body);
    };
    const key = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? String(req.headers.authorization ?? '');
    const account = this._opts.accounts[key];
    if (!account) return answer(401, null);

    if (route.method === 'GET') {
      this.calls.queries++;
      const problems = this.spec.request(route.op, raw === '' ? undefined : raw);
      if (problems.length > 0) return answer(422, this._invalid(errorCodesOf(problems)).body);
      if (route.op === 'getPaymentLists') {
        const ref = url.searchParams.get('reference') ?? '';
        const p = this._payments.get(this._byReference.get(`${key}:${ref}`) ?? '');
        const limit = Number(url.searchParams.get('limit') ?? 10);
        return answer(200, { limit: Number.isInteger(limit) && limit > 0 ? limit : 10, skip: 0, total_count: p ? 1 : 0, data: p ? [this._details(p, false)] : [] });
      }
      // a payment by its id, or by the session id its 3-D Secure redirect came back with
      const bySession = route.paymentId!.startsWith('sid_');
      const p = this._payments.get(route.paymentId!.replace(/^sid_/, 'pay_'));
      if (!p || p.secretKey !== key || (route.actions && bySession)) return answer(404, null);
      if (route.actions) return answer(p.actions.length > 0 ? 200 : 404, p.actions.length > 0 ? [...p.actions].reverse().map((a) => this._actionOut(a)) : null);
      return answer(200, this._details(p, bySession));
    }

    if (route.follow) this.calls.actions++;
    else this.calls.payments++;
    const idem = req.headers['cko-idempotency-key'];
    const idemKey = typeof idem === 'string' ? `${key}:${url.pathname}:${idem}` : null;
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    type Out = { status: number; body: unknown; webhooks: Array<{ type: string; p: SimPayment; action: Action }>; accepted: PendingFollowUp | null };
    let out: Out;
    const again = idemKey ? this._idempotent.get(idemKey) : undefined;
    if (again) out = { status: again.status, body: again.body === '' ? null : JSON.parse(again.body), webhooks: [], accepted: null };
    else {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const problems = this.spec.request(route.op, body);
      if (problems.length > 0) out = { ...this._invalid(errorCodesOf(problems)), accepted: null };
      else out = route.follow ? this._act(key, route.paymentId!, route.follow, body as Record<string, unknown>) : { ...this._pay(key, account, body as Record<string, unknown>), accepted: null };
      if (idemKey && out.status < 500) this._idempotent.set(idemKey, { status: out.status, body: out.body === null ? '' : JSON.stringify(out.body) });
    }
    this.spec.response(route.op, out.status, out.body);
    return this.answer(r, res, fault, {
      status: out.status,
      body: out.body,
      // in order: the authorization's event before its capture's
      notify: out.webhooks.length > 0 ? async () => {
        for (const w of out.webhooks) await this._webhook(account, w.type, w.p, w.action);
      } : null,
      // altered on the way, after the simulator answered
      tamper: (a) => ({ ...(a as Record<string, unknown>), approved: true, status: 'Captured', response_code: '10000', response_summary: 'Approved', amount: Number((a as Record<string, unknown>).amount ?? 0) + 1 }),
      // a capture, void or refund is decided after it was accepted
      after: () => {
        const f = out.accepted;
        if (!f) return;
        if (this.holdDecisions) this._undecided.push(f);
        else void this.track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => this._decide(f)));
      },
    });
  }

  protected _invalid(codes: string[]) {
    return { status: 422, body: { request_id: id('req_'), error_type: 'request_invalid', error_codes: codes }, webhooks: [] };
  }

  /** A card's fingerprint as Checkout.com gives one (upper-case hex); never a long run of digits. */
  protected _fingerprint(number: string): string {
    for (let salt = 0; ; salt++) {
      const fp = createHmac('sha256', this._fingerprintKey).update(`${salt}:${number}`).digest('hex').toUpperCase();
      if (!/\d{12,}/.test(fp)) return fp;
    }
  }

  protected _pay(key: string, account: CheckoutSimAccount, b: Record<string, unknown>) {
    const src = (b.source ?? null) as Record<string, unknown> | null;
    const codes: string[] = [];
    if (!src) codes.push('payment_source_required');
    const number = typeof src?.number === 'string' ? src.number : '';
    if (src && !/^\d{12,19}$/.test(number)) codes.push('card_number_invalid');
    if (b.processing_channel_id !== account.processingChannelId) codes.push('processing_channel_id_invalid');
    if (typeof b.reference !== 'string') codes.push('reference_invalid');
    if (b.merchant_initiated === true && typeof b.previous_payment_id !== 'string') codes.push('previous_payment_id_required');
    if (codes.length > 0) return this._invalid(codes);
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
      last4: number.slice(-4), bin: number.slice(0, 6), fingerprint: this._fingerprint(number), expiryMonth: src!.expiry_month as number, expiryYear: src!.expiry_year as number,
      captured: 0, refunded: 0, capture: b.capture !== false && amount > 0, actions: [], request, pending: { capture: 0, void: false, refund: 0 }, pending3ds: null,
    };
    this._payments.set(p.id, p);
    this._byReference.set(`${key}:${p.reference}`, p.id);
    if (threeds?.enabled === true && !threeds.cryptogram && typeof b.success_url === 'string' && typeof b.failure_url === 'string') {
      // Checkout.com authenticates first: the cardholder goes to its 3-D Secure page
      p.pending3ds = { number, successUrl: b.success_url, failureUrl: b.failure_url };
      return { status: 202, body: { id: p.id, status: 'Pending', reference: p.reference, customer: { id: id('cus_') }, '3ds': { downgraded: false, enrolled: 'Y' }, _links: { self: { href: `${this.url}/payments/${p.id}` }, redirect: { href: `${this.url}/sim/3ds/${p.id}` } } }, webhooks: [] };
    }
    const authenticated = threeds?.enabled === true && typeof threeds.cryptogram === 'string';
    const code = decide({ number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, ...request, authenticated, now: this.now() });
    const action = this._authorize(p, code);
    return { status: 201, body: this._answer(p, action), webhooks: this._authWebhooks(p, action) };
  }

  protected _authorize(p: SimPayment, code: string): Action {
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

  protected _authWebhooks(p: SimPayment, action: Action) {
    const type = !p.approved ? (p.amount === 0 ? 'card_verification_declined' : 'payment_declined') : p.amount === 0 ? 'card_verified' : 'payment_approved';
    const hooks = [{ type, p, action }];
    if (p.approved && p.capture) hooks.push({ type: 'payment_captured', p, action: p.actions.at(-1)! });
    return hooks;
  }

  protected _links(p: SimPayment) {
    const base = `${this.url}/payments/${p.id}`;
    return {
      self: { href: base }, actions: { href: `${base}/actions` },
      ...(p.status === 'Authorized' ? { capture: { href: `${base}/captures` }, void: { href: `${base}/voids` } } : {}),
      ...(p.captured > p.refunded ? { refund: { href: `${base}/refunds` } } : {}),
      ...(p.pending3ds ? { redirect: { href: `${this.url}/sim/3ds/${p.id}` } } : {}),
    };
  }

  protected _source(p: SimPayment) {
    return { type: 'card', id: `src_${p.id.slice(4)}`, expiry_month: p.expiryMonth, expiry_year: p.expiryYear, scheme: 'Visa', last4: p.last4, fingerprint: p.fingerprint, bin: p.bin };
  }

  /** The 201 answer of a payment (PaymentResponse): the authorization's response code with it. */
  protected _answer(p: SimPayment, action: Action) {
    return {
      id: p.id, action_id: action.id, amount: p.amount, currency: p.currency, approved: p.approved, status: p.status,
      ...(p.approved ? { auth_code: p.authCode } : {}),
      response_code: p.code, response_summary: summaryOf(p.code),
      source: this._source(p),
      processed_on: action.processed_on, reference: p.reference, ...(p.approved ? { scheme_id: p.schemeId } : {}),
      risk: { flagged: false },
      _links: this._links(p),
    };
  }

  /**
   * A payment's details (PaymentDetails): status and approval, no response code. Fetched by its 3-D
   * Secure session id they carry the summary of its actions (with their codes).
   */
  protected _details(p: SimPayment, withActions: boolean) {
    return {
      id: p.id, requested_on: p.actions[0]?.processed_on ?? this.now().toISOString(), source: this._source(p), amount: p.amount, currency: p.currency,
      payment_type: p.request.paymentType, reference: p.reference, status: p.status, approved: p.approved,
      ...(p.approved ? { scheme_id: p.schemeId } : {}),
      balances: {
        total_authorized: p.approved ? p.amount : 0, total_voided: p.status === 'Voided' ? p.amount : 0,
        available_to_void: p.status === 'Authorized' ? p.amount : 0, total_captured: p.captured,
        available_to_capture: p.status === 'Authorized' ? p.amount : 0, total_refunded: p.refunded, available_to_refund: p.captured - p.refunded,
      },
      risk: { flagged: false },
      ...(withActions && p.actions.length > 0 ? { actions: [...p.actions].reverse().map((a) => ({ id: a.id, type: a.type, response_code: a.response_code, response_summary: a.response_summary })) } : {}),
      _links: this._links(p),
    };
  }

  protected _actionOut(a: Action) {
    return { id: a.id, type: a.type, processed_on: a.processed_on, amount: a.amount, approved: a.approved, ...(a.auth_code ? { auth_code: a.auth_code } : {}), response_code: a.response_code, response_summary: a.response_summary, reference: a.reference };
  }

  /** A capture, void or refund: checked against what is left, accepted (202) and decided later. */
  protected _act(key: string, paymentId: string, kind: FollowUpKind, b: Record<string, unknown>) {
    const none = { webhooks: [], accepted: null };
    const p = this._payments.get(paymentId);
    if (!p || p.secretKey !== key) return { status: 404, body: null, ...none };
    const reference = typeof b.reference === 'string' ? b.reference : '';
    const notAllowed = { status: 403, body: null, ...none };
    const amount = typeof b.amount === 'number' ? b.amount : null;
    if (amount !== null && amount <= 0) return { ...this._invalid(['amount_invalid']), accepted: null };
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
    const i = this._declines.findIndex((d) => d.kind === null || d.kind === kind);
    const declineCode = i >= 0 ? this._declines.splice(i, 1)[0].code : null;
    const accepted: PendingFollowUp = { p, kind, id: id('act_'), amount: value, reference, declineCode };
    this._followUpIds.add(accepted.id);
    return { status: 202, body: { action_id: accepted.id, reference, _links: { payment: { href: `${this.url}/payments/${p.id}` } } }, webhooks: [], accepted };
  }

  /** Decides an accepted follow-up: the balances, the action among the payment's actions, the webhook. */
  protected async _decide(f: PendingFollowUp): Promise<void> {
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
    await this._webhook(this._opts.accounts[p.secretKey], approved ? event.approved : event.declined, p, action, true);
  }

  /** The webhook of an action, signed with the account's webhook key, checked against the reference. */
  protected async _webhook(account: CheckoutSimAccount | undefined, type: string, p: SimPayment, a: Action, followUp = false): Promise<void> {
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


  /** Posts a webhook body signed with `key` (tests: a late or replayed delivery). */
  async send(url: string, body: string, key: string, followUp = false): Promise<number | null> {
    return (await this.deliver(url, { 'content-type': 'application/json', 'cko-signature': createHmac('sha256', key).update(body, 'utf8').digest('hex') }, body, { followUp })).status;
  }
}
