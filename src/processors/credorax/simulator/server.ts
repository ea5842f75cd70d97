/**
 * The Credorax simulator: a separate HTTP server speaking the Source payment gateway's protocol as
 * spec.ts describes it, for the tests and for demos (`npx paygate credorax-simulator`, then
 * PAYGATE_CREDORAX_URL=http://127.0.0.1:PORT).
 *
 *  - Every request is a form post to the gateway URL (any path but `/sim/...`); `M` must be a known
 *    merchant and `K` its signature with the merchant's key, else the answer is `z2=-9` (signed, when the
 *    merchant is known; a request of an unknown merchant gets an unsigned one).
 *  - Every request and answer is checked against the reference's schemas (`spec`, a SpecLedger): a request
 *    the reference does not allow is answered `z2=-9` ("At least one of input parameters is malformed")
 *    and recorded; an answer of its own the reference does not allow is recorded (the tests fail on either).
 *  - `O=1` sale and `O=2` authorization (zero amount with a9=5: a card verification) decided by the test
 *    cards (rules.ts); with `3ds_initiate`, 3-D Secure first: frictionless (3ds_status Y), or the challenge
 *    (3ds_status C, `3ds_acsurl` the simulated ACS `/sim/acs/{trxid}`, `3ds_trxid`; z2 7), then `O=92`
 *    completes it once the cardholder answered. `O=3` capture (once, up to the authorized amount), `O=4`
 *    authorization void, `O=5` refund (several, up to what was paid), each referring to `g2`/`g4`.
 *  - `O=101` retrieval: the result of the request whose request id is `g4` (the transaction's z1..z15
 *    and amount), or, when it never reached the simulator, a refusal naming no transaction (no z1).
 *  - A request id (`a1`) is unique per merchant: a request reusing one is refused (`z2=-9`).
 *  - Every answer is a form signed (`K`) with the merchant's key, as Credorax signs its answers.
 *  - the kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    after it was signed: approved, or declined).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { challengePage, selfPostingForm, SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { signatureOf, signed, type Params } from '../mapping.js';
import { CREDORAX_SPEC, OPERATION_IDS } from '../spec.js';
import { CREDORAX_SIM_CARDS, decide, wordsOf } from './rules.js';

export interface CredoraxSimulatorOptions {
  /** Signing keys by gateway merchant id (`M`). */
  merchants: Record<string, string>;
  latencyMs?: number;
  clock?: () => Date;
}

/** A transaction the simulator approved (a sale, an authorization, a capture). */
interface SimTransaction {
  responseId: string;
  requestId: string;
  merchantId: string;
  kind: 'sale' | 'auth' | 'capture';
  amount: number;
  currency: string;
  authCode: string;
  /** Captured (an authorization) or paid (a sale, a capture) so far. */
  captured: number;
  refunded: number;
  voided: boolean;
  /** The scheme's reference of the transaction (z7). */
  networkId: string;
  /** What the payment request said (tests: stored-credential flags, the sub-merchant and Amex fields). */
  request: { a9: string | null; g6: string | null; a2: string | null; h3: string | null; r2: string | null; h8: string | null; threeds: boolean };
}

/** A payment waiting for the cardholder at the simulated ACS. */
interface SimChallenge {
  trxid: string;
  responseId: string;
  merchantId: string;
  params: Params;
  redirectUrl: string;
  result: 'Y' | 'N' | null;
}

const hex = (n: number) => randomBytes(n).toString('hex');

export class CredoraxSimulator extends SimulatorBase {
  readonly #merchants: Record<string, string>;
  readonly #tx = new Map<string, SimTransaction>();
  readonly #challenges = new Map<string, SimChallenge>();
  /** Operations processed (money calls). */
  calls = 0;
  /** Retrievals (O=101) answered. */
  retrievals = 0;
  /** The answer of each request processed, by merchant and request id (what a retrieval finds). */
  readonly #byRequest = new Map<string, Params>();

