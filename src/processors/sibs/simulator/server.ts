/**
 * The SIBS simulator: a separate HTTP server speaking SIBS Gateway's SPG API v2 as its public references
 * describe it (spec.ts), for the tests and for demos (`npx paygate sibs-simulator`, then
 * PAYGATE_SIBS_URL=http://127.0.0.1:PORT/api/v2).
 *
 *  - Every request it receives and every answer and notification it gives is checked against the
 *    references' schemas (`spec`, a SpecLedger): a request they do not allow is answered 400 and
 *    recorded; an answer of its own they do not allow is recorded (the tests fail on either).
 *  - `Authorization: Bearer <token>` and `X-IBM-Client-Id` of its accounts (401 otherwise) for checkouts,
 *    status and follow-ups; `Authorization: Digest <transactionSignature>` of the transaction for the
 *    purchase on it.
 *  - `POST /payments`: the checkout (its terminal must be the account's); `card/purchase`: Success or
 *    Declined, or Partial with the 3-D Secure `actionResponse` for the test environment's 3-D Secure cards
 *    (rules.ts; the action itself is not simulated); `mbway-id/purchase`: Pending until the customer's phone decides (`approve`,
 *    `expire`), or Declined at once; `capture`, `cancellation`: Success; `refund`: Pending, decided
 *    after its answer (Success, or Declined for 1.13); `service-reference/generate`: a Multibanco reference
 *    (Pending until `approve` pays it or `expire`); `GET /payments/{id}/status` and
 *    `GET /payments/status?merchantTransactionId=`.
 *  - Notifications to the account's webhook URL: the status JSON with a `notificationID`, AES-256-GCM
 *    under the account's secret key, base64 body, IV and tag in `X-Initialization-Vector` and
 *    `X-Authentication-Tag`, for every decision (a purchase, an MB WAY request decided, a refund); each
 *    answer is held to SIBS's acknowledgement (HTTP 200, {statusCode: "200", statusMsg: "Success",
 *    notificationID}); those without it are kept in `unacknowledged`.
 *  - The kit's server (kit/simulator.ts): latency and faults (`tamper`: the answer altered on the way).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { amountOf, encryptNotification, minorOf } from '../mapping.js';
import { SIBS_SPEC } from '../spec.js';
import { decideCard, SIBS_SIM_FAILED_REFUND_AMOUNT, SIBS_SIM_PHONES } from './rules.js';

export interface SibsSimAccount {
  bearerToken: string;
  terminalId: number;
  /** The notifications' key (32 bytes). */
  webhookKey: Buffer;
  /** Where its notifications go (the gateway's `/v1/processor/sibs/webhook`); none: not sent. */
  webhookUrl?: string | null;
}

export interface SibsSimulatorOptions {
  /** Accounts by client id. */
  accounts: Record<string, SibsSimAccount>;
  latencyMs?: number;
  clock?: () => Date;
  webhookHeaders?: Record<string, string>;
}

type Status = 'Created' | 'Success' | 'Declined' | 'Pending' | 'Expired' | 'Partial';

interface SimTx {
  id: string;
  clientId: string;
  signature: string;
  merchantTransactionId: string;
  terminalId: number;
  amount: number;
  currency: string;
  paymentType: 'PURS' | 'AUTH';
  method: 'CARD' | 'MBWAY' | 'REFERENCE';
  /** The Multibanco entity of a REFERENCE checkout, and its reference once generated. */
  entity: string | null;
  mbReference: string | null;
  until: string | null;
  status: Status;
  words: string | null;
  captured: number;
  refunded: number;
  phone: string | null;
  /** A follow-up's transaction: the payment it is about. */
  original: string | null;
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const id = (n: number) => Array.from({ length: n }, () => ALNUM[randomInt(ALNUM.length)]).join('');
const OK = { statusCode: '000', statusMsg: 'Success', statusDescription: 'Success' };

export class SibsSimulator extends SimulatorBase {
  readonly #opts: SibsSimulatorOptions;
  readonly #txs = new Map<string, SimTx>();
  readonly calls = { checkouts: 0, purchases: 0, followUps: 0, status: 0 };

  constructor(opts: SibsSimulatorOptions) {
    super({ spec: SIBS_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.webhookHeaders });
    this.#opts = opts;
  }

  override async close(): Promise<void> {
    await this.settled();
    await super.close();
  }

  paymentCalls(): number {
    return this.calls.purchases + this.calls.followUps;
  }

