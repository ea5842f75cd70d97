/** The Redsys simulator's state, routing and REST operations (server.ts gathers it). */
import { randomInt, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { SimulatorBase, type SimRequest } from '../../kit/simulator.js';
import { decodeBase64Any, decodeParameters, openMessage, signMessage, type SignatureVersion } from '../signature.js';
import { decideFollowUp, decidePayment, IN_PROGRESS_CODES, threedsPathOf, type Decision } from './rules.js';
import { schemeTransactionId } from '../../scheme-ids.js';
import { REDSYS_SPEC, sisErrorOf, trataOperationOf } from '../spec.js';
import { type RedsysSimulatorOptions, type KeptOrder, type ThreeDSSession, type BizumSession, type SentNotification, pad3, b64urlJson, type RestOutcome, checkMpiExternal } from './model.js';

/** The Redsys simulator's state, routing and REST operations; `RedsysSimulator` (server.ts) adds notifications, the query service and the pages. */
export abstract class RedsysSimulatorCore extends SimulatorBase<'trataPeticion' | 'iniciaPeticion' | 'query'> {
  protected abstract _acsAnswer(form: URLSearchParams, res: http.ServerResponse): void;
  protected abstract _acsPage(form: URLSearchParams, res: http.ServerResponse): void;
  protected abstract _bizumAnswer(form: URLSearchParams, res: http.ServerResponse): Promise<void>;
  protected abstract _html(res: http.ServerResponse, title: string, body: string, status?: number): void;
  protected abstract _methodPage(form: URLSearchParams, res: http.ServerResponse): void;
  protected abstract _notify(url: string, fuc: string, terminal: string, version: SignatureVersion, params: Record<string, unknown>): Promise<SentNotification>;
  protected abstract _query(body: string): string;
  protected abstract _redirectPage(form: URLSearchParams, res: http.ServerResponse): void;

  protected readonly _opts: RedsysSimulatorOptions;
  protected readonly _orders = new Map<string, KeptOrder>();
  protected readonly _threeds = new Map<string, ThreeDSSession>();
  protected readonly _bizum = new Map<string, BizumSession>();
  /** Notifications sent (tests read them). */
  readonly notifications: SentNotification[] = [];
  /** The last REST requests received, as sent (tests check them with other implementations). */
  readonly requests: Array<{ endpoint: string; body: Record<string, unknown> }> = [];
  /** Requests received per endpoint. */
  readonly calls = { trataPeticion: 0, iniciaPeticion: 0, query: 0, realizarPago: 0 };

  constructor(opts: RedsysSimulatorOptions) {
    super({ spec: REDSYS_SPEC, latencyMs: opts.latencyMs, clock: opts.clock, webhookHeaders: opts.notifyHeaders, defaultEndpoint: 'trataPeticion' });
    this._opts = opts;
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
    return this._orders.get(`${fuc}:${pad3(terminal)}:${order}`);
  }

  get orderCount(): number {
    return this._orders.size;
  }

  protected _key(fuc: string, terminal: string): string | null {
    return this._opts.merchants[fuc]?.[pad3(terminal)]?.key ?? null;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const { path, raw: body } = r;
    const req = { method: r.method };
    if (req.method === 'POST' && (path === '/sis/rest/trataPeticionREST' || path === '/sis/rest/iniciaPeticionREST')) {
      const endpoint = path.endsWith('trataPeticionREST') ? 'trataPeticion' : 'iniciaPeticion';
      this.calls[endpoint]++;
      const fault = this.takeFault(endpoint);
      if (fault === 'lost') return this.drop(r);
      const out = this._rest(endpoint, body);
      const n = out.notify;
      const signed = typeof out.answer.Ds_MerchantParameters === 'string' ? out.answer.Ds_MerchantParameters : null;
      return this.answer(r, res, fault, {
        status: 200,
        body: out.answer,
        notify: n ? async () => void (await this._notify(n.url, n.fuc, n.terminal, n.version, n.params)) : null,
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
      return this.answer(r, res, fault === 'hang' ? 'hang' : null, { status: 200, body: this._query(body), headers: { 'content-type': 'text/xml;charset=utf-8' } });
    }
    if (req.method === 'POST' && path === '/sis/realizarPago') {
      this.calls.realizarPago++;
      return this._redirectPage(new URLSearchParams(body), res);
    }
    if (req.method === 'POST' && path === '/sim/bizum') return this._bizumAnswer(new URLSearchParams(body), res);
    if (req.method === 'POST' && path === '/sim/3ds-method') return this._methodPage(new URLSearchParams(body), res);
    if (req.method === 'POST' && path === '/sim/acs') return this._acsPage(new URLSearchParams(body), res);
    if (req.method === 'POST' && path === '/sim/acs/answer') return this._acsAnswer(new URLSearchParams(body), res);
    // the 3-D Secure 1 ACS a 1.0.2 challenge request names: only a page saying what it is (the gateway refuses 3DS 1)
    if (req.method === 'POST' && path === '/sim/acs-v1') return this._html(res, 'ACS (3-D Secure 1)', '<p>3-D Secure 1 challenge (simulated issuer): not run by this simulator</p>');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  // ---- REST -----------------------------------------------------------------------------------------

  /**
   * A REST request: its decoded parameters checked against the reference (a violation is recorded, and
   * answered with the SIS error of the parameter once the signature is verified), the answer recorded.
   */
  protected _rest(endpoint: 'trataPeticion' | 'iniciaPeticion', body: string): RestOutcome {
    let params: Record<string, unknown> | null;
    try {
      params = decodeParameters(String((JSON.parse(body) as Record<string, unknown>).Ds_MerchantParameters ?? ''));
    } catch {
      params = null;
    }
    const op = endpoint === 'iniciaPeticion' ? 'iniciaPeticion' : trataOperationOf(params?.DS_MERCHANT_TRANSACTIONTYPE);
    const problems = this.spec.request(op, params);
    const out = this._restAnswer(endpoint, body, problems);
    if (typeof out.answer.Ds_MerchantParameters === 'string') {
      const answered = decodeParameters(out.answer.Ds_MerchantParameters);
      this.spec.response(op, endpoint === 'iniciaPeticion' ? 'cardConfiguration' : answered.Ds_Response !== undefined ? 'answer' : 'challenge', answered);
    } else this.spec.response(op, 'error', out.answer);
    return out;
  }

  protected _restAnswer(endpoint: 'trataPeticion' | 'iniciaPeticion', body: string, problems: string[]): RestOutcome {
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
    const key = this._key(fuc, terminalRaw);
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
      this._threeds.set(transId, { fuc, terminal, order, pan, acsTransID: randomUUID(), notificationURL: null, methodDone: false, challengeResult: null });
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
    const kept = this._orders.get(k);
    const merchantUrl = typeof params.DS_MERCHANT_MERCHANTURL === 'string' ? params.DS_MERCHANT_MERCHANTURL : null;
    const notifyOf = (answerParams: Record<string, unknown>) =>
      merchantUrl && this._opts.notifyRest !== false ? { url: merchantUrl, fuc, terminal, version, params: answerParams } : undefined;

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
        const s = this._threeds.get(emv.threeDSServerTransID);
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
        const s = this._threeds.get(String(cres.threeDSServerTransID ?? ''));
        if (!s || s.order !== order || s.challengeResult === null || cres.transStatus !== s.challengeResult) return { answer: { errorCode: 'SIS0081' } };
        this._threeds.delete(String(cres.threeDSServerTransID));
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
    this._orders.set(k, order_);
    const p: Record<string, unknown> = {
      Ds_Amount: String(amount), Ds_Currency: currency, ...common, Ds_SecurePayment: secure, Ds_Response: d.code, Ds_AuthorisationCode: authCode,
      Ds_Language: '1', Ds_Card_Country: '724', Ds_Card_Brand: pan.startsWith('5') ? '2' : '1', Ds_Card_PSD2: 'Y', Ds_ProcessedPayMethod: '3', Ds_MerchantData: '',
      ...(cofTxnid ? { Ds_Merchant_Cof_Txnid: cofTxnid } : {}),
    };
    // in progress: Redsys notifies the decision, not the wait
    return { answer: signed(p), notify: pending ? undefined : notifyOf(p) };
  }

}
