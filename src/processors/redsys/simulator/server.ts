/**
 * The Redsys simulator: a separate HTTP server that speaks Redsys's protocol byte for byte, for the
 * tests and for demos (`npx paygate redsys-simulator`, then PAYGATE_REDSYS_URL=http://127.0.0.1:PORT).
 *
 *  - `POST /sis/rest/trataPeticionREST` and `POST /sis/rest/iniciaPeticionREST`: signed JSON messages
 *    (HMAC_SHA256_V1 and HMAC_SHA512_V2), answered signed with the request's version, or
 *    `{"errorCode": "SIS0xxx"}` (SIS0026 unknown merchant or terminal, SIS0042 bad signature, ...);
 *    external 3-D Secure in DS_MERCHANT_MPIEXTERNAL (SIS0605–SIS0614), stored credentials (COF);
 *  - orders kept per merchant code, terminal and order number: a refund needs an approved payment, a
 *    confirmation an approved pre-authorization, amounts are capped (rules.ts);
 *  - EMV 3-D Secure 2: card configuration (iniciaPeticion), a 3DS method page, frictionless or challenge
 *    answers per test card, an ACS challenge page that posts `cres` to the merchant's notification URL,
 *    and the final call;
 *  - the redirect payment page `POST /sis/realizarPago` (Bizum with `PAYMETHODS=z`), which signs and
 *    posts the notification to `DS_MERCHANT_MERCHANTURL` and sends the customer to URLOK / URLKO;
 *  - the query service `POST /apl02/services/SerClsWSConsulta` (SOAP `consultaOperaciones`);
 *  - signed notifications of REST operations to `DS_MERCHANT_MERCHANTURL`;
 *  - Redsys's reference (spec.ts) as the oracle: every request's decoded parameters, every answer,
 *    notification and query answer are checked against it through a SpecLedger (`spec`); a request
 *    that breaks it is recorded and answered with the SIS error of the parameter it breaks (after the
 *    signature is verified), and the test harness fails a file that left a violation;
 *  - operations in progress (Ds_Response 9999 for the in-progress card, 9998 while a customer is on the
 *    Bizum page), decided later (`decideInProgress`), then notified and answered by the query service;
 *  - the kit's server (kit/simulator.ts): latency, the faults tests use (`tamper`: the answer's
 *    parameters altered after signing; `hang` too), notifications through `transport` when a test sets one.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { challengePage, esc, htmlDocument, selfPostingForm, SimulatorBase, type SimFault, type SimRequest, type WebhookTransport } from '../../kit/simulator.js';
import { readQueryRequest } from '../query.js';
import { decodeBase64Any, decodeParameters, openMessage, sign, signMessage, type SignatureVersion } from '../signature.js';
import { decideFollowUp, decidePayment, IN_PROGRESS_CODES, threedsPathOf, type Decision, type SimOrder } from './rules.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { REDSYS_SPEC, sisErrorOf, trataOperationOf } from '../spec.js';

export interface RedsysSimTerminal {
  key: string;
}

export interface RedsysSimulatorOptions {
  /** Merchant codes (FUC) and their terminals (3 digits) with their keys. */
  merchants: Record<string, Record<string, RedsysSimTerminal>>;
  latencyMs?: number;
  /** Send signed notifications to DS_MERCHANT_MERCHANTURL after REST operations (default true). */
  notifyRest?: boolean;
  clock?: () => Date;
  /** Extra headers of the notifications it posts (tests: the TLS proxy's `x-forwarded-proto` in front of a gateway). */
  notifyHeaders?: Record<string, string>;
}

/** How the simulator delivers a notification; answers the HTTP status (tests deliver in process). */
export type NotificationTransport = WebhookTransport;
/** A fault of the kit's queue, by endpoint (default: trataPeticion). */
export type RedsysFault = SimFault<'trataPeticion' | 'iniciaPeticion' | 'query'>;

interface KeptOrder extends SimOrder {
  fuc: string;
  terminal: string;
  order: string;
  authCode: string;
  securePayment: string;
  cofTxnid: string | null;
  /** Still in progress (Ds_Response 9998 or 9999): no decision yet; `decideInProgress` gives it one. */
  inProgress: boolean;
  /** Where its notifications go, and the signature version they are signed with. */
  merchantUrl: string | null;
  version: SignatureVersion;
  /** The operations done under this number, in order (for the query service). */
  operations: Array<{ type: string; amount: number; code: string; authCode: string; at: Date }>;
}

interface ThreeDSSession {
  fuc: string;
  terminal: string;
  order: string;
  pan: string;
  acsTransID: string;
  notificationURL: string | null;
  methodDone: boolean;
  challengeResult: 'Y' | 'N' | null;
}

interface BizumSession {
  fuc: string;
  terminalDisplay: string;
  terminal: string;
  order: string;
  amount: number;
  currency: string;
  version: SignatureVersion;
  merchantUrl: string | null;
  urlOk: string | null;
  urlKo: string | null;
}

export interface SentNotification {
  url: string;
  order: string;
  status: number | null;
  error: string | null;
  body: Record<string, string>;
}