  /** A transaction by our merchantTransactionId (tests). */
  byMerchantTransactionId(mtid: string): Readonly<SimTx> | undefined {
    return [...this.#txs.values()].find((t) => t.merchantTransactionId === mtid);
  }

  /** The customer approves (or refuses) the MB WAY request on the phone, or pays the Multibanco reference; its notification is sent. */
  async approve(transactionId: string, approved = true): Promise<void> {
    const t = this.#txs.get(transactionId);
    if (!t || t.status !== 'Pending' || t.method === 'CARD') throw new Error(`no MB WAY request or reference waiting: ${transactionId}`);
    t.status = approved ? 'Success' : 'Declined';
    t.words = approved ? null : 'Payment refused by the customer';
    await this.#notify(t);
  }

  /** The MB WAY request expires unanswered; its notification is sent. */
  async expire(transactionId: string): Promise<void> {
    const t = this.#txs.get(transactionId);
    if (!t || t.status !== 'Pending') throw new Error(`nothing pending: ${transactionId}`);
    t.status = 'Expired';
    t.words = 'MB WAY request expired';
    await this.#notify(t);
  }

  #status(t: SimTx): Record<string, unknown> {
    const rs = t.status === 'Declined' || t.status === 'Expired' ? { statusCode: '000', statusMsg: 'Success', statusDescription: t.words ?? 'Declined' } : OK;
    return {
      returnStatus: rs, paymentStatus: t.status === 'Created' ? 'Pending' : t.status, paymentMethod: t.method, transactionID: t.id,
      amount: amountOf(t.amount, t.currency), merchant: { terminalId: t.terminalId, channel: 'web', merchantTransactionId: t.merchantTransactionId }, paymentType: t.paymentType,
      ...(t.mbReference ? { paymentReference: { reference: t.mbReference, entity: t.entity, paymentEntity: t.entity, amount: amountOf(t.amount, t.currency), status: t.status === 'Success' ? 'PAID' : 'UNPAID', expireDate: t.until } } : {}),
    };
  }

  /** Sends the transaction's status as a notification, encrypted under the account's key. */
  async #notify(t: SimTx, followUp = false): Promise<void> {
    const account = this.#opts.accounts[t.clientId];
    if (!account?.webhookUrl) return;
    const note = { ...this.#status(t), transactionDateTime: this.now().toISOString(), notificationID: randomUUID() };
    this.spec.response('notification', 'notification', note);
    const e = encryptNotification(JSON.stringify(note), account.webhookKey, randomBytes(12));
    const sent = await this.deliver(account.webhookUrl, { 'content-type': 'text/plain', 'x-initialization-vector': e.iv, 'x-authentication-tag': e.tag }, e.body, { followUp });
    this.#acknowledged(note.notificationID, sent);
  }

  /** Notifications SIBS would send again: not answered HTTP 200 with their acknowledgement. */
  readonly unacknowledged: string[] = [];

  /**
   * SIBS expects HTTP 200 and {statusCode: "200", statusMsg: "Success", notificationID} for each
   * notification (spec.ts): an answer's body is held to the spec (a transport giving only a status is
   * taken at its word).
   */
  #acknowledged(notificationId: string, sent: { status: number | null; answer: string | null }): void {
    if (sent.status !== 200) return void this.unacknowledged.push(notificationId);
    if (sent.answer === null) return;
    let ack: unknown;
    try {
      ack = JSON.parse(sent.answer);
    } catch {
      ack = sent.answer;
    }
    const problems = this.spec.response('notification', 'acknowledgement', ack);
    if (problems.length > 0 || (ack as { notificationID?: unknown }).notificationID !== notificationId) this.unacknowledged.push(notificationId);
  }

