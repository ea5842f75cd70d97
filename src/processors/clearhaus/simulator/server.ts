/**
 * The Clearhaus simulator: a separate HTTP server speaking Clearhaus's Gateway API as its public
 * reference describes it (spec.ts), for the tests and for demos (`npx paygate clearhaus-simulator`, then
 * PAYGATE_CLEARHAUS_URL=http://127.0.0.1:PORT).
 *
 *  - HTTP Basic authentication with an account's API key as username (401 Not Authorized otherwise).
 *    A `Signature` header, when present, must carry the account's signing API key and a right RS256-hex
 *    signature of the body (the request fails otherwise); the `moto` method needs one.
 *  - Every POST's form parameters are checked against the reference's schemas (`spec`, a SpecLedger): a
 *    request the reference does not allow is answered 400 with status 40000 and what is wrong, and
 *    recorded; every answer the simulator gives is checked too.
 *  - POST /authorizations (decided by rules.ts; a first-in-series answers its `series`; a subsequent one
 *    must quote an approved authorization of the same card that is in a series), POST
 *    /authorizations/:id/captures (no more than what remains of the authorization), /voids (of an
 *    authorization nothing was captured of), /refunds (no more than what was captured and not refunded);
 *    404 for an authorization of another account or none. Declines answer 201 with their status code.
 *    An account may have the rule refusing captures of authorizations whose CSC did not match (40200).
 *  - GET /account (the account resource) and GET / (resource discovery). No other GET: Clearhaus
 *    removed them, transactions cannot be read back.
 *  - The kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: an approval of
 *    another amount, or an answer without its status, on the way).
 */