  constructor(opts: CredoraxSimulatorOptions) {
    super({ spec: CREDORAX_SPEC, latencyMs: opts.latencyMs, clock: opts.clock });
    this.#merchants = opts.merchants;
  }

  paymentCalls(): number {
    return this.calls;
  }

  /** How many transactions it approved (sales, authorizations, captures). */
  transactionCount(): number {
    return this.#tx.size;
  }

  /** A transaction as the simulator keeps it, by its response id (z1). */
  transaction(responseId: string): Readonly<SimTransaction> | undefined {
    return this.#tx.get(responseId);
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    if (r.path.startsWith('/sim/acs/')) return this.#acs(r, res);
    if (r.method !== 'POST') return void res.writeHead(405, { 'content-type': 'text/plain' }).end('POST the gateway parameters');
    const p: Params = {};
    for (const [k, v] of new URLSearchParams(r.raw)) p[k] = v;
    const key = this.#merchants[p.M ?? ''];
    if (!key) return this.#form(res, { M: p.M ?? '-', O: p.O ?? '-', a1: p.a1 ?? '-', z1: '1A-1', z2: '-9', z3: 'Merchant is not recognized.' });
    const op = OPERATION_IDS[p.O ?? ''];
    const base = { M: p.M, O: p.O ?? '-', T: this.#time(), V: '413', a1: p.a1 || '-' };
    if (!op) return this.#reply(r, res, null, null, key, { ...base, z1: '1A-1', z2: '-9', z3: `2. At least one of input parameters is malformed.: Parameter [O] is not a known operation.` });
    if (p.K !== signatureOf(p, key)) return this.#reply(r, res, null, op, key, { ...base, z1: '1A-1', z2: '-8', z3: 'Package signature is malformed.' });
    if (op === 'retrieval') {
      const problems = this.spec.request(op, p);
      if (problems.length > 0) return this.#reply(r, res, null, op, key, { ...base, z1: '1A-1', z2: '-9', z3: `2. At least one of input parameters is malformed.: ${problems[0]}`.slice(0, 256) });
      this.retrievals++;
      const found = this.#byRequest.get(`${p.M}:${p.g4}`);
      return this.#reply(r, res, null, op, key, { ...base, g4: p.g4, ...(found ?? { z2: '-9', z3: 'No transaction was found for the referred request id.' }) });
    }
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    const problems = this.spec.request(op, p);
    if (problems.length > 0) return this.#reply(r, res, fault, op, key, { ...base, z1: '1A-1', z2: '-9', z3: `2. At least one of input parameters is malformed.: ${problems[0]}`.slice(0, 256) });
    // a request id is unique per merchant
    if (this.#byRequest.has(`${p.M}:${p.a1}`)) return this.#reply(r, res, fault, op, key, { ...base, z1: '1A-1', z2: '-9', z3: '2. At least one of input parameters is malformed.: Parameter [a1] was already used (request ids are unique per merchant).' });
    this.calls++;
    const out = op === 'sale' || op === 'auth' ? this.#pay(p, op) : op === 'threedsCompletion' ? this.#complete(p) : this.#followUp(p, op);
    // what the retrieval of this request id finds
    this.#byRequest.set(`${p.M}:${p.a1}`, out);
    return this.#reply(r, res, fault, op, key, { ...base, ...out });
  }

  #time(): string {
    const d = this.now();
    const z = (n: number) => String(n).padStart(2, '0');
    return `${z(d.getUTCMonth() + 1)}/${z(d.getUTCDate())}/${d.getUTCFullYear()} ${z(d.getUTCHours())}:${z(d.getUTCMinutes())}:${z(d.getUTCSeconds())}`;
  }

  #form(res: http.ServerResponse, p: Params): void {
    res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end(new URLSearchParams(p).toString());
  }

