/**
 * The Worldpay simulator: a separate HTTP server speaking Worldpay Access as its published references
 * describe it (spec.ts), for the tests and for demos (`npx paygate worldpay-simulator`, then
 * PAYGATE_WORLDPAY_URL=http://127.0.0.1:PORT).
 *
 *  - Every request it receives and every answer and event it gives is checked against the references'
 *    schemas (`spec`, a SpecLedger): a request the reference does not allow is answered 400
 *    (`bodyDoesNotMatchSchema` with its validation errors) and recorded; an answer of its own the
 *    reference does not allow is recorded (the tests fail on either).
 *  - HTTP Basic authentication against its accounts (401 otherwise); the Payments API asks for
 *    `WP-Api-Version: 2024-06-01` (406 otherwise), the Payment Queries API for its media type.
 *  - `POST /api/payments`: authorized (pre-authorization, card verification at amount 0),
 *    sentForSettlement (`settlement.auto`), refused (rules.ts), each with the `_actions` that may follow;
 *    with `threeDS`: 3dsDeviceDataRequired, then (supply3dsDeviceData) authorized or 3dsChallenged with
 *    the challenge page (`/sim/3ds/{id}`, posted the challenge's JWT, which posts `TransactionId` back to
 *    the returnUrl), then
 *    (complete3dsChallenge) the payment's outcome or 3dsAuthenticationFailed.
 *  - The actions, followed by their hrefs: settlements, partialSettlements, cancellations, refunds,
 *    partialRefunds → 202 with the outcome and the next actions; 400 when the payment does not allow it.
 *    A refund taken (sentForRefund, `refundRequested` among the payment's events) is processed later:
 *    right after its answer, or on `decide()` while `holdDecisions` is set. It is then submitted
 *    (`refundRequestSubmitted`, event `refunded`) or, after `failNextRefund()` or for a refund of 113
 *    (rules.ts), failed (`refundFailed`, its amount refundable again, event `refundFailed` with the
 *    refusal).
 *  - The payment's own link (`GET /api/payments/{linkData}`): its last event and the actions it allows.
 *  - Payment Queries: by transaction reference and by payment id (with the payment's events, and among
 *    its links `payments:events`, the payment's own link).
 *  - Events posted to the account's webhook URL, signed `Event-Signature: 1/SHA256/{hex HMAC}` of the raw
 *    body under the account's secret: authorized, sentForSettlement, refused, cancelled, sentForRefund,
 *    refunded, refundFailed.
 *  - The kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    on the way: another transaction reference, sent for settlement).
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { challengePage, htmlDocument, selfPostingForm, SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { API_VERSION, QUERIES_MEDIA_TYPE } from '../mapping.js';
import { WORLDPAY_SPEC } from '../spec.js';
import { decide, DESCRIPTIONS, WORLDPAY_SIM_FAILED_REFUND_AMOUNT, type SimPaymentInput } from './rules.js';

export interface WorldpaySimAccount {
  password: string;
  entity: string;
  eventKey: string;
  /** Where its events go (the gateway's `/v1/processor/worldpay/webhook`); none: not sent. */
  webhookUrl?: string | null;
}

export interface WorldpaySimulatorOptions {
  /** Accounts by username. */
  accounts: Record<string, WorldpaySimAccount>;
  latencyMs?: number;
  clock?: () => Date;
  webhookHeaders?: Record<string, string>;
}

interface SimEvent {
  eventName: string;
  timestamp: string;
  code?: string;
  description?: string;
  refundReference?: string;
  value?: { amount: number; currency: string };
}

interface SimPayment {
  linkData: string;
  paymentId: string;
  username: string;
  reference: string;
  amount: number;
  currency: string;
  autoSettle: boolean;
  state: 'device' | 'challenge' | 'authorized' | 'settled' | 'cancelled' | 'refused' | 'failed';
  input: SimPaymentInput;
  threeds: { returnUrl: string; passed: boolean | null } | null;
  settled: number;
  refunded: number;
  authCode: string;
  schemeReference: string;
  refusal: { code: string | null; description: string } | null;
  events: SimEvent[];
}