import { createHash, createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { parseForm } from '../mapping.js';
import { rsaPrivateKeyOf } from '../credentials.js';
import { CLEARHAUS_SPEC } from '../spec.js';
import { decide, MATCHING_CSC, MEANINGS } from './rules.js';

export interface ClearhausSimAccount {
  /** The merchant id of the account resource (15 digits). */
  merchantId: string;
  /** The signing API key whose requests it verifies, with its key (the public part of a private key given). */
  signingApiKey?: string | null;
  signingPrivateKey?: string | null;
  /**
   * The account's rule refusing captures of authorizations whose CSC did not match (40200 Clearhaus rule
   * violation): "rules to disallow captures for such authorizations may be in place for a merchant"
   * ("Reserve money").
   */
  captureNeedsCscMatch?: boolean;
}

export interface ClearhausSimulatorOptions {
  /** Accounts by API key. */
  accounts: Record<string, ClearhausSimAccount>;
  latencyMs?: number;
  clock?: () => Date;
}

interface SimAuthorization {
  id: string;
  apiKey: string;
  code: number;
  amount: number;
  currency: string;
  panHash: string;
  /** The series it is in (approved first- or subsequent-in-series). */
  series: string | null;
  captured: number;
  refunded: number;
  voided: boolean;
  /** Transactions made on it so far (captures, voids, refunds). */
  followUps: number;
  /** Its CSC matched (the test environment's 987). */
  cscMatched: boolean;
  /** The parameters it was asked with, without the card number and CSC (tests). */
  request: Record<string, string>;
}

type Json = Record<string, unknown>;

/** Parameters without the card number and CSC (a simulator keeps no card data). */
const withoutCard = (p: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(p).filter(([k]) => !/^(card|moto)\[(pan|csc)\]$/.test(k)));

const FOLLOW_UP = /^\/authorizations\/([^/]+)\/(captures|voids|refunds)$/;
const OP_OF: Record<string, 'capture' | 'void' | 'refund'> = { captures: 'capture', voids: 'void', refunds: 'refund' };

export class ClearhausSimulator extends SimulatorBase {
  readonly #opts: ClearhausSimulatorOptions;
  readonly #keys = new Map<string, KeyObject>();
  readonly #auths = new Map<string, SimAuthorization>();
  /** Transactions received: authorizations, captures, voids, refunds; and the captures that completed a payment. */
  readonly calls = { authorizations: 0, captures: 0, voids: 0, refunds: 0, saleCaptures: 0 };

  constructor(opts: ClearhausSimulatorOptions) {
    super({ spec: CLEARHAUS_SPEC, latencyMs: opts.latencyMs, clock: opts.clock });
    this.#opts = opts;
    for (const [apiKey, a] of Object.entries(opts.accounts)) {
      const key = a.signingPrivateKey ? rsaPrivateKeyOf(a.signingPrivateKey) : null;
      if (a.signingApiKey && key) this.#keys.set(apiKey, createPublicKey(key));
    }
  }

  /**
   * Payments and follow-ups received, a payment counted once: its authorization and the capture of its
   * whole amount that first follows it (the gateway's payment is the two) are one.
   */
  paymentCalls(): number {
    return this.calls.authorizations + this.calls.captures - this.calls.saleCaptures + this.calls.voids + this.calls.refunds;
  }

  /** An authorization made (tests). */
  authorization(id: string): Readonly<SimAuthorization> | undefined {
    return this.#auths.get(id);
  }

  #account(r: SimRequest): { apiKey: string; account: ClearhausSimAccount } | null {
    const auth = String(r.headers.authorization ?? '');
    if (!auth.startsWith('Basic ')) return null;
    const apiKey = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0];
    const account = this.#opts.accounts[apiKey];
    return account ? { apiKey, account } : null;
  }

  /** Whether the request is signed by the account's signing key; false with a signature that does not verify. */
  #signature(r: SimRequest, apiKey: string, account: ClearhausSimAccount): 'signed' | 'unsigned' | 'wrong' {
    const header = r.headers.signature;
    if (header === undefined) return 'unsigned';
    const m = /^(\S+) RS256-hex ([0-9a-f]+)$/.exec(String(header));
    const key = this.#keys.get(apiKey);
    if (!m || !key || m[1] !== account.signingApiKey) return 'wrong';
    return verify('sha256', r.bytes, key, Buffer.from(m[2], 'hex')) ? 'signed' : 'wrong';
  }

  #processedAt(): string {
    return this.now().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  }

  #refused(res: http.ServerResponse, op: string, message: string): void {
    const body = { status: { code: 40000, message } };
    this.spec.response(op, 400, body);
    this.write(res, 400, body, { 'content-type': 'application/vnd.clearhaus-gateway.hal+json; version=0.10.0; charset=utf-8' });
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const who = this.#account(r);
    if (!who) return this.write(res, 401, 'Not Authorized');
    if (r.method === 'GET' && r.path === '/') return this.write(res, 200, { _links: { authorizations: { href: '/authorizations' }, account: { href: '/account' } } });
    if (r.method === 'GET' && r.path === '/account') {
      const body = { merchant_id: who.account.merchantId, name: 'Simulated Merchant', country: 'DK', currency: 'EUR', mcc: '5734', descriptor: 'paygate simulator', transaction_rules: '', acquirer: { visa_bin: 438309, mastercard_bin: 526571 } };
      this.spec.response('account', 200, body);
      return this.write(res, 200, body);
    }
    const followUp = FOLLOW_UP.exec(r.path);
    const op = r.path === '/authorizations' ? 'authorize' : followUp ? OP_OF[followUp[2]] : null;
    if (r.method !== 'POST' || !op) return this.write(res, 404, {});
    const params = parseForm(r.raw);
    const signature = this.#signature(r, who.apiKey, who.account);
    if (signature === 'wrong') return this.#refused(res, op, 'signature is invalid');
    const problems = this.spec.request(op, params);
    if (problems.length > 0) return this.#refused(res, op, problems.slice(0, 3).join('; '));
    if (op === 'authorize' && params['moto[pan]'] !== undefined && signature !== 'signed') return this.#refused(res, op, 'signing is required for the moto payment method');
    const auth = followUp ? this.#auths.get(decodeURIComponent(followUp[1])) : undefined;
    if (followUp && (!auth || auth.apiKey !== who.apiKey)) {
      this.spec.response(op, 404, {});
      return this.write(res, 404, {});
    }
    const fault = this.takeFault();
    if (fault === 'lost') return this.drop(r);
    const body = op === 'authorize' ? this.#authorize(params, who.apiKey) : this.#followUp(op, auth!, params, who.account);
    this.spec.response(op, 201, body);
    await this.answer(r, res, fault, {
      status: 201, body, headers: { 'content-type': 'application/vnd.clearhaus-gateway.hal+json; version=0.10.0; charset=utf-8' },
      // the answer altered on the way: an approval of another amount, or no status at all
      tamper: (b) => (typeof (b as Json).amount === 'number' ? { ...(b as Json), status: { code: 20000 }, amount: ((b as Json).amount as number) + 1 } : { ...(b as Json), status: undefined }),
    });
  }

  #status(code: number, message?: string): Json {
    return { code, ...(code !== 20000 ? { message: message ?? MEANINGS[code] } : {}) };
  }

  #authorize(p: Record<string, string>, apiKey: string): Json {
    this.calls.authorizations++;
    const moto = p['moto[pan]'] !== undefined;
    const pan = moto ? p['moto[pan]'] : p['card[pan]'];
    const panHash = createHash('sha256').update(pan).digest('hex');
    const amount = Number(p.amount);
    const prevId = p['series[previous][id]'];
    const prev = prevId ? this.#auths.get(prevId) : undefined;
    const trans = p['card[3dsecure][v2][raw][trans_status]'];
    let code: number;
    let message: string | undefined;
    if (prevId && (!prev || prev.apiKey !== apiKey || prev.code !== 20000 || !prev.series || prev.panHash !== panHash)) {
      code = 40000;
      message = "series[previous][id] is not an approved authorization in a series of this card";
    } else {
      const month = Number(moto ? p['moto[expire_month]'] : p['card[expire_month]']);
      const year = Number(moto ? p['moto[expire_year]'] : p['card[expire_year]']);
      code = decide({ pan, expireMonth: month, expireYear: year, amount, moto, merchantInitiated: !!prevId || p.initiator === 'merchant', authenticated: trans === 'Y' || trans === 'A', now: this.now() });
    }
    const id = randomUUID();
    const approved = code === 20000;
    const seriesType = p['series[type]'] ?? null;
    this.#auths.set(id, { id, apiKey, code, amount, currency: p.currency, panHash, series: approved ? seriesType ?? prev?.series ?? null : null, captured: 0, refunded: 0, voided: false, followUps: 0, cscMatched: p['card[csc]'] === MATCHING_CSC, request: withoutCard(p) });
    const csc = p['card[csc]'];
    return {
      id, status: this.#status(code, message), processed_at: this.#processedAt(), amount, currency: p.currency,
      ...(p.text_on_statement ? { text_on_statement: p.text_on_statement } : {}),
      csc: { present: csc !== undefined, matches: csc === MATCHING_CSC },
      ...(trans ? { '3dsecure': { version: p['card[3dsecure][v2][raw][message_version]'], status: trans } } : {}),
      ...(approved && seriesType ? { series: { type: seriesType, tid: String(BigInt(`0x${id.replace(/-/g, '').slice(0, 12)}`) % 10n ** 15n).padStart(15, '0'), tlid: Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url').slice(0, 22) } } : {}),
      _links: { captures: { href: `/authorizations/${id}/captures` }, voids: { href: `/authorizations/${id}/voids` }, refunds: { href: `/authorizations/${id}/refunds` } },
    };
  }

  #followUp(op: 'capture' | 'void' | 'refund', a: SimAuthorization, p: Record<string, string>, account: ClearhausSimAccount): Json {
    const first = a.followUps++ === 0;
    const links = { authorization: { href: `/authorizations/${a.id}` } };
    const done = (code: number, amount: number | null, message?: string): Json => ({ id: randomUUID(), status: this.#status(code, message), processed_at: this.#processedAt(), ...(amount !== null ? { amount } : {}), _links: links });
    if (op === 'void') {
      this.calls.voids++;
      if (a.code !== 20000 && a.code !== 50000) return done(40000, null, 'the authorization was not approved');
      if (a.voided || a.captured > 0) return done(40000, null, a.voided ? 'the authorization is voided' : 'the authorization is captured');
      a.voided = true;
      return done(20000, null);
    }
    if (op === 'capture') {
      this.calls.captures++;
      const amount = p.amount !== undefined ? Number(p.amount) : a.amount - a.captured;
      if (first && amount === a.amount) this.calls.saleCaptures++;
      if (a.code !== 20000 || a.voided) return done(40000, amount >= 1 ? amount : null, 'the authorization cannot be captured');
      if (amount < 1 || a.captured + amount > a.amount) return done(40000, amount >= 1 ? amount : null, 'amount exceeds what remains of the authorization');
      if (account.captureNeedsCscMatch && !a.cscMatched) return done(40200, amount, 'capture of an authorization whose CSC did not match');
      a.captured += amount;
      return done(20000, amount);
    }
    this.calls.refunds++;
    const amount = p.amount !== undefined ? Number(p.amount) : a.captured - a.refunded;
    if (amount < 1 || a.refunded + amount > a.captured) return done(40000, amount >= 1 ? amount : null, 'amount exceeds what was captured and not refunded');
    a.refunded += amount;
    return done(20000, amount);
  }
}