  /** A signed answer under the fault of its call; `tamper` alters it after signing. */
  async #reply(r: SimRequest, res: http.ServerResponse, fault: ReturnType<SimulatorBase['takeFault']>, op: string | null, key: string, p: Params): Promise<void> {
    const answer = signed(p, key);
    if (op) this.spec.response(op, 200, answer);
    let body = answer;
    if (fault === 'tamper') body = answer.z2 === '0' ? { ...answer, z15: String(Number(answer.z15 ?? '0') + 100) } : { ...answer, z2: '0', z4: '123456', z6: '00', z15: answer.a4 ?? '0' };
    await this.answer(r, res, fault === 'tamper' ? null : fault, { status: 200, body: new URLSearchParams(body).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  // ---- payments -------------------------------------------------------------------------------------------

  #pay(p: Params, op: 'sale' | 'auth'): Params {
    const amount = Number(p.a4);
    if (p['3ds_initiate']) {
      if (p.b1 === CREDORAX_SIM_CARDS.CHALLENGE) {
        const c: SimChallenge = { trxid: randomUUID(), responseId: hex(16), merchantId: p.M, params: { ...p }, redirectUrl: p['3ds_redirect_url'], result: null };
        this.#challenges.set(c.trxid, c);
        return { a4: p.a4, z1: c.responseId, z2: '7', z3: 'Transaction is waiting for 3-D Secure authentication.', '3ds_status': 'C', '3ds_acsurl': `${this.url}/sim/acs/${c.trxid}`, '3ds_trxid': c.trxid, '3ds_acstrxid': randomUUID(), '3ds_version': '2.2.0' };
      }
      return { ...this.#decide(p, op, amount, true), ...this.#authenticated('Y') };
    }
    return this.#decide(p, op, amount, !!p.i8);
  }

  #authenticated(status: 'Y' | 'N'): Params {
    return status === 'Y'
      ? { '3ds_status': 'Y', '3ds_eci': '05', '3ds_cavv': randomBytes(20).toString('base64'), '3ds_version': '2.2.0', '3ds_dstrxid': randomUUID() }
      : { '3ds_status': 'N', '3ds_eci': '07', '3ds_version': '2.2.0' };
  }

  #decide(p: Params, op: 'sale' | 'auth', amount: number, authenticated: boolean, requestId = p.a1): Params {
    const code = decide({
      number: p.b1, expiryMonth: Number(p.b3), expiryYear: Number(p.b4), moto: p.a2 === '3',
      merchantInitiated: (p.a9 === '2' || p.a9 === '8') && !!p.g6, authenticated, now: this.now(),
    });
    const responseId = hex(16);
    if (code) return { a4: p.a4, z1: responseId, z2: '05', z3: wordsOf(code), z5: '0', z6: code, z13: String(randomInt(100_000_000, 999_999_999)) };
    const t: SimTransaction = {
      responseId, requestId, merchantId: p.M, kind: op, amount, currency: p.a5, authCode: String(randomInt(100000, 999999)),
      captured: op === 'sale' ? amount : 0, refunded: 0, voided: false, networkId: schemeTransactionId(),
      request: { a9: p.a9 ?? null, g6: p.g6 ?? null, a2: p.a2 ?? null, h3: p.h3 ?? null, r2: p.r2 ?? null, h8: p.h8 ?? null, threeds: !!p['3ds_initiate'] },
    };
    this.#tx.set(responseId, t);
    return {
      a4: p.a4, ...(p.a9 ? { a9: p.a9 } : {}), z1: responseId, z2: '0', z3: 'Transaction has been executed successfully.', z4: t.authCode, z5: '0', z6: '00',
      z7: t.networkId, z13: String(randomInt(100_000_000, 999_999_999)), z14: 'M', z15: p.a4,
    };
  }

