/**
 * The Trust Payments simulator: a separate HTTP server speaking the Webservices API (JSON, version
 * "1.00") as its published references describe it (spec.ts), for the tests and for demos (`npx paygate
 * trustpayments-simulator`, then PAYGATE_TRUSTPAYMENTS_URL=http://127.0.0.1:PORT).
 *
 *  - `POST /json/` only, with HTTP Basic authentication of an account's alias and password (401
 *    otherwise, as Trust Payments answers; its libraries call it "Invalid credentials provided"); the
 *    envelope's alias must be the authenticated one and the request's site reference the account's
 *    (30006 Invalid sitereference for alias otherwise).
 *  - Every request is checked against the reference's schemas (`spec`, a SpecLedger): one the reference
 *    does not allow is answered 30000 Invalid field (errordata: the problems) and recorded; every answer
 *    the simulator gives is checked too.
 *  - AUTH (settled as usual, or suspended with settlestatus 2), ACCOUNTCHECK (amount 0): decided by
 *    rules.ts, answered with a transaction reference, authcode, settlestatus and the order reference.
 *  - TRANSACTIONUPDATE of a suspended AUTH: settlestatus 0 with settlebaseamount (a capture of that
 *    amount, no more than authorized), settlestatus 3 (a cancellation); 60017 Transaction not updatable
 *    otherwise, 60014 for an unknown transaction reference, 60016 for a settle amount too large.
 *  - REFUND of an authorized AUTH (20004 Missing parent, 20011 Cannot refund a decline transaction, 20007
 *    Refund amount too great).
 *  - TRANSACTIONQUERY by order reference or transaction reference: the records of the requests processed.
 *  - The kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    on the way: Ok, to another request reference).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { PATH, VERSION } from '../mapping.js';
import { TRUSTPAYMENTS_SPEC } from '../spec.js';
import { decide, MESSAGES } from './rules.js';

export interface TrustpaymentsSimAccount {
  password: string;
  sitereference: string;
}

export interface TrustpaymentsSimulatorOptions {
  /** Accounts by Webservices alias. */
  accounts: Record<string, TrustpaymentsSimAccount>;
  latencyMs?: number;
  clock?: () => Date;
}

/** A request processed, as a TRANSACTIONQUERY record gives it back. */
interface SimRecord {
  sitereference: string;
  requesttypedescription: string;
  transactionreference: string;
  errorcode: string;
  errormessage: string;
  orderreference: string | null;
  baseamount: string;
  currencyiso3a: string;
  accounttypedescription: string;
  settlestatus: string | null;
  authcode: string | null;
  parenttransactionreference: string | null;
  /** AUTH: what was settled and refunded of it. */
  settled: number;
  refunded: number;
}

type Json = Record<string, unknown>;
const OP_OF: Record<string, string> = { AUTH: 'auth', ACCOUNTCHECK: 'auth', TRANSACTIONUPDATE: 'update', REFUND: 'refund', TRANSACTIONQUERY: 'query' };

export class TrustpaymentsSimulator extends SimulatorBase {
  readonly #opts: TrustpaymentsSimulatorOptions;
  readonly #records: SimRecord[] = [];
  #seq = 1000;
  /** Requests received: payments and verifications, updates (captures, cancellations), refunds, queries. */
  readonly calls = { auths: 0, updates: 0, refunds: 0, queries: 0 };

  constructor(opts: TrustpaymentsSimulatorOptions) {
    super({ spec: TRUSTPAYMENTS_SPEC, latencyMs: opts.latencyMs, clock: opts.clock });
    this.#opts = opts;
  }

  paymentCalls(): number {
    return this.calls.auths + this.calls.updates + this.calls.refunds;
  }

  /** The demo account's password (`paygate trustpayments-simulator`). */
  static demoPassword(): string {
    return 'demo-webservices-password';
  }