/** A refund taken and not processed yet. */
interface TakenRefund {
  p: SimPayment;
  value: number;
  /** A partial refund's reference (the merchant's). */
  reference: string | null;
  /** It fails when processed, with this refusal (`failNextRefund`); null: submitted. */
  failure: { code: string; description: string } | null;
}

type Op = 'payment' | 'supply3dsDeviceData' | 'complete3dsChallenge' | 'settle' | 'partialSettle' | 'cancel' | 'refund' | 'partialRefund';
const ACTION_PATHS: Record<string, Op> = { '3dsDeviceData': 'supply3dsDeviceData', '3dsChallenges': 'complete3dsChallenge', settlements: 'settle', partialSettlements: 'partialSettle', cancellations: 'cancel', refunds: 'refund', partialRefunds: 'partialRefund' };
const PATH_OF: Record<string, string> = Object.fromEntries(Object.entries(ACTION_PATHS).map(([p, op]) => [op, p]));
const ACTION_NAME: Record<string, string> = { settle: 'settlePayment', partialSettle: 'partiallySettlePayment', cancel: 'cancelPayment', refund: 'refundPayment', partialRefund: 'partiallyRefundPayment', supply3dsDeviceData: 'supply3dsDeviceData', complete3dsChallenge: 'complete3dsChallenge' };

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const id = (n: number) => Array.from({ length: n }, () => ALNUM[randomInt(ALNUM.length)]).join('');

export class WorldpaySimulator extends SimulatorBase {
  readonly #opts: WorldpaySimulatorOptions;
  readonly #payments = new Map<string, SimPayment>();
  /** Requests received: payments, actions (settle, cancel, refund), 3-D Secure steps, queries. */
  readonly calls = { payments: 0, actions: 0, threeds: 0, queries: 0 };
  /** Refunds taken wait for `decide()` instead of being processed right after their answer. */
  holdDecisions = false;
  readonly #undecided: TakenRefund[] = [];
  readonly #failures: Array<{ code: string; description: string }> = [];

  constructor(opts: WorldpaySimulatorOptions) {
    super({ spec: WORLDPAY_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.webhookHeaders });
    this.#opts = opts;
  }

  override async close(): Promise<void> {
    await this.settled();
    await super.close();
  }

  paymentCalls(): number {
    return this.calls.payments + this.calls.actions;
  }

  /**
   * The next refund taken is answered sentForRefund as usual and then fails when Worldpay processes it
   * (`refundFailed` among the payment's events, its `refundFailed` event with this refusal).
   */
  failNextRefund(o: { code?: string; description?: string } = {}): void {
    this.#failures.push({ code: o.code ?? '5', description: o.description ?? 'REFUSED' });
  }