const pad3 = (t: string) => (/^\d{1,3}$/.test(t) ? t.padStart(3, '0') : t);
const b64urlJson = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

type RestOutcome = { answer: Record<string, unknown>; notify?: { url: string; fuc: string; terminal: string; version: SignatureVersion; params: Record<string, unknown> } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^[A-Za-z0-9+/]{20,}={0,2}$/;

/**
 * DS_MERCHANT_MPIEXTERNAL as Redsys checks it (the SIS errors that name its fields): EMV 3DS 2
 * (`protocolVersion`, `dsTransID`, `authenticacionValue`, `Eci`, optionally `threeDSServerTransID`) or
 * 3-D Secure 1 (`TXID`, `CAVV`, `ECI`). `secure`: the Ds_SecurePayment of the payment (2 or 1).
 */
function checkMpiExternal(mpi: unknown): { secure: '1' | '2' } | { error: string } {
  if (!mpi || typeof mpi !== 'object' || Array.isArray(mpi)) return { error: 'SIS0605' };
  const m = mpi as Record<string, unknown>;
  if (m.protocolVersion !== undefined || m.dsTransID !== undefined || m.authenticacionValue !== undefined) {
    if (typeof m.protocolVersion !== 'string' || !/^2\.\d\.\d$/.test(m.protocolVersion)) return { error: 'SIS0613' };
    if (m.threeDSServerTransID !== undefined && (typeof m.threeDSServerTransID !== 'string' || !UUID.test(m.threeDSServerTransID))) return { error: 'SIS0610' };
    if (m.dsTransID !== undefined && (typeof m.dsTransID !== 'string' || !UUID.test(m.dsTransID))) return { error: 'SIS0611' };
    if (typeof m.authenticacionValue !== 'string' || !BASE64.test(m.authenticacionValue)) return { error: 'SIS0612' };
    if (typeof m.Eci !== 'string' || !/^0\d$/.test(m.Eci)) return { error: 'SIS0614' };
    return { secure: '2' };
  }
  if (m.CAVV !== undefined || m.TXID !== undefined) {
    if (m.TXID !== undefined && typeof m.TXID !== 'string') return { error: 'SIS0607' };
    if (typeof m.CAVV !== 'string' || !BASE64.test(m.CAVV)) return { error: 'SIS0608' };
    if (typeof m.ECI !== 'string' || !/^0?\d$/.test(m.ECI)) return { error: 'SIS0609' };
    return { secure: '1' };
  }
  return { error: 'SIS0606' };
}

export class RedsysSimulator extends SimulatorBase<'trataPeticion' | 'iniciaPeticion' | 'query'> {
  readonly #opts: RedsysSimulatorOptions;
  readonly #orders = new Map<string, KeptOrder>();
  readonly #threeds = new Map<string, ThreeDSSession>();
  readonly #bizum = new Map<string, BizumSession>();
  /** Notifications sent (tests read them). */
  readonly notifications: SentNotification[] = [];
  /** The last REST requests received, as sent (tests check them with other implementations). */
  readonly requests: Array<{ endpoint: string; body: Record<string, unknown> }> = [];
  /** Requests received per endpoint. */
  readonly calls = { trataPeticion: 0, iniciaPeticion: 0, query: 0, realizarPago: 0 };

  constructor(opts: RedsysSimulatorOptions) {
    super({ spec: REDSYS_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.notifyHeaders, defaultEndpoint: 'trataPeticion' });
    this.#opts = opts;
  }

  /** Resolves when every notification sent so far has been delivered (or failed). */
  notificationsSent(): Promise<void> {
    return this.settled();
  }

  paymentCalls(): number {
    return this.calls.trataPeticion;
  }

  /** The order kept under a number (tests). */
  order(fuc: string, terminal: string, order: string): Readonly<KeptOrder> | undefined {
    return this.#orders.get(`${fuc}:${pad3(terminal)}:${order}`);
  }

  get orderCount(): number {
    return this.#orders.size;
  }

  #key(fuc: string, terminal: string): string | null {
    return this.#opts.merchants[fuc]?.[pad3(terminal)]?.key ?? null;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const { path, raw: body } = r;
    const req = { method: r.method };
    if (req.method === 'POST' && (path === '/sis/rest/trataPeticionREST' || path === '/sis/rest/iniciaPeticionREST')) {
      const endpoint = path.endsWith('trataPeticionREST') ? 'trataPeticion' : 'iniciaPeticion';
      this.calls[endpoint]++;
      const fault = this.takeFault(endpoint);
      if (fault === 'lost') return this.drop(r);
      const out = this.#rest(endpoint, body);
      const n = out.notify;
      const signed = typeof out.answer.Ds_MerchantParameters === 'string' ? out.answer.Ds_MerchantParameters : null;
      return this.answer(r, res, fault, {
        status: 200,
        body: out.answer,
        notify: n ? async () => void (await this.#notify(n.url, n.fuc, n.terminal, n.version, n.params)) : null,
        // the parameters altered after signing: approved, for one cent more
        tamper: (answer) => {
          if (!signed) return answer;
          const params = decodeParameters(signed);
          params.Ds_Response = '0000';
          params.Ds_Amount = String(Number(params.Ds_Amount ?? 0) + 1);
          return { ...(answer as object), Ds_MerchantParameters: Buffer.from(JSON.stringify(params)).toString('base64') };
        },
      });
    }
    if (req.method === 'POST' && path === '/apl02/services/SerClsWSConsulta') {
      this.calls.query++;
      const fault = this.takeFault('query');
      if (fault === 'lost' || fault === 'drop') return this.drop(r);
      return this.answer(r, res, fault === 'hang' ? 'hang' : null, { status: 200, body: this.#query(body), headers: { 'content-type': 'text/xml;charset=utf-8' } });
    }
    if (req.method === 'POST' && path === '/sis/realizarPago') {
      this.calls.realizarPago++;
      return this.#redirectPage(new URLSearchParams(body), res);
    }
    if (req.method === 'POST' && path === '/sim/bizum') return this.#bizumAnswer(new URLSearchParams(body), res);
    if (req.method === 'POST' && path === '/sim/3ds-method') return this.#methodPage(new URLSearchParams(body), res);
    if (req.method === 'POST' && path === '/sim/acs') return this.#acsPage(new URLSearchParams(body), res);
    if (req.method === 'POST' && path === '/sim/acs/answer') return this.#acsAnswer(new URLSearchParams(body), res);
    // the 3-D Secure 1 ACS a 1.0.2 challenge request names: only a page saying what it is (the gateway refuses 3DS 1)
    if (req.method === 'POST' && path === '/sim/acs-v1') return this.#html(res, 'ACS (3-D Secure 1)', '<p>3-D Secure 1 challenge (simulated issuer): not run by this simulator</p>');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  // ---- REST -----------------------------------------------------------------------------------------

  /**
   * A REST request: its decoded parameters checked against the reference (a violation is recorded, and
   * answered with the SIS error of the parameter once the signature is verified), the answer recorded.
   */
  #rest(endpoint: 'trataPeticion' | 'iniciaPeticion', body: string): RestOutcome {
    let params: Record<string, unknown> | null;
    try {
      params = decodeParameters(String((JSON.parse(body) as Record<string, unknown>).Ds_MerchantParameters ?? ''));
    } catch {
      params = null;
    }
    const op = endpoint === 'iniciaPeticion' ? 'iniciaPeticion' : trataOperationOf(params?.DS_MERCHANT_TRANSACTIONTYPE);
    const problems = this.spec.request(op, params);
    const out = this.#restAnswer(endpoint, body, problems);
    if (typeof out.answer.Ds_MerchantParameters === 'string') {
      const answered = decodeParameters(out.answer.Ds_MerchantParameters);
      this.spec.response(op, endpoint === 'iniciaPeticion' ? 'cardConfiguration' : answered.Ds_Response !== undefined ? 'answer' : 'challenge', answered);
    } else this.spec.response(op, 'error', out.answer);
    return out;
  }

  #restAnswer(endpoint: 'trataPeticion' | 'iniciaPeticion', body: string, problems: string[]): RestOutcome {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return { answer: { errorCode: 'SIS0007' } };
    }
    this.requests.push({ endpoint, body: msg });
    if (this.requests.length > 100) this.requests.shift();
    let params: Record<string, unknown>;
    try {
      params = decodeParameters(String(msg.Ds_MerchantParameters ?? ''));
    } catch (err) {
      return { answer: { errorCode: err instanceof SyntaxError ? 'SIS0431' : 'SIS0430' } };
    }
    const fuc = String(params.DS_MERCHANT_MERCHANTCODE ?? '');
    const terminalRaw = String(params.DS_MERCHANT_TERMINAL ?? '');
    const order = String(params.DS_MERCHANT_ORDER ?? '');
    if (!/^\d{9}$/.test(fuc)) return { answer: { errorCode: fuc ? 'SIS0009' : 'SIS0008' } };
    if (!/^\d{1,3}$/.test(terminalRaw)) return { answer: { errorCode: terminalRaw ? 'SIS0011' : 'SIS0010' } };
    if (!/^\d{4}[0-9A-Za-z]{0,8}$/.test(order)) return { answer: { errorCode: order ? 'SIS0075' : 'SIS0074' } };
    const key = this.#key(fuc, terminalRaw);
    if (!key) return { answer: { errorCode: 'SIS0026' } };
    const opened = openMessage(key, msg);
    if (!opened.ok) return { answer: { errorCode: opened.reason.startsWith('unknown Ds_SignatureVersion') ? 'SIS0429' : 'SIS0042' } };
    // a request the reference does not allow: the SIS error of the parameter it breaks
    if (problems.length > 0) return { answer: { errorCode: sisErrorOf(problems) } };
    const version = opened.version;
    const terminal = pad3(terminalRaw);
    const type = String(params.DS_MERCHANT_TRANSACTIONTYPE ?? '');
    const amountRaw = String(params.DS_MERCHANT_AMOUNT ?? '');
    if (!/^\d{1,12}$/.test(amountRaw)) return { answer: { errorCode: 'SIS0018' } };
    const amount = Number(amountRaw);
    const currency = String(params.DS_MERCHANT_CURRENCY ?? '');
    if (!/^\d{3}$/.test(currency)) return { answer: { errorCode: 'SIS0015' } };
    const common = { Ds_Order: order, Ds_MerchantCode: fuc, Ds_Terminal: terminalRaw, Ds_TransactionType: type };
    const signed = (p: Record<string, unknown>) => signMessage(version, key, p, order) as unknown as Record<string, unknown>;
    const emv = (params.DS_MERCHANT_EMV3DS ?? null) as Record<string, unknown> | null;

    if (endpoint === 'iniciaPeticion') {
      if (type !== '0' && type !== '1') return { answer: { errorCode: 'SIS0274' } };
      const pan = String(params.DS_MERCHANT_PAN ?? '');
      if (!pan) return { answer: { errorCode: 'SIS0063' } };
      if (!emv || emv.threeDSInfo !== 'CardData') return { answer: signed({ ...common, Ds_Card_PSD2: 'Y' }) };
      const path = threedsPathOf(pan);
      // a card of 3-D Secure 1 only: no EMV 3DS session (the merchant would go on with protocol 1.0.2)
      if (path.version === 'NO_3DS_v2') return { answer: signed({ ...common, Ds_EMV3DS: { protocolVersion: 'NO_3DS_v2', threeDSInfo: 'CardConfiguration' }, Ds_Card_PSD2: 'Y' }) };
      const transId = randomUUID();
      this.#threeds.set(transId, { fuc, terminal, order, pan, acsTransID: randomUUID(), notificationURL: null, methodDone: false, challengeResult: null });
      return {
        answer: signed({
          ...common,
          Ds_EMV3DS: { protocolVersion: path.version, threeDSServerTransID: transId, threeDSInfo: 'CardConfiguration', ...(path.method ? { threeDSMethodURL: `${this.url}/sim/3ds-method` } : {}) },
          Ds_Card_PSD2: 'Y',
        }),
      };
    }

    // trataPeticion
    const k = `${fuc}:${terminal}:${order}`;
    const kept = this.#orders.get(k);
    const merchantUrl = typeof params.DS_MERCHANT_MERCHANTURL === 'string' ? params.DS_MERCHANT_MERCHANTURL : null;
    const notifyOf = (answerParams: Record<string, unknown>) =>
      merchantUrl && this.#opts.notifyRest !== false ? { url: merchantUrl, fuc, terminal, version, params: answerParams } : undefined;

    if (type === '2' || type === '3' || type === '9') {
      const d = decideFollowUp(kept, type, amount, currency);
      if ('error' in d) return { answer: { errorCode: d.error } };
      const authCode = kept!.authCode;
      if (type === '2') kept!.confirmed = amount;
      if (type === '3') kept!.refunded += amount;
      if (type === '9') kept!.cancelled = true;
      kept!.operations.push({ type, amount, code: d.code, authCode, at: this.now() });
      const p = { ...common, Ds_Amount: String(amount), Ds_Currency: currency, Ds_Response: d.code, Ds_AuthorisationCode: authCode, Ds_SecurePayment: '0', Ds_Language: '1', Ds_MerchantData: '' };
      return { answer: signed(p), notify: notifyOf(p) };
    }
    if (type !== '0' && type !== '1') return { answer: { errorCode: 'SIS0274' } };
    if (kept && (kept.approved || kept.inProgress)) return { answer: { errorCode: 'SIS0051' } };

    let authenticated = false;
    let authenticationFailed = false;
    let secure = '0';
    const pan = String(params.DS_MERCHANT_PAN ?? '');
    const mpi = params.DS_MERCHANT_MPIEXTERNAL;
    if (mpi !== undefined) {
      // an authentication done by the merchant's own 3DS server (external MPI)
      if (typeof params.DS_MERCHANT_DIRECTPAYMENT === 'string') return { answer: { errorCode: 'SIS0493' } };
      const checked = checkMpiExternal(mpi);
      if ('error' in checked) return { answer: { errorCode: checked.error } };
      authenticated = true;
      secure = checked.secure;
    }
    if (emv && typeof emv.threeDSInfo === 'string') {
      if (emv.threeDSInfo === 'AuthenticationData') {
        if (typeof emv.threeDSServerTransID !== 'string') return { answer: { errorCode: 'SIS0582' } };
        const s = this.#threeds.get(emv.threeDSServerTransID);
        if (!s || s.order !== order || s.fuc !== fuc) return { answer: { errorCode: 'SIS0081' } };
        // the browser data were checked with the request (spec.ts: SIS0571-SIS0584, SIS0653)
        if (typeof emv.notificationURL !== 'string') return { answer: { errorCode: 'SIS0584' } };
        if (threedsPathOf(s.pan).v1Challenge) {
          // the issuer's ACS of 3-D Secure 1: MD and PAReq for its page (the merchant's TermUrl gets PARes)
          const md = randomUUID().replace(/-/g, '');
          const pareq = Buffer.from(`<PAReq><Merchant><acqBIN>0</acqBIN></Merchant><Purchase><xid>${md.slice(0, 20)}</xid></Purchase></PAReq>`).toString('base64');
          return { answer: signed({ ...common, Ds_Amount: String(amount), Ds_Currency: currency, Ds_EMV3DS: { threeDSInfo: 'ChallengeRequest', protocolVersion: '1.0.2', acsURL: `${this.url}/sim/acs-v1`, MD: md, PAReq: pareq } }) };
        }
        if (threedsPathOf(s.pan).challenge) {
          s.notificationURL = emv.notificationURL;
          const creq = b64urlJson({ threeDSServerTransID: emv.threeDSServerTransID, acsTransID: s.acsTransID, messageType: 'CReq', messageVersion: '2.1.0', challengeWindowSize: '05' });
          return { answer: signed({ ...common, Ds_Amount: String(amount), Ds_Currency: currency, Ds_EMV3DS: { threeDSInfo: 'ChallengeRequest', protocolVersion: '2.1.0', acsURL: `${this.url}/sim/acs`, creq } }) };
        }
        authenticated = true;
        secure = '2';
      } else if (emv.threeDSInfo === 'ChallengeResponse' && typeof emv.cres === 'string') {
        let cres: Record<string, unknown>;
        try {
          cres = JSON.parse(decodeBase64Any(emv.cres).toString('utf8')) as Record<string, unknown>;
        } catch {
          return { answer: { errorCode: 'SIS0081' } };
        }
        const s = this.#threeds.get(String(cres.threeDSServerTransID ?? ''));
        if (!s || s.order !== order || s.challengeResult === null || cres.transStatus !== s.challengeResult) return { answer: { errorCode: 'SIS0081' } };
        this.#threeds.delete(String(cres.threeDSServerTransID));
        authenticated = s.challengeResult === 'Y';
        authenticationFailed = !authenticated;
        secure = authenticated ? '2' : '0';
      } else return { answer: { errorCode: 'SIS0581' } };
    }
    const directPayment = typeof params.DS_MERCHANT_DIRECTPAYMENT === 'string' ? params.DS_MERCHANT_DIRECTPAYMENT : null;
    const d: Decision = decidePayment({
      pan,
      expiry: String(params.DS_MERCHANT_EXPIRYDATE ?? ''),
      cvv: typeof params.DS_MERCHANT_CVV2 === 'string' ? params.DS_MERCHANT_CVV2 : null,
      directPayment,
      excepSca: typeof params.DS_MERCHANT_EXCEP_SCA === 'string' ? params.DS_MERCHANT_EXCEP_SCA : null,
      cofIni: typeof params.DS_MERCHANT_COF_INI === 'string' ? params.DS_MERCHANT_COF_INI : null,
      cofTxnid: typeof params.DS_MERCHANT_COF_TXNID === 'string' ? params.DS_MERCHANT_COF_TXNID : null,
      authenticated,
      authenticationFailed,
      now: this.now(),
    });
    if (!pan) return { answer: { errorCode: 'SIS0063' } };
    if ('error' in d) return { answer: { errorCode: d.error } };
    const approved = Number(d.code) <= 99;
    const pending = (IN_PROGRESS_CODES as readonly string[]).includes(d.code);
    const authCode = approved ? String(randomInt(100000, 999999)) : '';
    const cofTxnid = approved && params.DS_MERCHANT_COF_INI === 'S' ? schemeTransactionId() : null;
    const order_: KeptOrder = {
      fuc, terminal, order, type: type as '0' | '1', amount, currency, approved, confirmed: 0, refunded: 0, cancelled: false, authCode, securePayment: secure,
      cofTxnid, inProgress: pending, merchantUrl, version, operations: [...(kept?.operations ?? []), { type, amount, code: d.code, authCode, at: this.now() }],
    };
    this.#orders.set(k, order_);
    const p: Record<string, unknown> = {
      Ds_Amount: String(amount), Ds_Currency: currency, ...common, Ds_SecurePayment: secure, Ds_Response: d.code, Ds_AuthorisationCode: authCode,
      Ds_Language: '1', Ds_Card_Country: '724', Ds_Card_Brand: pan.startsWith('5') ? '2' : '1', Ds_Card_PSD2: 'Y', Ds_ProcessedPayMethod: '3', Ds_MerchantData: '',
      ...(cofTxnid ? { Ds_Merchant_Cof_Txnid: cofTxnid } : {}),
    };
    // in progress: Redsys notifies the decision, not the wait
    return { answer: signed(p), notify: pending ? undefined : notifyOf(p) };
  }

  // ---- notifications ----------------------------------------------------------------------------------

  /** Posts a signed notification (form fields; URL-safe base64, URL-encoded values) to the merchant. */
  async #notify(url: string, fuc: string, terminal: string, version: SignatureVersion, params: Record<string, unknown>): Promise<SentNotification> {
    const key = this.#key(fuc, terminal)!;
    const now = this.now();
    const two = (n: number) => String(n).padStart(2, '0');
    const p = {
      Ds_Date: encodeURIComponent(`${two(now.getUTCDate())}/${two(now.getUTCMonth() + 1)}/${now.getUTCFullYear()}`),
      Ds_Hour: encodeURIComponent(`${two(now.getUTCHours())}:${two(now.getUTCMinutes())}`),
      ...params,
    };
    this.spec.response('notification', 'notification', p);
    const merchantParameters = Buffer.from(JSON.stringify(p)).toString('base64url');
    const order = String(params.Ds_Order);
    const signature = Buffer.from(sign(version, key, order, merchantParameters).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64url');
    const body = { Ds_SignatureVersion: version, Ds_MerchantParameters: merchantParameters, Ds_Signature: signature };
    const delivered = await this.deliver(url, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(body).toString());
    const sent: SentNotification = { url, order, status: delivered.status, error: delivered.error, body };
    this.notifications.push(sent);
    return sent;
  }

  /**
   * Decides an operation left in progress (Ds_Response 9999: the cardholder was at the issuer): the
   * issuer's answer `code` becomes its result, Redsys notifies the merchant (when the request named a
   * DS_MERCHANT_MERCHANTURL) and its query service answers it. Tests: the decision that comes later.
   */
  async decideInProgress(fuc: string, terminal: string, order: string, code = '0000'): Promise<SentNotification | null> {
    const o = this.#orders.get(`${fuc}:${pad3(terminal)}:${order}`);
    if (!o || !o.inProgress) throw new Error(`no operation in progress under ${order}`);
    const last = o.operations[o.operations.length - 1];
    o.inProgress = false;
    o.approved = Number(code) <= 99;
    o.authCode = o.approved ? String(randomInt(100000, 999999)) : '';
    o.securePayment = o.approved ? '2' : '0';
    last.code = code;
    last.authCode = o.authCode;
    last.at = this.now();
    if (!o.merchantUrl || this.#opts.notifyRest === false) return null;
    return this.track(this.#notify(o.merchantUrl, fuc, o.terminal, o.version, {
      Ds_Amount: String(last.amount), Ds_Currency: o.currency, Ds_Order: order, Ds_MerchantCode: fuc, Ds_Terminal: String(Number(o.terminal)), Ds_TransactionType: last.type,
      Ds_SecurePayment: o.securePayment, Ds_Response: code, Ds_AuthorisationCode: o.authCode, Ds_Language: '1', Ds_MerchantData: '',
    }));
  }

  /** Sends again the notification of an order's last operation (tests: a late notification). */
  async renotify(fuc: string, terminal: string, order: string, url: string): Promise<SentNotification | null> {
    const o = this.#orders.get(`${fuc}:${pad3(terminal)}:${order}`);
    if (!o) return null;
    const last = o.operations[o.operations.length - 1];
    return this.#notify(url, fuc, o.terminal, 'HMAC_SHA256_V1', {
      Ds_Amount: String(last.amount), Ds_Currency: o.currency, Ds_Order: order, Ds_MerchantCode: fuc, Ds_Terminal: String(Number(o.terminal)), Ds_TransactionType: last.type,
      Ds_SecurePayment: o.securePayment, Ds_Response: last.code, Ds_AuthorisationCode: last.authCode, Ds_Language: '1', Ds_MerchantData: '',
    });
  }

  // ---- query service ------------------------------------------------------------------------------------

  #query(body: string): string {
    const wrap = (inner: string) =>
      '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
      `<p231:consultaOperacionesResponse xmlns:p231="http://webservices.apl02.redsys.es"><consultaOperacionesReturn>${esc(inner)}</consultaOperacionesReturn></p231:consultaOperacionesResponse></soapenv:Body></soapenv:Envelope>`;
    const error = (code: string) => {
      this.spec.response('consultaOperaciones', 'error', { Ds_ErrorCode: code });
      return wrap(`<Messages><Version Ds_Version="0.0"><Message><ErrorMsg><Ds_ErrorCode>${code}</Ds_ErrorCode></ErrorMsg></Message></Version></Messages>`);
    };
    const q = readQueryRequest(body);
    const problems = this.spec.request('consultaOperaciones', q ? { Ds_MerchantCode: q.fuc, Ds_Terminal: q.terminal, Ds_Order: q.order, Ds_TransactionType: q.type } : null);
    if (!q) return error('XML0001');
    const key = this.#key(q.fuc, q.terminal);
    if (!key) return error('XML0028');
    if (q.signature !== sign('HMAC_SHA256_V1', key, q.order, q.version)) return error('XML0023');
    if (problems.length > 0) {
      // the element the XML error table names (wrong length or format)
      const field = /^\/(Ds_[A-Za-z]+)/.exec(problems[0])?.[1];
      return error(field === 'Ds_MerchantCode' ? 'XML0006' : field === 'Ds_Terminal' ? 'XML0010' : field === 'Ds_Order' ? 'XML0014' : field === 'Ds_TransactionType' ? 'XML0020' : 'XML0001');
    }
    const o = this.#orders.get(`${q.fuc}:${pad3(q.terminal)}:${q.order}`);
    const op = o?.operations.filter((x) => x.type === q.type).at(-1);
    if (!o || !op) return error('XML0024');
    const d = op.at;
    const two = (n: number) => String(n).padStart(2, '0');
    const fields: Record<string, string> = {
      Ds_MerchantCode: q.fuc, Ds_Terminal: String(Number(q.terminal)), Ds_Order: q.order, Ds_TransactionType: op.type,
      Ds_Date: `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`, Ds_Hour: `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`,
      Ds_Amount: String(op.amount), Ds_Currency: o.currency, Ds_SecurePayment: o.securePayment,
      // an operation in progress has no final state yet
      ...((IN_PROGRESS_CODES as readonly string[]).includes(op.code) ? {} : { Ds_State: 'F' }),
      Ds_Response: op.code, Ds_AuthorisationCode: op.authCode,
    };
    this.spec.response('consultaOperaciones', 'response', fields);
    return wrap(`<Messages><Version Ds_Version="0.0"><Message><Response Ds_Version="0.0">${Object.entries(fields).map(([k, v]) => `<${k}>${esc(v)}</${k}>`).join('')}</Response></Message></Version></Messages>`);
  }

  // ---- pages: 3DS method, ACS challenge, redirect payment (Bizum) -------------------------------------------

  #html(res: http.ServerResponse, title: string, body: string, status = 200): void {
    this.html(res, status, htmlDocument(title, body));
  }

  /** The issuer's 3DS method: fingerprinting, then it tells the merchant it ran (posts threeDSMethodData back). */
  #methodPage(form: URLSearchParams, res: http.ServerResponse): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(decodeBase64Any(form.get('threeDSMethodData') ?? '').toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.#html(res, '3DS method', '<p>bad threeDSMethodData</p>', 400);
    }
    const s = this.#threeds.get(String(data.threeDSServerTransID ?? ''));
    if (s) s.methodDone = true;
    const back = String(data.threeDSMethodNotificationURL ?? '');
    if (!/^https?:\/\//.test(back)) return this.#html(res, '3DS method', '<p>no notification URL</p>', 400);
    this.#html(res, '3DS method', selfPostingForm(back, { threeDSMethodData: form.get('threeDSMethodData') ?? '' }));
  }

  /** The ACS challenge page: the cardholder authenticates or not. */
  #acsPage(form: URLSearchParams, res: http.ServerResponse): void {
    const creq = form.get('creq') ?? '';
    let c: Record<string, unknown>;
    try {
      c = JSON.parse(decodeBase64Any(creq).toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.#html(res, 'ACS', '<p>bad creq</p>', 400);
    }
    const s = this.#threeds.get(String(c.threeDSServerTransID ?? ''));
    if (!s || c.acsTransID !== s.acsTransID) return this.#html(res, 'ACS', '<p>unknown transaction</p>', 400);
    this.html(res, 200, challengePage({
      title: 'Redsys simulator: 3-D Secure', heading: '3-D Secure challenge (simulated issuer)', lines: [`Card ending ${s.pan.slice(-4)}`], action: '/sim/acs/answer', hidden: { creq },
      pass: { id: 'acs-authenticate' }, fail: { id: 'acs-fail', label: 'Fail authentication' }, main: false,
    }));
  }

  /** The cardholder answered: the ACS posts `cres` to the merchant's notification URL. */
  #acsAnswer(form: URLSearchParams, res: http.ServerResponse): void {
    let c: Record<string, unknown>;
    try {
      c = JSON.parse(decodeBase64Any(form.get('creq') ?? '').toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.#html(res, 'ACS', '<p>bad creq</p>', 400);
    }
    const s = this.#threeds.get(String(c.threeDSServerTransID ?? ''));
    if (!s || !s.notificationURL) return this.#html(res, 'ACS', '<p>unknown transaction</p>', 400);
    const ok = form.get('result') === 'Y' && s.pan !== '5150796024238164';
    s.challengeResult = ok ? 'Y' : 'N';
    const cres = b64urlJson({ threeDSServerTransID: c.threeDSServerTransID, acsTransID: s.acsTransID, messageType: 'CRes', messageVersion: '2.1.0', transStatus: s.challengeResult });
    this.#html(res, 'ACS', selfPostingForm(s.notificationURL, { cres }));
  }

  /** The redirect payment page (`realizarPago`): Bizum (`PAYMETHODS=z`). */
  #redirectPage(form: URLSearchParams, res: http.ServerResponse): void {
    const msg = { Ds_SignatureVersion: form.get('Ds_SignatureVersion'), Ds_MerchantParameters: form.get('Ds_MerchantParameters'), Ds_Signature: form.get('Ds_Signature') };
    let params: Record<string, unknown>;
    try {
      params = decodeParameters(String(msg.Ds_MerchantParameters ?? ''));
    } catch {
      this.spec.request('realizarPago', null);
      return this.#html(res, 'Redsys', '<p>SIS0430</p>', 400);
    }
    const problems = this.spec.request('realizarPago', params);
    const fuc = String(params.DS_MERCHANT_MERCHANTCODE ?? '');
    const terminalRaw = String(params.DS_MERCHANT_TERMINAL ?? '');
    const key = this.#key(fuc, terminalRaw);
    if (!key) return this.#html(res, 'Redsys', '<p>SIS0026</p>', 400);
    const opened = openMessage(key, msg);
    if (!opened.ok) return this.#html(res, 'Redsys', '<p>SIS0042</p>', 400);
    if (problems.length > 0) return this.#html(res, 'Redsys', `<p>${sisErrorOf(problems)}</p>`, 400);
    if (params.DS_MERCHANT_PAYMETHODS !== 'z') return this.#html(res, 'Redsys', '<p>only Bizum (PAYMETHODS=z) is simulated on this page</p>', 400);
    const order = String(params.DS_MERCHANT_ORDER ?? '');
    if (this.#orders.get(`${fuc}:${pad3(terminalRaw)}:${order}`)?.approved) return this.#html(res, 'Redsys', '<p>SIS0051</p>', 400);
    const session = randomUUID();
    // the operation exists at Redsys while the customer is on its page: in progress, "card data being requested"
    const version = opened.version;
    const merchantUrl = (params.DS_MERCHANT_MERCHANTURL as string) ?? null;
    this.#orders.set(`${fuc}:${pad3(terminalRaw)}:${order}`, {
      fuc, terminal: pad3(terminalRaw), order, type: '0', amount: Number(params.DS_MERCHANT_AMOUNT), currency: String(params.DS_MERCHANT_CURRENCY), approved: false, confirmed: 0, refunded: 0,
      cancelled: false, authCode: '', securePayment: '0', cofTxnid: null, inProgress: true, merchantUrl, version, operations: [{ type: '0', amount: Number(params.DS_MERCHANT_AMOUNT), code: '9998', authCode: '', at: this.now() }],
    });
    this.#bizum.set(session, {
      fuc, terminalDisplay: terminalRaw, terminal: pad3(terminalRaw), order, amount: Number(params.DS_MERCHANT_AMOUNT), currency: String(params.DS_MERCHANT_CURRENCY),
      version: opened.version, merchantUrl: (params.DS_MERCHANT_MERCHANTURL as string) ?? null, urlOk: (params.DS_MERCHANT_URLOK as string) ?? null, urlKo: (params.DS_MERCHANT_URLKO as string) ?? null,
    });
    this.#html(
      res,
      'Bizum (Redsys simulator)',
      `<h1>Bizum</h1><p>Amount: ${(Number(params.DS_MERCHANT_AMOUNT) / 100).toFixed(2)}</p><form method="post" action="/sim/bizum"><input type="hidden" name="session" value="${session}">` +
        '<label>Phone <input name="phone" id="bizum-phone" value="700000000"></label> <button name="action" value="pay" id="bizum-pay">Pay</button> <button name="action" value="refuse" id="bizum-refuse">Refuse</button></form>',
    );
  }

  async #bizumAnswer(form: URLSearchParams, res: http.ServerResponse): Promise<void> {
    const s = this.#bizum.get(form.get('session') ?? '');
    if (!s) return this.#html(res, 'Bizum', '<p>unknown session</p>', 400);
    this.#bizum.delete(form.get('session')!);
    const phone = (form.get('phone') ?? '').replace(/\D/g, '');
    const paid = form.get('action') === 'pay' && phone !== '700000001' && /^[67]\d{8}$/.test(phone);
    const code = paid ? '0000' : form.get('action') === 'pay' ? '0190' : '9915';
    const authCode = paid ? String(randomInt(100000, 999999)) : '';
    this.#orders.set(`${s.fuc}:${s.terminal}:${s.order}`, {
      fuc: s.fuc, terminal: s.terminal, order: s.order, type: '0', amount: s.amount, currency: s.currency, approved: paid, confirmed: 0, refunded: 0, cancelled: false,
      authCode, securePayment: '0', cofTxnid: null, inProgress: false, merchantUrl: s.merchantUrl, version: s.version, operations: [{ type: '0', amount: s.amount, code, authCode, at: this.now() }],
    });
    if (s.merchantUrl) {
      await this.#notify(s.merchantUrl, s.fuc, s.terminal, s.version, {
        Ds_Amount: String(s.amount), Ds_Currency: s.currency, Ds_Order: s.order, Ds_MerchantCode: s.fuc, Ds_Terminal: s.terminalDisplay, Ds_TransactionType: '0',
        Ds_SecurePayment: '0', Ds_Response: code, Ds_AuthorisationCode: authCode, Ds_Language: '1', Ds_MerchantData: '', Ds_ProcessedPayMethod: '68',
      });
    }
    const back = paid ? s.urlOk : s.urlKo;
    if (back) res.writeHead(303, { location: back }).end();
    else this.#html(res, 'Bizum', paid ? '<p>Paid</p>' : '<p>Not paid</p>');
  }
}
