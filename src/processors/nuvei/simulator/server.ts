/**
 * The Nuvei simulator: a separate HTTP server speaking Nuvei's REST API 1.0 as its published reference
 * describes it (spec.ts), for the tests and for demos (`npx paygate nuvei-simulator`, then
 * PAYGATE_NUVEI_URL=http://127.0.0.1:PORT).
 *
 *  - Every request it receives and every answer and DMN it gives is checked against the reference's
 *    schemas (`spec`, a SpecLedger): a request the reference does not allow is answered `status: ERROR`
 *    (1019, Validation Error, with the problems) and recorded; an answer of its own the reference does
 *    not allow is recorded (the tests fail on either).
 *  - Its sites (merchantId, merchantSiteId, secret key) check every request's `checksum` in the
 *    reference's field order (1001 Invalid checksum otherwise) and the session token of `payment` and
 *    `initPayment`.
 *  - `payment`: Sale (approved and settled) or Auth, declined by the card (rules.ts); merchant-initiated
 *    payments related to an approved transaction of the card; with `threeD` after `initPayment`:
 *    approved frictionlessly or REDIRECT to its challenge page (`/sim/3ds/{id}`, posted the CReq, which
 *    posts a `cres` back to the notificationURL); the last `payment` related to the challenge's
 *    transaction gives the result.
 *  - `settleTransaction`, `voidTransaction`, `refundTransaction` of its transactions (partial and
 *    several settles and refunds up to the amount); `getTransactionDetails` by clientUniqueId.
 *  - DMNs posted (form fields) to the request's `urlDetails.notificationUrl`, signed with
 *    advanceResponseChecksum.
 *  - The kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    on the way: another request's id, approved).
 */
import { randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { challengePage, htmlDocument, selfPostingForm, SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { API_PATH, checksumOf, dmnChecksum, fromAmount, toAmount } from '../mapping.js';
import { NUVEI_SPEC } from '../spec.js';
import { challenges, decide } from './rules.js';

export interface NuveiSimSite {
  merchantId: string;
  secretKey: string;
}

export interface NuveiSimulatorOptions {
  /** Sites by merchantSiteId. */
  sites: Record<string, NuveiSimSite>;
  latencyMs?: number;
  clock?: () => Date;
  notifyHeaders?: Record<string, string>;
}

interface SimTx {
  id: string;
  site: string;
  type: 'Sale' | 'Auth' | 'Settle' | 'Void' | 'Credit' | 'InitAuth3D' | 'Auth3D';
  status: 'APPROVED' | 'DECLINED' | 'ERROR' | 'REDIRECT' | 'PENDING';
  clientUniqueId: string;
  amount: number;
  currency: string;
  authCode: string;
  reason: string | null;
  extended: number;
  related: string | null;
  /** Settled, refunded so far; voided. */
  settled: number;
  refunded: number;
  voided: boolean;
  card: { number: string; expiryMonth: number; expiryYear: number } | null;
  /** The challenge: where the ACS answers, and the cardholder's answer. */
  challenge: { notificationURL: string; passed: boolean | null } | null;
  date: Date;
}

type Method = 'getSessionToken' | 'initPayment' | 'payment' | 'settleTransaction' | 'voidTransaction' | 'refundTransaction' | 'getTransactionDetails';
const METHODS: Method[] = ['getSessionToken', 'initPayment', 'payment', 'settleTransaction', 'voidTransaction', 'refundTransaction', 'getTransactionDetails'];
const MONEY: Method[] = ['payment', 'settleTransaction', 'voidTransaction', 'refundTransaction'];

type Body = Record<string, unknown>;
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

export class NuveiSimulator extends SimulatorBase {
  readonly #opts: NuveiSimulatorOptions;
  readonly #sessions = new Map<string, string>();
  readonly #txs = new Map<string, SimTx>();
  /** The notification URL each payment named, by its transaction. */
  readonly #urls = new Map<string, string>();
  #next = 1100000000 + randomInt(1_000_000);
  /** Follow-ups to answer PENDING (tests), and those waiting for their decision with it. */
  #hold = 0;
  readonly #pending: Array<{ tx: SimTx; related: SimTx; decision: 'APPROVED' | 'DECLINED' }> = [];
  /** Requests received: payments (payment.do), actions (settle, void, refund), session tokens, queries. */
  readonly calls = { payments: 0, actions: 0, sessions: 0, queries: 0 };

  constructor(opts: NuveiSimulatorOptions) {
    super({ spec: NUVEI_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.notifyHeaders });
    this.#opts = opts;
  }

  override async close(): Promise<void> {
    await this.settled();
    await super.close();
  }

  paymentCalls(): number {
    return this.calls.payments + this.calls.actions;
  }

  /** The transactions under one of our references, oldest first (tests). */
  transactionsOf(clientUniqueId: string): ReadonlyArray<Readonly<SimTx>> {
    return [...this.#txs.values()].filter((t) => t.clientUniqueId === clientUniqueId);
  }

  #id(): string {
    return String(this.#next++);
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    if (r.path.startsWith('/sim/3ds/')) return this.#challengePage(r, res);
    const m = new RegExp(`^${API_PATH}/([A-Za-z]+)\\.do$`).exec(r.path);
    const method = m && (METHODS as string[]).includes(m[1]) ? (m[1] as Method) : null;
    if (!method || r.method !== 'POST') return this.write(res, 404, 'Not Found');
    if (method === 'payment') this.calls.payments++;
    else if (MONEY.includes(method)) this.calls.actions++;
    else if (method === 'getSessionToken') this.calls.sessions++;
    else this.calls.queries++;
    const fault = MONEY.includes(method) ? this.takeFault() : null;
    if (fault === 'lost') return this.drop(r);
    let body: unknown;
    try {
      body = JSON.parse(r.raw);
    } catch {
      body = r.raw;
    }
    const b = (body && typeof body === 'object' ? body : {}) as Body;
    const problems = this.spec.request(method, body);
    const out = problems.length > 0 ? this.#error(b, 1019, `Validation Error: ${problems.join('; ')}`) : this.#process(method, b);
    this.spec.response(method, 200, out.answer);
    return this.answer(r, res, fault, {
      status: 200,
      body: out.answer,
      notify: out.dmn ? () => this.#dmn(out.dmn!.tx, out.dmn!.url) : null,
      // altered on the way: another request's answer, approved
      tamper: (a) => ({ ...(a as Body), transactionStatus: 'APPROVED', clientRequestId: `${s((a as Body).clientRequestId)}x` }),
    });
  }

  #base(b: Body): Body {
    return { merchantId: s(b.merchantId), merchantSiteId: s(b.merchantSiteId), clientRequestId: s(b.clientRequestId), internalRequestId: randomInt(1, 2 ** 31), version: '1.0' };
  }

  #error(b: Body, errCode: number, reason: string): { answer: Body; dmn?: undefined } {
    return { answer: { ...this.#base(b), status: 'ERROR', errCode, reason } };
  }

  #process(method: Method, b: Body): { answer: Body; dmn?: { tx: SimTx; url: string } } {
    const siteId = s(b.merchantSiteId);
    const site = this.#opts.sites[siteId];
    if (!site) return this.#error(b, 1022, 'Invalid merchant site ID');
    if (site.merchantId !== b.merchantId) return this.#error(b, 1013, 'Invalid merchant ID');
    const order: Record<Method, string[]> = {
      getSessionToken: ['merchantId', 'merchantSiteId', 'clientRequestId', 'timeStamp'],
      initPayment: ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'],
      payment: ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'],
      settleTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'descriptorMerchantName', 'descriptorMerchantPhone', 'comment', 'urlDetails', 'timeStamp'],
      voidTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'],
      refundTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'],
      getTransactionDetails: ['merchantId', 'merchantSiteId', 'transactionId', 'clientUniqueId', 'timeStamp'],
    };
    const fields = order[method];
    if (b.checksum !== checksumOf(fields.map((f) => s(b[f])), site.secretKey)) return this.#error(b, 1001, 'Invalid checksum');
    if (method === 'getSessionToken') {
      const token = randomBytes(18).toString('hex');
      this.#sessions.set(token, siteId);
      return { answer: { ...this.#base(b), sessionToken: token, status: 'SUCCESS', errCode: 0, reason: '' } };
    }
    if ((method === 'payment' || method === 'initPayment') && this.#sessions.get(s(b.sessionToken)) !== siteId) return this.#error(b, 1069, 'Session expired');
    if (method === 'getTransactionDetails') return this.#details(b, siteId);
    if (method === 'initPayment') return this.#init(b, siteId);
    if (method === 'payment') return this.#pay(b, siteId);
    return this.#act(method, b, siteId);
  }

  #txAnswer(b: Body, t: SimTx): Body {
    return {
      ...this.#base(b), status: 'SUCCESS', errCode: 0, reason: '', transactionStatus: t.status, transactionType: t.type, transactionId: t.id, clientUniqueId: t.clientUniqueId,
      ...(t.status === 'APPROVED' ? { authCode: t.authCode } : {}),
      gwErrorCode: t.status === 'APPROVED' || t.status === 'REDIRECT' || t.status === 'PENDING' ? 0 : t.status === 'DECLINED' ? -1 : -1100,
      ...(t.reason ? { gwErrorReason: t.reason } : {}), gwExtendedErrorCode: t.extended,
    };
  }

  #tx(site: string, b: Body, type: SimTx['type'], amount: number, extra: Partial<SimTx> = {}): SimTx {
    const t: SimTx = {
      id: this.#id(), site, type, status: 'APPROVED', clientUniqueId: s(b.clientUniqueId), amount, currency: s(b.currency), authCode: String(randomInt(100000, 999999)),
      reason: null, extended: 0, related: typeof b.relatedTransactionId === 'string' ? b.relatedTransactionId : null, settled: 0, refunded: 0, voided: false, card: null, challenge: null, date: this.now(), ...extra,
    };
    this.#txs.set(t.id, t);
    return t;
  }

  #cardOf(b: Body): SimTx['card'] {
    const c = ((b.paymentOption as Body).card ?? {}) as Body;
    return { number: s(c.cardNumber), expiryMonth: Number(c.expirationMonth), expiryYear: Number(c.expirationYear) };
  }

  #init(b: Body, site: string) {
    const card = this.#cardOf(b);
    if (!luhn(card!.number)) return this.#error(b, 1004, 'Missing or invalid CardData data');
    const t = this.#tx(site, b, 'InitAuth3D', fromAmount(b.amount, s(b.currency)) ?? 0, { card });
    return { answer: { ...this.#txAnswer(b, t), paymentOption: { card: { threeD: { v2supported: 'true', methodUrl: '', methodPayload: '', serverTransId: randomBytes(16).toString('hex'), version: '2.2.0' } } } } };
  }

  #pay(b: Body, site: string) {
    const currency = s(b.currency);
    const amount = fromAmount(b.amount, currency);
    if (amount === null) return this.#error(b, 1019, 'Validation Error: amount');
    const card = this.#cardOf(b)!;
    if (!luhn(card.number)) return this.#error(b, 1004, 'Missing or invalid CardData data');
    const c = (b.paymentOption as Body).card as Body;
    const threeD = (c.threeD ?? null) as Body | null;
    const related = typeof b.relatedTransactionId === 'string' ? this.#txs.get(b.relatedTransactionId) : undefined;
    if (b.relatedTransactionId !== undefined && (!related || related.site !== site)) return this.#error(b, 1140, 'Invalid relatedTransactionId');
    const type = b.transactionType === 'Sale' ? 'Sale' : 'Auth';
    const url = s((b.urlDetails as Body | undefined)?.notificationUrl) || null;
    let authenticated = false;
    if (threeD?.browserDetails) {
      // the authentication request: after initPayment
      if (related?.type !== 'InitAuth3D') return this.#error(b, 1140, 'Invalid relatedTransactionId: no initPayment');
      if (challenges(card.number, s(c.cardHolderName))) {
        const t = this.#tx(site, b, 'Auth3D', amount, { status: 'REDIRECT', card, challenge: { notificationURL: s(threeD.notificationURL), passed: null } });
        const creq = Buffer.from(JSON.stringify({ messageType: 'CReq', messageVersion: '2.2.0', threeDSServerTransID: t.id, acsTransID: t.id, challengeWindowSize: '05' })).toString('base64url');
        return { answer: { ...this.#txAnswer(b, t), paymentOption: { card: { threeD: { acsUrl: `${this.url}/sim/3ds/${t.id}`, cReq: creq, version: '2.2.0' } } } } };
      }
      authenticated = true;
    } else if (related?.type === 'Auth3D') {
      // the payment after the challenge
      if (related.challenge?.passed === null) return this.#error(b, 1140, 'The 3-D Secure challenge is not finished');
      if (!related.challenge!.passed) {
        const t = this.#tx(site, b, type, amount, { status: 'DECLINED', reason: 'Authentication Failed', extended: 0, card });
        return { answer: this.#txAnswer(b, t), dmn: url ? { tx: t, url } : undefined };
      }
      authenticated = true;
    }
    const merchantInitiated = b.isRebilling === 1 && !!related && related.status === 'APPROVED' && related.card?.number === card.number;
    const decision = decide({ number: card.number, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, moto: b.isMoto === '1', merchantInitiated, authenticated, now: this.now() });
    const t = this.#tx(site, b, type, amount, decision ? { status: 'DECLINED', reason: decision.reason, extended: decision.extended, card } : { card, settled: type === 'Sale' ? amount : 0 });
    if (url) this.#urls.set(t.id, url);
    return { answer: this.#txAnswer(b, t), dmn: url ? { tx: t, url } : undefined };
  }

  #act(method: Method, b: Body, site: string) {
    const related = this.#txs.get(s(b.relatedTransactionId));
    if (!related || related.site !== site || related.status !== 'APPROVED') return this.#error(b, 1140, 'Invalid relatedTransactionId');
    const amount = fromAmount(b.amount, s(b.currency));
    if (amount === null || b.currency !== related.currency) return this.#error(b, 1019, 'Validation Error: amount or currency');
    const refuse = (reason: string) => {
      const t = this.#tx(site, b, method === 'settleTransaction' ? 'Settle' : method === 'voidTransaction' ? 'Void' : 'Credit', amount, { status: 'ERROR', reason, extended: 0 });
      return { answer: this.#txAnswer(b, t) };
    };
    if (this.#hold > 0) {
      // accepted, decided later (release): nothing moves until then
      this.#hold--;
      const type = method === 'settleTransaction' ? 'Settle' : method === 'voidTransaction' ? 'Void' : 'Credit';
      const t = this.#tx(site, b, type, amount, { status: 'PENDING', card: related.card });
      this.#pending.push({ tx: t, related, decision: this.#holdDecision });
      return { answer: this.#txAnswer(b, t) };
    }
    let t: SimTx;
    if (method === 'settleTransaction') {
      if (related.type !== 'Auth' || related.voided || amount <= 0 || related.settled + amount > related.amount) return refuse('Settle amount exceeds the authorization, or it cannot be settled');
      related.settled += amount;
      t = this.#tx(site, b, 'Settle', amount, { card: related.card });
    } else if (method === 'voidTransaction') {
      if (related.type !== 'Auth' || related.voided || related.settled > 0) return refuse('The transaction cannot be voided');
      related.voided = true;
      t = this.#tx(site, b, 'Void', amount, { card: related.card });
    } else {
      if ((related.type !== 'Sale' && related.type !== 'Settle') || amount <= 0 || related.refunded + amount > related.amount) return refuse('Refund amount exceeds the settled amount');
      related.refunded += amount;
      t = this.#tx(site, b, 'Credit', amount, { card: related.card });
    }
    // a follow-up's DMN goes to the notification URL of the payment it belongs to
    const payment = this.#rootOf(related);
    return { answer: this.#txAnswer(b, t), dmn: payment?.notificationUrl ? { tx: t, url: payment.notificationUrl } : undefined };
  }

  #holdDecision: 'APPROVED' | 'DECLINED' = 'APPROVED';

  /** The next `count` settles, voids or refunds are answered PENDING and decided (`decision`) by `release` (tests). */
  holdFollowUps(count: number, decision: 'APPROVED' | 'DECLINED'): void {
    this.#hold = count;
    this.#holdDecision = decision;
  }

  /** Decides the follow-ups answered PENDING, and posts their DMNs. */
  async release(): Promise<void> {
    for (const p of this.#pending.splice(0)) {
      const { tx, related } = p;
      if (p.decision === 'DECLINED') {
        tx.status = 'DECLINED';
        tx.reason = 'Decline';
      } else {
        tx.status = 'APPROVED';
        if (tx.type === 'Settle') related.settled += tx.amount;
        else if (tx.type === 'Void') related.voided = true;
        else related.refunded += tx.amount;
      }
      const url = this.#rootOf(related)?.notificationUrl;
      if (url) await this.#dmn(tx, url);
    }
  }

  #rootOf(t: SimTx): { notificationUrl: string | null } | null {
    let x: SimTx | undefined = t;
    while (x && x.type !== 'Sale' && x.type !== 'Auth') x = x.related ? this.#txs.get(x.related) : undefined;
    return x ? { notificationUrl: this.#urls.get(x.id) ?? null } : null;
  }

  #details(b: Body, site: string) {
    const byId = typeof b.transactionId === 'string' ? this.#txs.get(b.transactionId) : undefined;
    const byRef = typeof b.clientUniqueId === 'string' ? [...this.#txs.values()].filter((t) => t.site === site && t.clientUniqueId === b.clientUniqueId && t.type !== 'InitAuth3D' && t.type !== 'Auth3D').at(-1) : undefined;
    const t = byId && byId.site === site ? byId : byRef;
    if (!t) return this.#error(b, 1140, 'Transaction not found');
    return {
      answer: {
        ...this.#base(b), status: 'SUCCESS', errCode: 0, reason: '',
        transactionDetails: {
          transactionStatus: t.status, transactionType: t.type, transactionId: t.id, ...(t.related ? { relatedTransactionId: t.related } : {}), ...(t.status === 'APPROVED' ? { authCode: t.authCode } : {}),
          clientUniqueId: t.clientUniqueId, date: t.date.toISOString(), gwErrorCode: t.status === 'APPROVED' ? 0 : -1, ...(t.reason ? { gwErrorReason: t.reason } : {}), gwExtendedErrorCode: t.extended, isVoided: t.voided ? 1 : 0,
        },
      },
    };
  }

  /** A DMN about a transaction, signed with its site's secret key, checked against the reference. */
  async #dmn(t: SimTx, url: string): Promise<void> {
    const site = this.#opts.sites[t.site];
    const d = this.now().toISOString();
    const f: Record<string, string> = {
      ppp_status: t.status === 'APPROVED' ? 'OK' : 'FAIL', Status: t.status === 'REDIRECT' ? 'PENDING' : t.status, totalAmount: toAmount(t.amount, t.currency), currency: t.currency,
      responseTimeStamp: `${d.slice(0, 10)}.${d.slice(11, 19)}`, PPP_TransactionID: String(Number(t.id) + 7_000_000_000), productId: '', TransactionID: t.id, transactionType: t.type,
      merchant_unique_id: t.clientUniqueId, merchant_id: site.merchantId, merchant_site_id: t.site, ErrCode: t.status === 'APPROVED' ? '0' : '-1', ExErrCode: String(t.extended),
      ...(t.status === 'APPROVED' ? { authCode: t.authCode } : {}), ...(t.reason ? { Reason: t.reason } : {}), message: t.status, ...(t.related ? { relatedTransactionId: t.related } : {}),
    };
    f.advanceResponseChecksum = dmnChecksum(f, site.secretKey);
    this.spec.response('dmn', 'notification', f);
    await this.sendDmn(url, f);
  }

  /** Posts DMN fields (tests: a late or replayed delivery). */
  async sendDmn(url: string, fields: Record<string, string>): Promise<number | null> {
    return (await this.deliver(url, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(fields).toString())).status;
  }

  // ---- the issuer's 3-D Secure challenge page ----------------------------------------------------------

  /** The ACS's challenge page, posted the CReq: the cardholder passes or fails; then its CRes is posted to the notificationURL. */
  async #challengePage(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const t = this.#txs.get(r.path.slice('/sim/3ds/'.length));
    if (!t?.challenge || t.challenge.passed !== null) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished challenge');
    const result = r.method === 'POST' ? new URLSearchParams(r.raw).get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      return this.html(res, 200, challengePage({ title: '3-D Secure', heading: '3-D Secure challenge (Nuvei simulator)', lines: [`Amount ${toAmount(t.amount, t.currency)} ${t.currency}, card ending ${t.card!.number.slice(-4)}`], action: `/sim/3ds/${t.id}` }));
    }
    t.challenge.passed = result === 'Y';
    const cres = Buffer.from(JSON.stringify({ messageType: 'CRes', messageVersion: '2.2.0', threeDSServerTransID: t.id, acsTransID: t.id, transStatus: result })).toString('base64url');
    return this.html(res, 200, htmlDocument('3-D Secure', selfPostingForm(t.challenge.notificationURL, { cres })));
  }

  /** Fresh random bytes for demo secrets. */
  static demoKey(): string {
    return randomBytes(32).toString('base64url');
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
