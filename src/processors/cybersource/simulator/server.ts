/**
 * The CyberSource simulator: a separate HTTP server speaking the REST API as CyberSource's published
 * models describe it (spec.ts), for the tests and for demos (`npx paygate cybersource-simulator`, then
 * PAYGATE_CYBERSOURCE_URL=http://127.0.0.1:PORT).
 *
 *  - Every request must carry a valid HTTP Signature (keyid of a known account, HmacSHA256, the signed
 *    headers for its method, the body's digest): otherwise 401 `{"response":{"rmsg":"Authentication
 *    Failed"}}`, as CyberSource answers.
 *  - Every request and answer is checked against the reference's schemas (`spec`, a SpecLedger): a request
 *    the reference does not allow is answered 400 INVALID_REQUEST (MISSING_FIELD or INVALID_DATA, with
 *    `details`) and recorded; an answer of its own that the reference does not allow is recorded (the
 *    tests fail on either).
 *  - `POST /pts/v2/payments`: authorizations (capture or not; zero amount verifies the card), answered 201
 *    AUTHORIZED or DECLINED with `errorInformation.reason` by the test cards (rules.ts); with actionList
 *    CONSUMER_AUTHENTICATION, Payer Authentication first: frictionless, or PENDING_AUTHENTICATION with
 *    the simulated ACS (`/sim/acs/{id}`, which posts `cres` back to the returnUrl), then
 *    VALIDATE_CONSUMER_AUTHENTICATION authorizes once the cardholder passed. Stored-credential flags are
 *    kept (`payment(id).request`).
 *  - `POST /pts/v2/payments/{id}/captures` (201 PENDING), `/pts/v2/payments/{id}/refunds` and
 *    `/pts/v2/captures/{id}/refunds` (201 PENDING), `/pts/v2/payments/{id}/reversals` (201 REVERSED); 400
 *    (EXCEEDS_AUTH_AMOUNT, AUTH_ALREADY_REVERSED, INVALID_AMOUNT...) when not allowed; 404 for an id it
 *    does not know.
 *    A refund is decided in the settlement batch, after its answer: until then Transaction Search shows
 *    its ics_credit `status` PENDING; then TRANSMITTED or, after `failNextRefund()` or for a refund of
 *    113 (rules.ts), FAILED (rCode 0, reason code 233, its amount refundable again). Decided right after the answer, or on `decide()` while
 *    `holdDecisions` is set.
 *  - `POST /tss/v2/searches` with `clientReferenceInformation.code:<ref>`: the transactions under that
 *    reference, each with its application's rCode, reason code and (refunds) status.
 *  - the kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    on the way: approved, another amount).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { challengePage, selfPostingForm, SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { parseObject } from '../../kit/http.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { fromAmount, signatureProblem, toAmount } from '../mapping.js';
import { CYBERSOURCE_SPEC } from '../spec.js';
import { CYBERSOURCE_SIM_CARDS, CYBERSOURCE_SIM_FAILED_REFUND_AMOUNT, decide, messageOf, REASON_CODE } from './rules.js';

export interface CybersourceSimAccount {
  merchantId: string;
  /** The shared secret key, base64 (as the terminal has it). */
  sharedSecret: string;
}

export interface CybersourceSimulatorOptions {
  /** Accounts by key id (key serial number). */
  accounts: Record<string, CybersourceSimAccount>;
  latencyMs?: number;
  clock?: () => Date;
}

/** What a payment request said about the card's storage and who initiated it. */
export interface SimPaymentRequestFlags {
  commerceIndicator: string;
  initiatorType: string | null;
  credentialStoredOnFile: boolean;
  storedCredentialUsed: boolean;
  previousTransactionId: string | null;
  actionList: string[];
}

interface SimPayment {
  id: string;
  merchantId: string;
  reference: string;
  amount: number;
  currency: string;
  approved: boolean;
  capture: boolean;
  captured: number;
  reversed: boolean;
  networkId: string;
  approvalCode: string;
  request: SimPaymentRequestFlags;
}