  #bearer(headers: http.IncomingHttpHeaders): [string, SibsSimAccount] | null {
    const clientId = String(headers['x-ibm-client-id'] ?? '');
    const a = this.#opts.accounts[clientId];
    return a && headers.authorization === `Bearer ${a.bearerToken}` ? [clientId, a] : null;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const path = r.url.pathname.replace(/^\/api\/v2/, '');
    const answer = (op: string, status: number, body: Record<string, unknown>) => {
      this.spec.response(op, status, body);
      this.write(res, status, body);
    };
    const refused = (op: string, status: number, code: string, words: string) => answer(op, status, { returnStatus: { statusCode: code, statusMsg: 'Error', statusDescription: words } });
    let m: RegExpExecArray | null;
    // status
    if (r.method === 'GET' && (path === '/payments/status' || (m = /^\/payments\/([A-Za-z0-9]+)\/status$/.exec(path)))) {
      const account = this.#bearer(r.headers);
      if (!account) return void this.write(res, 401, { httpCode: '401', httpMessage: 'Unauthorized' });
      this.calls.status++;
      const mtid = r.url.searchParams.get('merchantTransactionId');
      const t = path === '/payments/status' ? [...this.#txs.values()].reverse().find((x) => x.merchantTransactionId === mtid && x.clientId === account[0]) : this.#txs.get(m![1]);
      if (!t || t.clientId !== account[0]) return refused('status', 404, 'E0404', 'Transaction not found');
      return answer('status', 200, this.#status(t));
    }
    if (r.method !== 'POST') return void this.write(res, 404, { httpCode: '404', httpMessage: 'Not Found' });
    let body: unknown;
    try {
      body = JSON.parse(r.raw);
    } catch {
      body = r.raw;
    }
    // the checkout
    if (path === '/payments') {
      const account = this.#bearer(r.headers);
      if (!account) return void this.write(res, 401, { httpCode: '401', httpMessage: 'Unauthorized' });
      this.calls.checkouts++;
      const problems = this.spec.request('checkout', body);
      if (problems.length > 0) return refused('checkout', 400, 'E0002', `Invalid request: ${problems.join('; ').slice(0, 180)}`);
      const b = body as { merchant: { terminalId: number; merchantTransactionId: string }; transaction: { paymentType: 'PURS' | 'AUTH'; paymentMethod: string[]; amount: { value: number; currency: string }; paymentReference?: { entity: string; finalDatetime: string } } };
      const method = b.transaction.paymentMethod[0] === 'MBWAY' ? 'MBWAY' : b.transaction.paymentMethod[0] === 'REFERENCE' ? 'REFERENCE' : 'CARD';
      if (method === 'REFERENCE' && !b.transaction.paymentReference) return refused('checkout', 400, 'E0002', 'paymentReference is required for REFERENCE');
      if (b.merchant.terminalId !== account[1].terminalId) return refused('checkout', 400, 'E0001', 'Invalid terminal');
      const t: SimTx = {
        id: id(20), clientId: account[0], signature: `${randomBytes(24).toString('base64url')}.${randomBytes(24).toString('base64url')}`, merchantTransactionId: b.merchant.merchantTransactionId,
        terminalId: b.merchant.terminalId, amount: minorOf(b.transaction.amount.value) ?? 0, currency: b.transaction.amount.currency, paymentType: b.transaction.paymentType,
        method, status: 'Created', words: null, captured: 0, refunded: 0, phone: null, original: null,
        entity: b.transaction.paymentReference?.entity ?? null, mbReference: null, until: b.transaction.paymentReference?.finalDatetime ?? null,
      };
      this.#txs.set(t.id, t);
      return answer('checkout', 200, {
        returnStatus: OK, transactionID: t.id, transactionSignature: t.signature, amount: amountOf(t.amount, t.currency),
        merchant: { terminalId: t.terminalId, channel: 'web', merchantTransactionId: t.merchantTransactionId }, paymentMethodList: [t.method], formContext: Buffer.from('{}').toString('base64'),
        expiry: new Date(this.now().getTime() + 30 * 60_000).toISOString(),
      });
    }
    m = /^\/payments\/([A-Za-z0-9]+)\/(card\/purchase|mbway-id\/purchase|service-reference\/generate|capture|cancellation|refund)$/.exec(path);
    if (!m) return void this.write(res, 404, { httpCode: '404', httpMessage: 'Not Found' });
    const [, txId, what] = m;
    const op = what === 'card/purchase' ? 'cardPurchase' : what === 'mbway-id/purchase' ? 'mbwayPurchase' : what === 'service-reference/generate' ? 'referenceGenerate' : what;
    const t = this.#txs.get(txId);
    const purchase = op === 'cardPurchase' || op === 'mbwayPurchase' || op === 'referenceGenerate';
    if (purchase) {
      if (!t || r.headers.authorization !== `Digest ${t.signature}` || r.headers['x-ibm-client-id'] !== t.clientId) return void this.write(res, 401, { httpCode: '401', httpMessage: 'Unauthorized' });
      this.calls.purchases++;
    } else {
      const account = this.#bearer(r.headers);
      if (!account) return void this.write(res, 401, { httpCode: '401', httpMessage: 'Unauthorized' });
      if (!t || t.clientId !== account[0]) return refused(op, 400, 'E0404', 'Transaction not found');
      this.calls.followUps++;
    }
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    const problems = this.spec.request(op, body);
    if (problems.length > 0) return refused(op, 400, 'E0002', `Invalid request: ${problems.join('; ').slice(0, 180)}`);
    const out = purchase ? this.#purchase(t!, op, body as Record<string, unknown>) : this.#followUp(t!, op as 'capture' | 'cancellation' | 'refund', body as Record<string, unknown>);
    this.spec.response(op, out.status, out.body);
    return this.answer(r, res, fault, {
      status: out.status, body: out.body,
      notify: out.notify ? () => this.#notify(out.notify!) : null,
      after: out.later ? () => void this.track(out.later!()) : undefined,
      tamper: (b) => ({ ...(b as Record<string, unknown>), paymentStatus: 'Success', merchant: { merchantTransactionId: 'tampered' } }),
    });
  }

  #purchase(t: SimTx, op: string, body: Record<string, unknown>): { status: number; body: Record<string, unknown>; notify?: SimTx; later?: () => Promise<void> } {
    if (t.status !== 'Created') return { status: 400, body: { returnStatus: { statusCode: 'E0003', statusMsg: 'Error', statusDescription: 'Transaction already processed' } } };
    if (op === 'cardPurchase') {
      if (t.method !== 'CARD') return { status: 400, body: { returnStatus: { statusCode: 'E0004', statusMsg: 'Error', statusDescription: 'Payment method not allowed for this transaction' } } };
      const card = body.cardInfo as { PAN: string; validationDate: string };
      const d = decideCard(card.PAN, card.validationDate, this.now());
      if (d.kind === 'action') {
        // 3-D Secure first: nothing is authorized until the action is performed and the purchase sent again
        t.status = 'Partial';
        return { status: 200, body: { ...this.#status(t), actionResponse: { id: id(16), type: d.type, data: { url: `${this.url}/3ds/${t.id}`, params: [] } } } };
      }
      t.status = d.kind === 'declined' ? 'Declined' : 'Success';
      t.words = d.kind === 'declined' ? d.words : null;
      if (d.kind === 'approved' && t.paymentType === 'PURS') t.captured = t.amount;
      return { status: 200, body: this.#status(t), notify: t };
    }
    if (op === 'referenceGenerate') {
      if (t.method !== 'REFERENCE') return { status: 400, body: { returnStatus: { statusCode: 'E0004', statusMsg: 'Error', statusDescription: 'Payment method not allowed for this transaction' } } };
      t.mbReference = String(randomInt(100_000_000, 999_999_999));
      t.status = 'Pending';
      return { status: 200, body: this.#status(t) };
    }
    if (t.method !== 'MBWAY') return { status: 400, body: { returnStatus: { statusCode: 'E0004', statusMsg: 'Error', statusDescription: 'Payment method not allowed for this transaction' } } };
    t.phone = String(body.customerPhone).slice(4);
    if (t.phone === SIBS_SIM_PHONES.DECLINED) {
      t.status = 'Declined';
      t.words = 'MB WAY payment declined';
      return { status: 200, body: this.#status(t), notify: t };
    }
    t.status = 'Pending';
    return { status: 200, body: this.#status(t) };
  }

  #followUp(p: SimTx, op: 'capture' | 'cancellation' | 'refund', body: Record<string, unknown>): { status: number; body: Record<string, unknown>; notify?: SimTx; later?: () => Promise<void> } {
    const b = body as { merchant: { merchantTransactionId: string }; transaction: { amount: { value: number; currency: string } }; originalTransaction: { id: string } };
    const amount = minorOf(b.transaction.amount.value) ?? 0;
    const refuse = (words: string) => ({ status: 400, body: { returnStatus: { statusCode: 'E0005', statusMsg: 'Error', statusDescription: words } } });
    if (b.originalTransaction.id !== p.id) return refuse('originalTransaction does not match the transaction');
    if (p.status !== 'Success') return refuse('The original transaction was not approved');
    if (op === 'capture' && (p.paymentType !== 'AUTH' || p.captured > 0 || amount > p.amount)) return refuse('Nothing to capture');
    if (op === 'cancellation' && (p.paymentType !== 'AUTH' || p.captured > 0)) return refuse('Nothing to cancel');
    if (op === 'refund' && (amount <= 0 || p.refunded + amount > p.captured)) return refuse('More than is left to refund');
    const f: SimTx = { ...p, id: id(20), signature: '', merchantTransactionId: b.merchant.merchantTransactionId, amount, status: 'Success', words: null, captured: 0, refunded: 0, original: p.id };
    this.#txs.set(f.id, f);
    if (op === 'capture') p.captured = amount;
    if (op === 'cancellation') p.status = 'Declined';
    if (op !== 'refund') return { status: 200, body: this.#status(f) };
    // a refund is decided after its answer
    p.refunded += amount;
    f.status = 'Pending';
    const answer = this.#status(f);
    return {
      status: 200, body: answer,
      later: async () => {
        if (amount === SIBS_SIM_FAILED_REFUND_AMOUNT) {
          f.status = 'Declined';
          f.words = 'Refund declined';
          p.refunded -= amount;
        } else f.status = 'Success';
        await this.#notify(f, true);
      },
    };
  }

  /** Refunds are decided right after their answer: waits until they are, and their notifications sent (kit: `decide`). */
  override async decide(): Promise<void> {
    await this.settled();
  }

  /** A fresh notifications key for demos (base64 of 32 bytes). */
  static demoKey(): string {
    return randomBytes(32).toString('base64');
  }
}