  #account(r: SimRequest): { alias: string; account: TrustpaymentsSimAccount } | null {
    const auth = String(r.headers.authorization ?? '');
    if (!auth.startsWith('Basic ')) return null;
    const [alias, ...rest] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
    const account = this.#opts.accounts[alias];
    return account && account.password === rest.join(':') ? { alias, account } : null;
  }

  #answer(requestreference: string, response: Json, op: string): Json {
    const body = { requestreference, version: VERSION, secrand: randomBytes(8).toString('hex'), response: [response] };
    this.spec.response(op, 200, body);
    return body;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    if (r.method !== 'POST' || r.path !== PATH) return this.write(res, 404, 'not found');
    const who = this.#account(r);
    if (!who) return this.write(res, 401, 'Unauthorized', { 'www-authenticate': 'Basic realm="webservices"' });
    let envelope: Json;
    try {
      envelope = JSON.parse(r.raw) as Json;
    } catch {
      return this.write(res, 200, { requestreference: '', version: VERSION, response: [{ errorcode: '10205', errormessage: 'Malformed JSON', requesttypedescription: 'ERROR' }] });
    }
    const request = (Array.isArray(envelope.request) ? envelope.request[0] : null) as Json | null;
    const rr = typeof request?.requestreference === 'string' ? request.requestreference : '';
    const type = Array.isArray(request?.requesttypedescriptions) ? String(request.requesttypedescriptions[0]) : '';
    const op = OP_OF[type];
    if (!request || !op) return this.write(res, 200, { requestreference: rr, version: VERSION, response: [{ errorcode: '60018', errormessage: 'Invalid requesttype', requesttypedescription: 'ERROR' }] });
    const problems = this.spec.request(op, envelope);
    const error = (errorcode: string, errormessage: string, errordata: string[] = []) => this.#answer(rr, { errorcode, errormessage, ...(errordata.length ? { errordata } : {}), requesttypedescription: 'ERROR' }, op);
    if (problems.length > 0) return this.write(res, 200, error('30000', 'Invalid field', problems.slice(0, 5)));
    const site = (request.sitereference ?? (request.filter as { sitereference?: Array<{ value: string }> } | undefined)?.sitereference?.[0]?.value) as string;
    if (envelope.alias !== who.alias || site !== who.account.sitereference) return this.write(res, 200, error('30006', 'Invalid sitereference for alias'));
    if (op === 'query') {
      this.calls.queries++;
      return this.write(res, 200, this.#query(rr, request, site));
    }
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    let response: Json;
    if (op === 'auth') {
      this.calls.auths++;
      response = this.#auth(request, site);
    } else if (op === 'update') {
      this.calls.updates++;
      response = this.#update(request, site);
    } else {
      this.calls.refunds++;
      response = this.#refund(request, site);
    }
    const body = this.#answer(rr, response, op);
    await this.answer(r, res, fault, {
      status: 200, body,
      // the answer altered on the way: Ok, about another request
      tamper: (b) => ({ ...(b as Json), requestreference: `A${randomBytes(6).toString('hex')}`, response: [{ ...response, errorcode: '0', errormessage: 'Ok' }] }),
    });
  }

  #nextReference(): string {
    return `56-9-${++this.#seq}`;
  }

  #keep(rec: Omit<SimRecord, 'settled' | 'refunded'>): SimRecord {
    const full = { ...rec, settled: 0, refunded: 0 };
    this.#records.push(full);
    return full;
  }

  #fields(rec: SimRecord): Json {
    return {
      errorcode: rec.errorcode, errormessage: rec.errormessage, requesttypedescription: rec.requesttypedescription, transactionreference: rec.transactionreference,
      baseamount: rec.baseamount, currencyiso3a: rec.currencyiso3a, accounttypedescription: rec.accounttypedescription, livestatus: '0',
      ...(rec.orderreference ? { orderreference: rec.orderreference } : {}), ...(rec.settlestatus ? { settlestatus: rec.settlestatus } : {}),
      ...(rec.authcode ? { authcode: rec.authcode } : {}), ...(rec.parenttransactionreference ? { parenttransactionreference: rec.parenttransactionreference } : {}),
      ...(rec.errorcode === '0' && rec.requesttypedescription !== 'REFUND' ? { acquirerresponsecode: '00' } : {}),
    };
  }

  #auth(q: Json, site: string): Json {
    const type = (q.requesttypedescriptions as string[])[0];
    const [mm, yyyy] = String(q.expirydate).split('/').map(Number);
    const parent = typeof q.parenttransactionreference === 'string' ? this.#records.find((x) => x.transactionreference === q.parenttransactionreference && x.sitereference === site) : undefined;
    const merchantInitiated = !!parent && parent.errorcode === '0' && q.credentialsonfile === '2' && (q.accounttypedescription === 'RECUR' || typeof q.initiationreason === 'string');
    const amount = Number(q.baseamount);
    let code = type === 'ACCOUNTCHECK' && amount !== 0 ? '30000' : decide({ pan: String(q.pan), expiryMonth: mm, expiryYear: yyyy, amount, accounttype: String(q.accounttypedescription), merchantInitiated, now: this.now() });
    if (typeof q.parenttransactionreference === 'string' && !parent) code = '20004';
    const ok = code === '0';
    const rec = this.#keep({
      sitereference: site, requesttypedescription: type, transactionreference: this.#nextReference(), errorcode: code, errormessage: code === '20004' ? 'Missing parent' : code === '30000' ? 'Invalid field' : MESSAGES[code] ?? 'Decline',
      orderreference: typeof q.orderreference === 'string' ? q.orderreference : null, baseamount: String(q.baseamount), currencyiso3a: String(q.currencyiso3a),
      accounttypedescription: String(q.accounttypedescription), settlestatus: ok ? (q.settlestatus === '2' ? '2' : '0') : '3',
      authcode: ok ? `TEST${String(this.#seq).slice(-2)}` : code === '70000' ? 'DECLINED' : null, parenttransactionreference: parent?.transactionreference ?? null,
    });
    if (ok && rec.settlestatus === '0') rec.settled = amount;
    return this.#fields(rec);
  }

  #update(q: Json, site: string): Json {
    const f = q.filter as { transactionreference: Array<{ value: string }> };
    const u = q.updates as { settlestatus: string; settlebaseamount?: string };
    const rec = this.#records.find((x) => x.transactionreference === f.transactionreference[0].value && x.sitereference === site && x.requesttypedescription === 'AUTH');
    const done = (errorcode: string) => ({ errorcode, errormessage: errorcode === '0' ? 'Ok' : errorcode === '60014' ? 'Transaction reference not found' : errorcode === '60016' ? 'settlebaseamount too large' : errorcode === '60013' ? 'No valid updates specified' : 'Transaction not updatable', requesttypedescription: 'TRANSACTIONUPDATE' });
    if (!rec) return done('60014');
    if (rec.errorcode !== '0' || rec.settlestatus !== '2') return done('60017');
    if (u.settlestatus === '3') {
      rec.settlestatus = '3';
      return done('0');
    }
    if (u.settlestatus !== '0') return done('60013');
    const amount = u.settlebaseamount !== undefined ? Number(u.settlebaseamount) : Number(rec.baseamount);
    if (amount > Number(rec.baseamount)) return done('60016');
    rec.settlestatus = '0';
    rec.settled = amount;
    return done('0');
  }

  #refund(q: Json, site: string): Json {
    const parent = this.#records.find((x) => x.transactionreference === q.parenttransactionreference && x.sitereference === site && x.requesttypedescription === 'AUTH');
    const amount = q.baseamount !== undefined ? Number(q.baseamount) : parent ? parent.settled - parent.refunded : 0;
    let code = '0';
    if (!parent) code = '20004';
    else if (parent.errorcode !== '0' || parent.settlestatus === '3') code = '20011';
    else if (parent.settlestatus === '2') code = '20005';
    else if (amount > parent.settled - parent.refunded) code = '20007';
    const words: Record<string, string> = { '0': 'Ok', '20004': 'Missing parent', '20011': 'Cannot refund a decline transaction', '20005': 'Refund requires settled parent or parent thats due to settle today', '20007': 'Refund amount too great' };
    if (code === '0') parent!.refunded += amount;
    const rec = this.#keep({
      sitereference: site, requesttypedescription: 'REFUND', transactionreference: this.#nextReference(), errorcode: code, errormessage: words[code],
      orderreference: typeof q.orderreference === 'string' ? q.orderreference : null, baseamount: String(amount), currencyiso3a: parent?.currencyiso3a ?? 'GBP',
      accounttypedescription: parent?.accounttypedescription ?? 'ECOM', settlestatus: code === '0' ? '0' : '3', authcode: code === '0' ? 'TEST REFUND ACCEPTED' : null,
      parenttransactionreference: parent?.transactionreference ?? null,
    });
    return this.#fields(rec);
  }

  #query(rr: string, q: Json, site: string): Json {
    const f = q.filter as { orderreference?: Array<{ value: string }>; transactionreference?: Array<{ value: string }> };
    if (!f.orderreference && !f.transactionreference) return this.#answer(rr, { errorcode: '60019', errormessage: 'No searchable filter specified', requesttypedescription: 'TRANSACTIONQUERY' }, 'query');
    const orders = new Set((f.orderreference ?? []).map((v) => v.value));
    const refs = new Set((f.transactionreference ?? []).map((v) => v.value));
    const records = this.#records.filter((x) => x.sitereference === site && (!f.orderreference || (x.orderreference !== null && orders.has(x.orderreference))) && (!f.transactionreference || refs.has(x.transactionreference)));
    return this.#answer(rr, { errorcode: '0', errormessage: 'Ok', requesttypedescription: 'TRANSACTIONQUERY', found: String(records.length), records: records.map((x) => this.#fields(x)) }, 'query');
  }
}