interface SimCapture {
  id: string;
  payment: SimPayment;
  amount: number;
  refunded: number;
}

/** A transaction as Transaction Search lists it. */
interface SimTransaction {
  id: string;
  merchantId: string;
  reference: string;
  application: string;
  rCode: '1' | '0' | '-1';
  reasonCode: string;
  amount: string;
  currency: string;
  approvalCode: string | null;
  submitTimeUtc: string;
  /** Held for review by Decision Manager (the request's reason code 480) until decided. */
  review?: boolean;
  /** The application's status (a refund's: PENDING until its batch, then TRANSMITTED or FAILED). */
  status?: string;
}

/** A refund accepted (PENDING) and not decided in a batch yet. */
interface SimRefund {
  t: SimTransaction;
  amount: number;
  /** Gives the amount back to what is left to refund (the refund failed). */
  giveBack: () => void;
  /** The reason code it fails with in its batch (`failNextRefund`); null: transmitted. */
  failure: string | null;
}

/** Payer Authentication waiting for the cardholder at the simulated ACS. */
interface SimAuthentication {
  id: string;
  merchantId: string;
  reference: string;
  returnUrl: string;
  number: string;
  last4: string;
  amount: number;
  currency: string;
  result: 'Y' | 'N' | null;
}

const transactionId = () => `${Date.now()}${String(randomInt(100_000_000, 999_999_999))}`.slice(0, 22).padEnd(22, '0');
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export class CybersourceSimulator extends SimulatorBase {
  readonly #opts: CybersourceSimulatorOptions;
  readonly #payments = new Map<string, SimPayment>();
  readonly #captures = new Map<string, SimCapture>();
  readonly #transactions: SimTransaction[] = [];
  readonly #auth = new Map<string, SimAuthentication>();
  /** Requests received: payments, follow-ups (captures, refunds, reversals), searches. */
  readonly calls = { payments: 0, followUps: 0, searches: 0 };
  /** Refunds accepted wait for `decide()` instead of being decided right after their answer. */
  holdDecisions = false;
  readonly #undecided: SimRefund[] = [];
  readonly #failures: string[] = [];

  constructor(opts: CybersourceSimulatorOptions) {
    super({ spec: CYBERSOURCE_SPEC, latencyMs: opts.latencyMs, clock: opts.clock });
    this.#opts = opts;
  }

  paymentCalls(): number {
    return this.calls.payments + this.calls.followUps;
  }

  /**
   * The next refund accepted is answered PENDING as usual and then fails in its settlement batch
   * (Transaction Search: ics_credit FAILED, rCode 0, with this reason code; default 233).
   */
  failNextRefund(reasonCode = REASON_CODE.PROCESSOR_DECLINED): void {
    this.#failures.push(reasonCode);
  }

  /** Decides every refund accepted and waiting (with `holdDecisions`) in a settlement batch. */
  override async decide(): Promise<void> {
    for (const f of this.#undecided.splice(0)) this.#decideRefund(f);
    await this.settled();
  }

  /** Refunds accepted and not decided yet. */
  undecided(): number {
    return this.#undecided.length;
  }

  /** The settlement batch decides a refund: TRANSMITTED, or FAILED after `failNextRefund` (the amount refundable again). */
  #decideRefund(f: SimRefund): void {
    const { failure } = f;
    if (failure === null) {
      f.t.status = 'TRANSMITTED';
      return;
    }
    f.giveBack();
    Object.assign(f.t, { status: 'FAILED', rCode: '0', reasonCode: failure });
  }

  /** A payment as the simulator keeps it (tests: the stored-credential flags it came with). */
  payment(id: string): Readonly<SimPayment> | undefined {
    return this.#payments.get(id);
  }

  #now(): string {
    return this.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  #key(keyId: string) {
    const a = this.#opts.accounts[keyId];
    return a ? { merchantId: a.merchantId, secret: Buffer.from(a.sharedSecret, 'base64') } : null;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    if (r.path.startsWith('/sim/acs/')) return this.#acs(r, res);
    const route = this.#route(r.method, r.path);
    if (!route) return this.write(res, 404, { submitTimeUtc: this.#now(), status: 'NOT_FOUND', reason: 'NOT_FOUND', message: 'The requested resource does not exist' });
    if (signatureProblem((k) => this.#key(k), { method: r.method, path: r.path + r.url.search, headers: r.headers, body: r.raw })) {
      const body = { response: { rmsg: 'Authentication Failed' } };
      this.spec.response(route.op, 401, body);
      return this.write(res, 401, body);
    }
    const merchantId = String(r.headers['v-c-merchant-id']);
    const money = route.op !== 'createSearch';
    const fault = money ? this.takeFault() : null;
    if (fault === 'lost') return this.drop(r);
    const body = parseObject(r.raw);
    const problems = this.spec.request(route.op, body ?? r.raw);
    if (!body || problems.length > 0) return this.#reply(r, res, fault, route.op, 400, this.#invalid(problems));
    if (route.op === 'createSearch') {
      this.calls.searches++;
      return this.#reply(r, res, null, route.op, 201, this.#search(merchantId, body));
    }
    if (route.op === 'createPayment') this.calls.payments++;
    else this.calls.followUps++;
    const out: { status: number; body: Record<string, unknown>; refund?: SimRefund } = route.op === 'createPayment' ? this.#pay(merchantId, body) : this.#followUp(merchantId, route.op, route.id!, route.capture === true, body);
    return this.#reply(r, res, fault, route.op, out.status, out.body, () => {
      // a refund accepted is decided in its settlement batch, after the answer
      const f = out.refund;
      if (!f) return;
      if (this.holdDecisions) this.#undecided.push(f);
      else void this.track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#decideRefund(f)));
    });
  }

  #route(method: string, path: string): { op: string; id?: string; capture?: boolean } | null {
    if (method !== 'POST') return null;
    if (path === '/pts/v2/payments') return { op: 'createPayment' };
    if (path === '/tss/v2/searches') return { op: 'createSearch' };
    const m = /^\/pts\/v2\/(payments|captures)\/(\d{10,40})\/(captures|refunds|reversals)$/.exec(path);
    if (!m) return null;
    if (m[1] === 'captures' && m[3] !== 'refunds') return null;
    return { op: m[3] === 'captures' ? 'capturePayment' : m[3] === 'refunds' ? 'refundPayment' : 'authReversal', id: m[2], capture: m[1] === 'captures' };
  }

  async #reply(r: SimRequest, res: http.ServerResponse, fault: ReturnType<SimulatorBase['takeFault']>, op: string, status: number, body: Record<string, unknown>, after?: () => void): Promise<void> {
    this.spec.response(op, status, body);
    await this.answer(r, res, fault, {
      status, body, after,
      // altered on the way: approved, for another amount
      tamper: (b) => {
        const t = structuredClone(b) as Record<string, unknown>;
        if (op !== 'createPayment') return { ...t, status: 'PENDING', refundAmountDetails: { refundAmount: '999.99' }, orderInformation: { amountDetails: { totalAmount: '999.99' } } };
        delete t.errorInformation;
        const amounts = obj(obj(t.orderInformation).amountDetails);
        return { ...t, status: 'AUTHORIZED', orderInformation: { amountDetails: { ...amounts, authorizedAmount: '999.99', totalAmount: '999.99' } } };
      },
    });
  }

  /** 400 INVALID_REQUEST as CyberSource answers an invalid request: a missing field or invalid data, with the fields. */
  #invalid(problems: string[]): Record<string, unknown> {
    const missing = problems.some((p) => p.includes('must have required property'));
    const details = problems.slice(0, 5).map((p) => {
      const where = p.split(' ')[0].split('/').filter(Boolean).join('.');
      const field = /required property '([^']+)'/.exec(p)?.[1];
      return { field: [where === '(body)' ? '' : where, field ?? ''].filter(Boolean).join('.') || 'body', reason: field ? 'MISSING_FIELD' : 'INVALID_DATA' };
    });
    return { submitTimeUtc: this.#now(), status: 'INVALID_REQUEST', reason: missing ? 'MISSING_FIELD' : 'INVALID_DATA', message: 'Declined - The request is missing one or more fields, or one or more fields contain invalid data', details };
  }

  #notAllowed(reason: string, message: string) {
    return { status: 400, body: { submitTimeUtc: this.#now(), status: 'INVALID_REQUEST', reason, message } };
  }

  #record(t: Omit<SimTransaction, 'submitTimeUtc'>): void {
    this.#transactions.push({ ...t, submitTimeUtc: this.#now() });
  }

  // ---- payments -------------------------------------------------------------------------------------------

  #pay(merchantId: string, b: Record<string, unknown>): { status: number; body: Record<string, unknown> } {
    const reference = String(obj(b.clientReferenceInformation).code);
    const processing = obj(b.processingInformation);
    const card = obj(obj(b.paymentInformation).card);
    const amounts = obj(obj(b.orderInformation).amountDetails);
    const currency = String(amounts.currency);
    const amount = fromAmount(amounts.totalAmount, currency);
    if (amount === null) return this.#notAllowed('INVALID_AMOUNT', 'Declined - The amount is not valid for the currency');
    const initiator = obj(obj(processing.authorizationOptions).initiator);
    const mit = obj(initiator.merchantInitiatedTransaction);
    const request: SimPaymentRequestFlags = {
      commerceIndicator: typeof processing.commerceIndicator === 'string' ? processing.commerceIndicator : 'internet',
      initiatorType: typeof initiator.type === 'string' ? initiator.type : null,
      credentialStoredOnFile: initiator.credentialStoredOnFile === true,
      storedCredentialUsed: initiator.storedCredentialUsed === true,
      previousTransactionId: typeof mit.previousTransactionId === 'string' ? mit.previousTransactionId : null,
      actionList: Array.isArray(processing.actionList) ? (processing.actionList as string[]) : [],
    };
    const number = String(card.number);
    const expiryMonth = Number(card.expirationMonth);
    const expiryYear = Number(card.expirationYear);
    const consumer = obj(b.consumerAuthenticationInformation);
    let authenticated = typeof consumer.cavv === 'string' && ['Y', 'A'].includes(String(consumer.paresStatus));
    let threeds: Record<string, unknown> | null = null;
    if (request.actionList.includes('CONSUMER_AUTHENTICATION')) {
      if (typeof consumer.returnUrl !== 'string') return this.#notAllowed('MISSING_FIELD', 'Declined - consumerAuthenticationInformation.returnUrl is required for Payer Authentication');
      if (number === CYBERSOURCE_SIM_CARDS.CHALLENGE) {
        const a: SimAuthentication = { id: randomBytes(10).toString('hex'), merchantId, reference, returnUrl: consumer.returnUrl, number, last4: number.slice(-4), amount, currency, result: null };
        this.#auth.set(a.id, a);
        const id = transactionId();
        this.#record({ id, merchantId, reference, application: 'ics_pa_enroll', rCode: '0', reasonCode: '475', amount: toAmount(amount, currency), currency, approvalCode: null });
        const creq = Buffer.from(JSON.stringify({ threeDSServerTransID: a.id, acsTransID: a.id, messageType: 'CReq', messageVersion: '2.2.0', challengeWindowSize: '05' })).toString('base64url');
        return {
          status: 201,
          body: {
            _links: { self: { href: `/pts/v2/payments/${id}`, method: 'GET' } }, id, submitTimeUtc: this.#now(), status: 'PENDING_AUTHENTICATION', clientReferenceInformation: { code: reference },
            errorInformation: { reason: 'CONSUMER_AUTHENTICATION_REQUIRED', message: messageOf('CONSUMER_AUTHENTICATION_REQUIRED') },
            consumerAuthenticationInformation: { acsUrl: `${this.url}/sim/acs/${a.id}`, pareq: creq, authenticationTransactionId: a.id, veresEnrolled: 'Y', specificationVersion: '2.2.0' },
          },
        };
      }
      authenticated = true;
      threeds = { paresStatus: 'Y', eciRaw: '05', cavv: randomBytes(20).toString('base64'), directoryServerTransactionId: randomUUID(), specificationVersion: '2.2.0', veresEnrolled: 'Y' };
    }
    if (request.actionList.includes('VALIDATE_CONSUMER_AUTHENTICATION')) {
      const a = this.#auth.get(String(consumer.authenticationTransactionId));
      if (!a || a.merchantId !== merchantId || a.result === null) return this.#notAllowed('INVALID_DATA', 'Declined - The authentication transaction is not known or not completed');
      this.#auth.delete(a.id);
      if (a.result === 'N') return this.#declined(merchantId, reference, amount, currency, 'CONSUMER_AUTHENTICATION_FAILED', { paresStatus: 'N', eciRaw: '07', specificationVersion: '2.2.0' });
      authenticated = true;
      threeds = { paresStatus: 'Y', eciRaw: '05', cavv: randomBytes(20).toString('base64'), directoryServerTransactionId: randomUUID(), specificationVersion: '2.2.0' };
    }
    const flaggedMerchantInitiated = request.initiatorType === 'merchant' && request.storedCredentialUsed && !!request.previousTransactionId;
    const reason = decide({ number, expiryMonth, expiryYear, commerceIndicator: request.commerceIndicator, flaggedMerchantInitiated, authenticated, now: this.now() });
    if (reason) return this.#declined(merchantId, reference, amount, currency, reason, threeds);
    const p: SimPayment = {
      id: transactionId(), merchantId, reference, amount, currency, approved: true, capture: processing.capture === true && amount > 0, captured: 0, reversed: false,
      networkId: schemeTransactionId(), approvalCode: String(randomInt(100000, 999999)), request,
    };
    const review = number === CYBERSOURCE_SIM_CARDS.REVIEW;
    if (p.capture && !review) p.captured = amount;
    this.#payments.set(p.id, p);
    this.#record({ id: p.id, merchantId, reference, application: 'ics_auth', rCode: '1', reasonCode: '100', amount: toAmount(amount, currency), currency, approvalCode: p.approvalCode, review });
    return {
      status: 201,
      body: {
        _links: { self: { href: `/pts/v2/payments/${p.id}`, method: 'GET' }, ...(p.capture ? {} : { capture: { href: `/pts/v2/payments/${p.id}/captures`, method: 'POST' } }) },
        id: p.id, submitTimeUtc: this.#now(), status: review ? 'AUTHORIZED_PENDING_REVIEW' : 'AUTHORIZED', reconciliationId: String(randomInt(10_000_000, 99_999_999)),
        clientReferenceInformation: { code: reference },
        orderInformation: { amountDetails: { totalAmount: toAmount(amount, currency), authorizedAmount: toAmount(amount, currency), currency } },
        processorInformation: { approvalCode: p.approvalCode, networkTransactionId: p.networkId, transactionId: p.networkId, responseCode: '00', avs: { code: 'Y', codeRaw: 'Y' } },
        ...(threeds ? { consumerAuthenticationInformation: threeds } : {}),
      },
    };
  }

  #declined(merchantId: string, reference: string, amount: number, currency: string, reason: string, threeds: Record<string, unknown> | null) {
    const id = transactionId();
    this.#record({ id, merchantId, reference, application: 'ics_auth', rCode: '0', reasonCode: REASON_CODE[reason] ?? '203', amount: toAmount(amount, currency), currency, approvalCode: null });
    return {
      status: 201,
      body: {
        _links: { self: { href: `/pts/v2/payments/${id}`, method: 'GET' } }, id, submitTimeUtc: this.#now(), status: 'DECLINED', clientReferenceInformation: { code: reference },
        errorInformation: { reason, message: messageOf(reason) },
        processorInformation: { responseCode: reason === 'INSUFFICIENT_FUND' ? '51' : '05' },
        ...(threeds ? { consumerAuthenticationInformation: threeds } : {}),
      },
    };
  }

  // ---- captures, refunds, reversals ------------------------------------------------------------------------

  #followUp(merchantId: string, op: string, id: string, ofCapture: boolean, b: Record<string, unknown>): { status: number; body: Record<string, unknown>; refund?: SimRefund } {
    const reference = String(obj(b.clientReferenceInformation).code);
    const amounts = obj(op === 'authReversal' ? obj(b.reversalInformation).amountDetails : obj(b.orderInformation).amountDetails);
    const currency = String(amounts.currency);
    const amount = fromAmount(amounts.totalAmount, currency);
    const capture = ofCapture ? this.#captures.get(id) : undefined;
    const p = ofCapture ? capture?.payment : this.#payments.get(id);
    if (!p || p.merchantId !== merchantId) return { status: 404, body: { submitTimeUtc: this.#now(), status: 'NOT_FOUND', reason: 'NOT_FOUND', message: 'The requested resource does not exist' } };
    if (amount === null || amount <= 0 || currency !== p.currency) return this.#notAllowed('INVALID_AMOUNT', 'Declined - The amount or currency is not valid for this transaction');
    const base = { _links: { self: { href: `/pts/v2/${op}`, method: 'GET' } }, submitTimeUtc: this.#now(), reconciliationId: String(randomInt(10_000_000, 99_999_999)), clientReferenceInformation: { code: reference } };
    const value = toAmount(amount, currency);
    if (op === 'capturePayment') {
      if (p.reversed) return this.#notAllowed('AUTH_ALREADY_REVERSED', 'Declined - The authorization has already been reversed');
      if (p.capture || p.captured > 0) return this.#notAllowed('TRANSACTION_ALREADY_SETTLED', 'Declined - The authorization has already been captured');
      if (amount > p.amount) return this.#notAllowed('EXCEEDS_AUTH_AMOUNT', 'Declined - The capture amount exceeds the authorized amount');
      const c: SimCapture = { id: transactionId(), payment: p, amount, refunded: 0 };
      p.captured = amount;
      this.#captures.set(c.id, c);
      this.#record({ id: c.id, merchantId, reference, application: 'ics_bill', rCode: '1', reasonCode: '100', amount: value, currency, approvalCode: null });
      return { status: 201, body: { ...base, id: c.id, status: 'PENDING', orderInformation: { amountDetails: { totalAmount: value, currency } } } };
    }
    if (op === 'authReversal') {
      if (p.reversed) return this.#notAllowed('AUTH_ALREADY_REVERSED', 'Declined - The authorization has already been reversed');
      if (p.capture || p.captured > 0) return this.#notAllowed('TRANSACTION_ALREADY_REVERSED_OR_SETTLED', 'Declined - The authorization has already been captured');
      if (amount !== p.amount) return this.#notAllowed('INVALID_AMOUNT', 'Declined - The reversal amount must be the authorized amount');
      p.reversed = true;
      const rid = transactionId();
      this.#record({ id: rid, merchantId, reference, application: 'ics_auth_reversal', rCode: '1', reasonCode: '100', amount: value, currency, approvalCode: null });
      return { status: 201, body: { ...base, id: rid, status: 'REVERSED', reversalAmountDetails: { reversedAmount: value, originalTransactionAmount: toAmount(p.amount, currency), currency } } };
    }
    // a refund: of a sale (its payment) or of a capture
    const target = capture ?? (p.capture ? { amount: p.captured, refunded: this.#refunded(p.id) } : null);
    if (!target) return this.#notAllowed('NOT_SUPPORTED', 'Declined - Refund the capture of this authorization');
    if (amount > target.amount - target.refunded) return this.#notAllowed('INVALID_AMOUNT', 'Declined - The refund amount exceeds what is left to refund');
    if (capture) capture.refunded += amount;
    else this.#saleRefunds.set(p.id, this.#refunded(p.id) + amount);
    const giveBack = () => {
      if (capture) capture.refunded -= amount;
      else this.#saleRefunds.set(p.id, this.#refunded(p.id) - amount);
    };
    const rid = transactionId();
    this.#record({ id: rid, merchantId, reference, application: 'ics_credit', rCode: '1', reasonCode: '100', amount: value, currency, approvalCode: null, status: 'PENDING' });
    const t = this.#transactions.at(-1)!;
    return { status: 201, body: { ...base, id: rid, status: 'PENDING', refundAmountDetails: { refundAmount: value, currency }, orderInformation: { amountDetails: { currency } } }, refund: { t, amount, giveBack, failure: this.#failures.shift() ?? (amount === CYBERSOURCE_SIM_FAILED_REFUND_AMOUNT ? REASON_CODE.PROCESSOR_DECLINED : null) } };
  }

  /**
   * Decides the payments held for review under a reference (Decision Manager's case accepted or
   * rejected): accepted, the authorization stands (and a sale is captured); rejected, it is declined
   * (DECISION_PROFILE_REJECT, reason code 481).
   */
  decideReview(reference: string, accept: boolean): void {
    for (const t of this.#transactions) {
      if (t.reference !== reference || !t.review) continue;
      t.review = false;
      const p = this.#payments.get(t.id);
      if (accept) {
        if (p?.capture) p.captured = p.amount;
      } else {
        Object.assign(t, { rCode: '0', reasonCode: '481' });
        if (p) p.approved = false;
      }
    }
  }

  readonly #saleRefunds = new Map<string, number>();

  #refunded(paymentId: string): number {
    return this.#saleRefunds.get(paymentId) ?? 0;
  }

  // ---- transaction search ---------------------------------------------------------------------------------

  #search(merchantId: string, b: Record<string, unknown>): Record<string, unknown> {
    const m = /^clientReferenceInformation\.code:(\S{1,100})$/.exec(String(b.query));
    const limit = typeof b.limit === 'number' ? b.limit : 20;
    const found = m ? this.#transactions.filter((t) => t.merchantId === merchantId && t.reference === m[1]).reverse().slice(0, limit) : [];
    return {
      searchId: randomUUID(), save: false, name: String(b.name ?? ''), timezone: String(b.timezone ?? 'UTC'), query: String(b.query), offset: 0, limit, sort: String(b.sort ?? 'submitTimeUtc:desc'),
      count: found.length, totalCount: found.length, submitTimeUtc: this.#now(),
      _embedded: {
        transactionSummaries: found.map((t) => ({
          id: t.id, submitTimeUtc: t.submitTimeUtc, merchantId: t.merchantId,
          applicationInformation: { reasonCode: t.review ? '480' : t.reasonCode, rCode: t.rCode, applications: [{ name: t.application, ...(t.status ? { status: t.status } : {}), reasonCode: t.reasonCode, rCode: t.rCode, rFlag: t.rCode === '1' ? 'SOK' : 'DECLINED' }] },
          clientReferenceInformation: { code: t.reference },
          orderInformation: { amountDetails: { totalAmount: t.amount, currency: t.currency } },
          ...(t.approvalCode ? { processorInformation: { approvalCode: t.approvalCode } } : {}),
        })),
      },
    };
  }

  // ---- the simulated ACS ----------------------------------------------------------------------------------

  /** The ACS: the challenge page (the gateway's page posts `creq`), then `cres` posted back to returnUrl. */
  async #acs(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const a = this.#auth.get(r.path.slice('/sim/acs/'.length));
    if (!a || a.result !== null) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const form = new URLSearchParams(r.raw);
    const result = r.method === 'POST' ? form.get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      return this.html(res, 200, challengePage({ title: '3-D Secure', heading: '3-D Secure authentication (simulator)', lines: [`Amount ${toAmount(a.amount, a.currency)} ${a.currency}, card ending ${a.last4}`], action: `/sim/acs/${a.id}` }));
    }
    a.result = result;
    const cres = Buffer.from(JSON.stringify({ threeDSServerTransID: a.id, acsTransID: a.id, messageType: 'CRes', messageVersion: '2.2.0', transStatus: result })).toString('base64url');
    return this.html(res, 200, `<!doctype html><html><body>${selfPostingForm(a.returnUrl, { cres })}</body></html>`);
  }

  /** Fresh random bytes for demo keys (a shared secret key, base64). */
  static demoSecret(): string {
    return randomBytes(32).toString('base64');
  }
}