  /** O=92: the payment that waited for the challenge, decided once the cardholder answered. */
  #complete(p: Params): Params {
    const c = [...this.#challenges.values()].find((x) => x.responseId === p.g2 && x.trxid === p['3ds_trxid'] && x.merchantId === p.M);
    if (!c || c.result === null) return { z1: '1A-1', z2: '-50', z3: 'An error occurred during the 3D secure process' };
    this.#challenges.delete(c.trxid);
    const o = c.params;
    const op = o.O === '1' ? 'sale' : 'auth';
    if (c.result === 'N') return { a4: o.a4, z1: hex(16), z2: '-38', z3: 'The transaction has been denied by the Gateway because 3D secure Authentication failed.', ...this.#authenticated('N') };
    // the payment keeps its request id (a1): its follow-ups refer to it
    return { ...this.#decide(o, op, Number(o.a4), true, o.a1), ...this.#authenticated('Y') };
  }

  // ---- captures, voids, refunds ---------------------------------------------------------------------------

  #followUp(p: Params, op: string): Params {
    const t = this.#tx.get(p.g2);
    const no = (z3: string): Params => ({ ...(p.a4 ? { a4: p.a4 } : {}), z1: '1A-1', z2: '-9', z3 });
    if (!t || t.merchantId !== p.M || t.requestId !== p.g4) return no('Referred transaction was not found.');
    const amount = p.a4 ? Number(p.a4) : t.amount;
    if (p.a5 && p.a5 !== t.currency) return no('The currency is not the transaction\'s.');
    const done = (extra: Params = {}): Params => ({ ...(p.a4 ? { a4: p.a4 } : {}), g2: p.g2, g4: p.g4, z1: hex(16), z2: '0', z3: 'Transaction has been executed successfully.', z4: t.authCode, z5: '0', z6: '00', z15: String(amount), ...extra });
    if (op === 'capture') {
      if (t.kind !== 'auth' || t.voided) return no('The authorization cannot be captured.');
      if (t.captured > 0) return no('The authorization has already been captured.');
      if (amount <= 0 || amount > t.amount) return no('The capture amount exceeds the authorized amount.');
      t.captured = amount;
      const a = done();
      this.#tx.set(a.z1, { ...t, responseId: a.z1, requestId: p.a1, kind: 'capture', amount, captured: amount, refunded: 0 });
      return a;
    }
    if (op === 'authVoid') {
      if (t.kind !== 'auth' || t.voided || t.captured > 0) return no('The authorization cannot be voided.');
      t.voided = true;
      return done();
    }
    // a refund of a sale or a capture
    if (t.kind === 'auth') return no('Refund the capture of this authorization.');
    if (amount <= 0 || amount > t.captured - t.refunded) return no('The refund amount exceeds what is left to refund.');
    t.refunded += amount;
    return done();
  }

  // ---- the simulated ACS ----------------------------------------------------------------------------------

  /** The ACS: the challenge page (the browser posts `creq`), then the CRes posted to 3ds_redirect_url. */
  async #acs(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const c = this.#challenges.get(r.path.slice('/sim/acs/'.length));
    if (!c || c.result !== null) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const form = new URLSearchParams(r.raw);
    const result = r.method === 'POST' ? form.get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      const last4 = c.params.b1.slice(-4);
      return this.html(res, 200, challengePage({ title: '3-D Secure', heading: '3-D Secure authentication (Credorax simulator)', lines: [`Amount ${c.params.a4} (minor units) ${c.params.a5}, card ending ${last4}`], action: `/sim/acs/${c.trxid}` }));
    }
    c.result = result;
    const cres = Buffer.from(JSON.stringify({ threeDSServerTransID: c.trxid, acsTransID: c.trxid, messageType: 'CRes', messageVersion: '2.2.0', transStatus: result })).toString('base64url');
    return this.html(res, 200, `<!doctype html><html><body>${selfPostingForm(c.redirectUrl, { cres })}</body></html>`);
  }

  /** A fresh demo signing key. */
  static demoKey(): string {
    return hex(16);
  }
}