  /** Processes every refund taken and waiting (with `holdDecisions`), and sends their events. */
  override async decide(): Promise<void> {
    for (const f of this.#undecided.splice(0)) await this.#decideRefund(f);
    await this.settled();
  }

  /** Refunds taken and not processed yet. */
  undecided(): number {
    return this.#undecided.length;
  }

  /** A payment as the simulator keeps it, by our transaction reference (tests). */
  paymentByReference(reference: string): Readonly<SimPayment> | undefined {
    for (const p of this.#payments.values()) if (p.reference === reference) return p;
    return undefined;
  }

  #account(headers: http.IncomingHttpHeaders): [string, WorldpaySimAccount] | null {
    const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(String(headers.authorization ?? ''));
    if (!m) return null;
    const [user, ...rest] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
    const a = this.#opts.accounts[user];
    return a && a.password === rest.join(':') ? [user, a] : null;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const { url, headers } = r;
    if (url.pathname.startsWith('/sim/3ds/')) return this.#challengePage(r, res);
    const answer = (op: string, status: number, body: unknown) => {
      this.spec.response(op, status, body);
      this.write(res, status, body, { 'content-type': op.startsWith('query') || op.startsWith('retrieve') ? QUERIES_MEDIA_TYPE : 'application/json' });
    };
    let m: RegExpExecArray | null;
    // Payment Queries
    if (r.method === 'GET' && url.pathname.startsWith('/paymentQueries/payments')) {
      const op = url.pathname === '/paymentQueries/payments' ? 'queryByTransactionReference' : 'retrieveByPaymentId';
      const account = this.#account(headers);
      if (!account) return answer(op, 401, { errorName: 'accessDenied', message: 'Access to the requested resource has been denied' });
      this.calls.queries++;
      if (headers.accept !== QUERIES_MEDIA_TYPE) return this.write(res, 406, { errorName: 'headerHasInvalidValue', message: 'The Accept header is not the Payment Queries media type', headerName: 'Accept' });
      this.spec.request(op, r.raw === '' ? undefined : r.raw);
      if (op === 'queryByTransactionReference') {
        const ref = url.searchParams.get('transactionReference') ?? '';
        const found = [...this.#payments.values()].filter((p) => p.username === account[0] && p.reference === ref && p.state !== 'device' && p.state !== 'challenge');
        return answer(op, 200, { _links: { self: { href: `${this.url}${url.pathname}${url.search}` } }, _embedded: { payments: found.map((p) => this.#queried(p, false)) } });
      }
      const p = [...this.#payments.values()].find((x) => x.paymentId === url.pathname.slice('/paymentQueries/payments/'.length) && x.username === account[0]);
      if (!p) return answer(op, 404, { errorName: 'entityNotFound', message: 'No payment with this id' });
      return answer(op, 200, this.#queried(p, true));
    }
    // the payment's own link: the actions it allows now
    if (r.method === 'GET' && (m = /^\/api\/payments\/([A-Za-z0-9_-]+)$/.exec(url.pathname))) {
      const account = this.#account(headers);
      if (!account) return answer('queryPayment', 401, { errorName: 'accessDenied', message: 'Access to the requested resource has been denied' });
      if (headers['wp-api-version'] !== API_VERSION) return this.write(res, 406, { errorName: 'headerIsMissing', message: `WP-Api-Version ${API_VERSION} is expected`, headerName: 'WP-Api-Version' });
      this.calls.queries++;
      this.spec.request('queryPayment', r.raw === '' ? undefined : r.raw);
      const found = this.#payments.get(m[1]);
      if (!found || found.username !== account[0]) return answer('queryPayment', 404, { errorName: 'entityNotFound', message: 'No payment for this link' });
      return answer('queryPayment', 200, { lastEvent: this.#lastEvent(found), _links: this.#links(found), _actions: this.#actions(found) });
    }
    let op: Op | null = null;
    let p: SimPayment | undefined;
    if (r.method === 'POST' && url.pathname === '/api/payments') op = 'payment';
    else if (r.method === 'POST' && (m = /^\/api\/payments\/([A-Za-z0-9_-]+)\/([A-Za-z0-9]+)$/.exec(url.pathname)) && ACTION_PATHS[m[2]]) {
      op = ACTION_PATHS[m[2]];
      p = this.#payments.get(m[1]);
    }
    if (!op) return this.write(res, 404, { errorName: 'resourceNotFound', message: 'No such resource' });
    const account = this.#account(headers);
    if (!account) return answer(op, 401, { errorName: 'accessDenied', message: 'Access to the requested resource has been denied' });
    if (headers['wp-api-version'] !== API_VERSION) return answer(op, 406, { errorName: 'headerIsMissing', message: `WP-Api-Version ${API_VERSION} is expected`, headerName: 'WP-Api-Version' });
    if (op !== 'payment' && (!p || p.username !== account[0])) return answer(op, 404, { errorName: 'entityNotFound', message: 'No payment for this link' });
    if (op === 'payment') this.calls.payments++;
    else if (op === 'supply3dsDeviceData' || op === 'complete3dsChallenge') this.calls.threeds++;
    else this.calls.actions++;
    const money = op !== 'supply3dsDeviceData' && op !== 'complete3dsChallenge';
    const fault = money ? this.takeFault() : null;
    if (fault === 'lost') return this.drop(r);
    let body: unknown = r.raw === '' ? undefined : r.raw;
    try {
      if (r.raw !== '') body = JSON.parse(r.raw);
    } catch {
      // checked as it is
    }
    const problems = this.spec.request(op, body);
    let out: { status: number; body: Record<string, unknown>; events: Array<[SimPayment, string, Partial<SimEvent>?]>; taken?: TakenRefund };
    if (problems.length > 0) out = { status: 400, body: { errorName: 'bodyDoesNotMatchSchema', message: 'The json body provided does not match the expected schema', validationErrors: problems.map((x) => ({ errorName: 'fieldHasInvalidValue', message: x, jsonPath: `$${x.split(' ')[0].replace(/\//g, '.').replace('(body)', '')}` })) }, events: [] };
    else if (op === 'payment') out = this.#pay(account, body as Record<string, unknown>);
    else out = this.#act(op, p!, (body ?? {}) as Record<string, unknown>);
    this.spec.response(op, out.status, out.body);
    return this.answer(r, res, fault, {
      status: out.status,
      body: out.body,
      notify: out.events.length > 0 ? async () => {
        for (const [x, type, extra] of out.events) await this.#event(account[1], x, type, extra);
      } : null,
      // altered on the way: another payment's answer, settled
      tamper: (a) => ({ ...(a as Record<string, unknown>), outcome: 'sentForSettlement', transactionReference: `${String((a as Record<string, unknown>).transactionReference ?? '')}x` }),
      // a refund taken is processed after its answer
      after: () => {
        const f = out.taken;
        if (!f) return;
        if (this.holdDecisions) this.#undecided.push(f);
        else void this.track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#decideRefund(f)));
      },
    });
  }

  #links(p: SimPayment) {
    return { self: { href: `${this.url}/api/payments/${p.linkData}` } };
  }

  #actions(p: SimPayment): Record<string, { href: string; method: string }> {
    const names: string[] = [];
    if (p.state === 'device') names.push('supply3dsDeviceData');
    else if (p.state === 'challenge') names.push('complete3dsChallenge');
    else if (p.state === 'authorized' && p.amount > 0) names.push('settlePayment', 'partiallySettlePayment', 'cancelPayment');
    else if (p.state === 'settled') {
      if (p.settled < p.amount && p.refunded === 0) names.push('partiallySettlePayment', 'cancelPayment');
      if (p.refunded === 0) names.push('refundPayment');
      if (p.refunded < p.settled) names.push('partiallyRefundPayment');
    }
    const op = Object.fromEntries(Object.entries(ACTION_NAME).map(([k, v]) => [v, k]));
    return Object.fromEntries(names.map((n) => [n, { href: `${this.url}/api/payments/${p.linkData}/${PATH_OF[op[n]]}`, method: 'POST' }]));
  }

  /** The answer of a payment at its state. */
  #paymentAnswer(p: SimPayment): Record<string, unknown> {
    const base = { transactionReference: p.reference };
    if (p.state === 'device') return { outcome: '3dsDeviceDataRequired', ...base, deviceDataCollection: { jwt: id(40), url: `${this.url}/sim/ddc`, bin: p.input.number.slice(0, 6) }, _actions: this.#actions(p) };
    if (p.state === 'challenge') {
      const creq = Buffer.from(JSON.stringify({ messageType: 'CReq', messageVersion: '2.2.0', threeDSServerTransID: p.paymentId, acsTransID: p.linkData, challengeWindowSize: '02' })).toString('base64url');
      const jwt = [{ typ: 'JWT', alg: 'HS256' }, { jti: p.paymentId, ReturnUrl: p.threeds!.returnUrl, Payload: { ACSUrl: `${this.url}/sim/3ds/${p.linkData}`, TransactionId: this.#challengeId(p) } }].map((x) => Buffer.from(JSON.stringify(x)).toString('base64url')).join('.') + `.${id(43)}`;
      return { outcome: '3dsChallenged', ...base, authentication: { version: '2.2.0' }, challenge: { reference: this.#challengeId(p), url: `${this.url}/sim/3ds/${p.linkData}`, jwt, payload: creq }, _actions: this.#actions(p) };
    }
    if (p.state === 'failed') return { outcome: '3dsAuthenticationFailed', ...base, authentication: { version: '2.2.0' } };
    if (p.state === 'refused') return { outcome: 'refused', ...base, ...(p.refusal!.code ? { refusalCode: p.refusal!.code } : {}), refusalDescription: p.refusal!.description, paymentInstrument: this.#instrument(p) };
    return {
      outcome: p.state === 'settled' ? 'sentForSettlement' : 'authorized', ...base, paymentInstrument: this.#instrument(p),
      issuer: { authorizationCode: p.authCode }, schemeReference: p.schemeReference, _links: this.#links(p), _actions: this.#actions(p),
    };
  }

  /** The challenge's reference (Cardinal's TransactionId, posted back to the returnUrl). */
  #challengeId(p: SimPayment): string {
    return p.paymentId.slice(3, 23);
  }

  #instrument(p: SimPayment) {
    return { type: 'card/plain+masked', cardBin: p.input.number.slice(0, 6), lastFour: p.input.number.slice(-4), expiryDate: { month: p.input.expiryMonth, year: p.input.expiryYear }, cardBrand: 'visa', fundingType: 'credit' };
  }

  #pay(account: [string, WorldpaySimAccount], b: Record<string, unknown>) {
    const ins = b.instruction as Record<string, unknown>;
    const card = ins.paymentInstrument as Record<string, unknown>;
    const value = ins.value as { amount: number; currency: string };
    const agreement = (ins.customerAgreement ?? null) as Record<string, unknown> | null;
    const expiry = card.expiryDate as { month: number; year: number };
    const bad = (field: string, message: string) => ({ status: 400, body: { errorName: 'bodyDoesNotMatchSchema', message: 'The json body provided does not match the expected schema', validationErrors: [{ errorName: 'fieldHasInvalidValue', message, jsonPath: field }] }, events: [] as Array<[SimPayment, string]> });
    if ((b.merchant as { entity: string }).entity !== account[1].entity) return bad('$.merchant.entity', 'Entity not found for this account');
    if (!luhn(card.cardNumber as string)) return bad('$.instruction.paymentInstrument.cardNumber', 'Card number is not valid');
    if ([...this.#payments.values()].some((x) => x.username === account[0] && x.reference === b.transactionReference)) return bad('$.transactionReference', 'Duplicate transactionReference');
    const p: SimPayment = {
      linkData: id(48), paymentId: `pay${id(26)}`, username: account[0], reference: b.transactionReference as string, amount: value.amount, currency: value.currency,
      autoSettle: (ins.settlement as { auto?: boolean } | undefined)?.auto === true && value.amount > 0, state: 'authorized',
      input: {
        number: card.cardNumber as string, holder: typeof card.cardHolderName === 'string' ? card.cardHolderName : null, expiryMonth: expiry.month, expiryYear: expiry.year,
        channel: b.channel === 'moto' ? 'moto' : 'ecom',
        agreement: agreement ? { type: String(agreement.type), usage: typeof agreement.storedCardUsage === 'string' ? agreement.storedCardUsage : null, schemeReference: typeof agreement.schemeReference === 'string' } : null,
        authenticated: false, now: this.now(),
      },
      threeds: ins.threeDS ? { returnUrl: ((ins.threeDS as Record<string, unknown>).challenge as { returnUrl: string }).returnUrl, passed: null } : null,
      settled: 0, refunded: 0, authCode: String(randomInt(100000, 999999)), schemeReference: schemeTransactionId(), refusal: null, events: [],
    };
    this.#payments.set(p.linkData, p);
    if (p.threeds) {
      p.state = 'device';
      return { status: 201, body: this.#paymentAnswer(p), events: [] };
    }
    return this.#authorize(p);
  }

  /** The issuer's decision on a payment (after 3-D Secure when it ran), its answer and events. */
  #authorize(p: SimPayment) {
    const refusal = decide(p.input);
    const now = this.now().toISOString();
    const events: Array<[SimPayment, string, Partial<SimEvent>?]> = [];
    p.events.push({ eventName: p.autoSettle ? 'saleRequested' : 'authorizationRequested', timestamp: now });
    if (refusal) {
      p.state = 'refused';
      p.refusal = refusal;
      p.events.push({ eventName: p.autoSettle ? 'saleRefused' : 'authorizationRefused', timestamp: now, ...(refusal.code ? { code: refusal.code } : {}), description: refusal.description });
      events.push([p, 'refused']);
    } else {
      p.events.push({ eventName: p.autoSettle ? 'saleSucceeded' : 'authorizationSucceeded', timestamp: now });
      events.push([p, 'authorized']);
      if (p.autoSettle) {
        p.state = 'settled';
        p.settled = p.amount;
        p.events.push({ eventName: 'settlementRequested', timestamp: now, value: { amount: p.amount, currency: p.currency } });
        events.push([p, 'sentForSettlement']);
      } else p.state = 'authorized';
    }
    return { status: 201, body: this.#paymentAnswer(p), events };
  }

  #act(op: Op, p: SimPayment, b: Record<string, unknown>): { status: number; body: Record<string, unknown>; events: Array<[SimPayment, string, Partial<SimEvent>?]>; taken?: TakenRefund } {
    const notAllowed = (why: string) => ({ status: 400, body: { errorName: 'bodyDoesNotMatchSchema', message: why, validationErrors: [] }, events: [] });
    const offered = Object.keys(this.#actions(p)).includes(ACTION_NAME[op]);
    if (!offered) return notAllowed(`${ACTION_NAME[op]} is not an action of this payment now`);
    if (op === 'supply3dsDeviceData') {
      p.state = p.input.number === '4000000000001091' ? 'challenge' : 'authorized';
      if (p.state === 'challenge') return { status: 201, body: this.#paymentAnswer(p), events: [] };
      p.input.authenticated = true;
      return this.#authorize(p);
    }
    if (op === 'complete3dsChallenge') {
      if (p.threeds?.passed === null) return notAllowed('The challenge is not finished');
      if (!p.threeds!.passed) {
        p.state = 'failed';
        return { status: 201, body: this.#paymentAnswer(p), events: [] };
      }
      p.input.authenticated = true;
      return this.#authorize(p);
    }
    const now = this.now().toISOString();
    const amount = (b.value as { amount?: number } | undefined)?.amount;
    const reference = typeof b.reference === 'string' ? b.reference : undefined;
    const events: Array<[SimPayment, string, Partial<SimEvent>?]> = [];
    let outcome: string;
    let taken: TakenRefund | undefined;
    if (op === 'settle' || op === 'partialSettle') {
      const value = op === 'settle' ? p.amount : amount!;
      if (value <= 0 || p.settled + value > p.amount) return notAllowed('More than is left to settle');
      p.settled += value;
      p.state = 'settled';
      p.events.push({ eventName: 'settlementRequested', timestamp: now, value: { amount: value, currency: p.currency } });
      events.push([p, 'sentForSettlement', { value: { amount: value, currency: p.currency } }]);
      outcome = 'sentForSettlement';
    } else if (op === 'cancel') {
      p.state = 'cancelled';
      p.events.push({ eventName: 'cancellationRequested', timestamp: now });
      events.push([p, 'cancelled']);
      outcome = 'sentForCancellation';
    } else {
      const value = op === 'refund' ? p.settled : amount!;
      if (value <= 0 || p.refunded + value > p.settled) return notAllowed('More than is left to refund');
      p.refunded += value;
      p.events.push({ eventName: 'refundRequested', timestamp: now, ...(reference ? { refundReference: reference } : {}), value: { amount: value, currency: p.currency } });
      events.push([p, 'sentForRefund', { value: { amount: value, currency: p.currency }, ...(reference ? { refundReference: reference } : {}) }]);
      outcome = op === 'refund' ? 'sentForRefund' : 'sentForPartialRefund';
      taken = { p, value, reference: reference ?? null, failure: this.#failures.shift() ?? (value === WORLDPAY_SIM_FAILED_REFUND_AMOUNT ? { code: '5', description: DESCRIPTIONS['5'] } : null) };
    }
    return { status: 202, body: { outcome, _links: this.#links(p), _actions: this.#actions(p) }, events, taken };
  }

  /**
   * Worldpay processes a refund it took: submitted (`refundRequestSubmitted`, event `refunded`), or
   * failed after `failNextRefund` (`refundFailed`, the amount refundable again, event `refundFailed`).
   */
  async #decideRefund(f: TakenRefund): Promise<void> {
    const { p } = f;
    const { failure } = f;
    const now = this.now().toISOString();
    const value = { amount: f.value, currency: p.currency };
    const extra: Partial<SimEvent> = { value, ...(f.reference ? { refundReference: f.reference } : {}) };
    if (failure) {
      p.refunded -= f.value;
      p.events.push({ eventName: 'refundFailed', timestamp: now });
      await this.#event(this.#opts.accounts[p.username], p, 'refundFailed', { ...extra, refusal: failure }, true);
    } else {
      p.events.push({ eventName: 'refundRequestSubmitted', timestamp: now });
      await this.#event(this.#opts.accounts[p.username], p, 'refunded', extra, true);
    }
  }

  #lastEvent(p: SimPayment): string {
    return p.events.at(-1)?.eventName ?? 'authorizationRequested';
  }

  #queried(p: SimPayment, withEvents: boolean): Record<string, unknown> {
    return {
      paymentId: p.paymentId, transactionReference: p.reference, entity: this.#opts.accounts[p.username]?.entity, timestamp: p.events[0]?.timestamp ?? this.now().toISOString(),
      lastEvent: this.#lastEvent(p), value: { amount: p.amount, currency: p.currency },
      ...(p.state !== 'refused' ? { issuer: { authorizationCode: p.authCode }, scheme: { reference: p.schemeReference } } : {}),
      ...(withEvents ? { events: p.events } : {}),
      // retrieved by its id, the payment's next action links: its own link (its query, with its actions)
      _links: { self: { href: `${this.url}/paymentQueries/payments/${p.paymentId}` }, ...(withEvents ? { 'payments:events': { href: `${this.url}/api/payments/${p.linkData}` } } : {}) },
    };
  }

  /**
   * An event about a payment, signed with the account's secret, checked against the reference: a
   * refund's carries its reference (a partial refund's) and, failed, the refusal. `followUp`: it tells a
   * decision taken after the answer.
   */
  async #event(account: WorldpaySimAccount | undefined, p: SimPayment, type: string, extra: Partial<SimEvent> & { refusal?: { code: string; description: string } } = {}, followUp = false): Promise<void> {
    if (!account?.webhookUrl) return;
    const value = extra.value ?? { amount: p.amount, currency: p.currency };
    const event = {
      eventId: `${id(8)}-${id(4)}-${id(4)}-${id(12)}`, eventTimestamp: this.now().toISOString(),
      eventDetails: {
        classification: 'payment', transactionReference: p.reference, type, date: this.now().toISOString().slice(0, 10),
        ...(extra.refundReference ? { reference: extra.refundReference } : {}),
        ...(extra.refusal ? { refund: { refusal: extra.refusal } } : {}),
        amount: { value: value.amount, currencyCode: value.currency },
      },
    };
    this.spec.response('event', 'notification', event);
    await this.send(account.webhookUrl, JSON.stringify(event), account.eventKey, followUp);
  }

  /** Posts an event body signed with `key` (tests: a late or replayed delivery). */
  async send(url: string, body: string, key: string, followUp = false): Promise<number | null> {
    const signature = createHmac('sha256', key).update(body, 'utf8').digest('hex');
    return (await this.deliver(url, { 'content-type': 'application/vnd.worldpay.events-v1.hal+json', 'event-signature': `1/SHA256/${signature}` }, body, { followUp })).status;
  }

  // ---- the issuer's 3-D Secure challenge page ----------------------------------------------------------

  /**
   * The challenge page, posted the challenge's `JWT`: the cardholder passes or fails; then its
   * `TransactionId` is posted back to the payment's returnUrl.
   */
  async #challengePage(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const p = this.#payments.get(r.url.pathname.slice('/sim/3ds/'.length));
    if (!p?.threeds || p.state !== 'challenge') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished challenge');
    const result = r.method === 'POST' ? new URLSearchParams(r.raw).get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      return this.html(res, 200, challengePage({ title: '3-D Secure', heading: '3-D Secure challenge (Worldpay simulator)', lines: [`Amount ${p.amount} ${p.currency}, card ending ${p.input.number.slice(-4)}`], action: `/sim/3ds/${p.linkData}` }));
    }
    p.threeds.passed = result === 'Y';
    return this.html(res, 200, htmlDocument('3-D Secure', selfPostingForm(p.threeds.returnUrl, { TransactionId: this.#challengeId(p) })));
  }

  /** Fresh random bytes for demo secrets. */
  static demoKey(): string {
    return randomBytes(24).toString('base64url');
  }
}

function luhn(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}
