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
import { challengePage, esc, htmlDocument, selfPostingForm } from '../../kit/simulator.js';
import { readQueryRequest } from '../query.js';
import { decodeBase64Any, decodeParameters, openMessage, sign, type SignatureVersion } from '../signature.js';
import { IN_PROGRESS_CODES } from './rules.js';
import { sisErrorOf } from '../spec.js';
import { type SentNotification, pad3, b64urlJson } from './model.js';
import { RedsysSimulatorCore } from './core.js';

export { type RedsysSimTerminal, type RedsysSimulatorOptions, type NotificationTransport, type RedsysFault, type SentNotification } from './model.js';

export class RedsysSimulator extends RedsysSimulatorCore {
  // ---- notifications ----------------------------------------------------------------------------------

  /** Posts a signed notification (form fields; URL-safe base64, URL-encoded values) to the merchant. */
  protected override async _notify(url: string, fuc: string, terminal: string, version: SignatureVersion, params: Record<string, unknown>): Promise<SentNotification> {
    const key = this._key(fuc, terminal)!;
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
    const o = this._orders.get(`${fuc}:${pad3(terminal)}:${order}`);
    if (!o || !o.inProgress) throw new Error(`no operation in progress under ${order}`);
    const last = o.operations[o.operations.length - 1];
    o.inProgress = false;
    o.approved = Number(code) <= 99;
    o.authCode = o.approved ? String(randomInt(100000, 999999)) : '';
    o.securePayment = o.approved ? '2' : '0';
    last.code = code;
    last.authCode = o.authCode;
    last.at = this.now();
    if (!o.merchantUrl || this._opts.notifyRest === false) return null;
    return this.track(this._notify(o.merchantUrl, fuc, o.terminal, o.version, {
      Ds_Amount: String(last.amount), Ds_Currency: o.currency, Ds_Order: order, Ds_MerchantCode: fuc, Ds_Terminal: String(Number(o.terminal)), Ds_TransactionType: last.type,
      Ds_SecurePayment: o.securePayment, Ds_Response: code, Ds_AuthorisationCode: o.authCode, Ds_Language: '1', Ds_MerchantData: '',
    }));
  }

  /** Sends again the notification of an order's last operation (tests: a late notification). */
  async renotify(fuc: string, terminal: string, order: string, url: string): Promise<SentNotification | null> {
    const o = this._orders.get(`${fuc}:${pad3(terminal)}:${order}`);
    if (!o) return null;
    const last = o.operations[o.operations.length - 1];
    return this._notify(url, fuc, o.terminal, 'HMAC_SHA256_V1', {
      Ds_Amount: String(last.amount), Ds_Currency: o.currency, Ds_Order: order, Ds_MerchantCode: fuc, Ds_Terminal: String(Number(o.terminal)), Ds_TransactionType: last.type,
      Ds_SecurePayment: o.securePayment, Ds_Response: last.code, Ds_AuthorisationCode: last.authCode, Ds_Language: '1', Ds_MerchantData: '',
    });
  }

  // ---- query service ------------------------------------------------------------------------------------

  protected override _query(body: string): string {
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
    const key = this._key(q.fuc, q.terminal);
    if (!key) return error('XML0028');
    if (q.signature !== sign('HMAC_SHA256_V1', key, q.order, q.version)) return error('XML0023');
    if (problems.length > 0) {
      // the element the XML error table names (wrong length or format)
      const field = /^\/(Ds_[A-Za-z]+)/.exec(problems[0])?.[1];
      return error(field === 'Ds_MerchantCode' ? 'XML0006' : field === 'Ds_Terminal' ? 'XML0010' : field === 'Ds_Order' ? 'XML0014' : field === 'Ds_TransactionType' ? 'XML0020' : 'XML0001');
    }
    const o = this._orders.get(`${q.fuc}:${pad3(q.terminal)}:${q.order}`);
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

  protected override _html(res: http.ServerResponse, title: string, body: string, status = 200): void {
    this.html(res, status, htmlDocument(title, body));
  }

  /** The issuer's 3DS method: fingerprinting, then it tells the merchant it ran (posts threeDSMethodData back). */
  protected override _methodPage(form: URLSearchParams, res: http.ServerResponse): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(decodeBase64Any(form.get('threeDSMethodData') ?? '').toString('utf8')) as Record<string, unknown>;
    } catch {
      return this._html(res, '3DS method', '<p>bad threeDSMethodData</p>', 400);
    }
    const s = this._threeds.get(String(data.threeDSServerTransID ?? ''));
    if (s) s.methodDone = true;
    const back = String(data.threeDSMethodNotificationURL ?? '');
    if (!/^https?:\/\//.test(back)) return this._html(res, '3DS method', '<p>no notification URL</p>', 400);
    this._html(res, '3DS method', selfPostingForm(back, { threeDSMethodData: form.get('threeDSMethodData') ?? '' }));
  }

  /** The ACS challenge page: the cardholder authenticates or not. */
  protected override _acsPage(form: URLSearchParams, res: http.ServerResponse): void {
    const creq = form.get('creq') ?? '';
    let c: Record<string, unknown>;
    try {
      c = JSON.parse(decodeBase64Any(creq).toString('utf8')) as Record<string, unknown>;
    } catch {
      return this._html(res, 'ACS', '<p>bad creq</p>', 400);
    }
    const s = this._threeds.get(String(c.threeDSServerTransID ?? ''));
    if (!s || c.acsTransID !== s.acsTransID) return this._html(res, 'ACS', '<p>unknown transaction</p>', 400);
    this.html(res, 200, challengePage({
      title: 'Redsys simulator: 3-D Secure', heading: '3-D Secure challenge (simulated issuer)', lines: [`Card ending ${s.pan.slice(-4)}`], action: '/sim/acs/answer', hidden: { creq },
      pass: { id: 'acs-authenticate' }, fail: { id: 'acs-fail', label: 'Fail authentication' }, main: false,
    }));
  }

  /** The cardholder answered: the ACS posts `cres` to the merchant's notification URL. */
  protected override _acsAnswer(form: URLSearchParams, res: http.ServerResponse): void {
    let c: Record<string, unknown>;
    try {
      c = JSON.parse(decodeBase64Any(form.get('creq') ?? '').toString('utf8')) as Record<string, unknown>;
    } catch {
      return this._html(res, 'ACS', '<p>bad creq</p>', 400);
    }
    const s = this._threeds.get(String(c.threeDSServerTransID ?? ''));
    if (!s || !s.notificationURL) return this._html(res, 'ACS', '<p>unknown transaction</p>', 400);
    const ok = form.get('result') === 'Y' && s.pan !== '5150796024238164';
    s.challengeResult = ok ? 'Y' : 'N';
    const cres = b64urlJson({ threeDSServerTransID: c.threeDSServerTransID, acsTransID: s.acsTransID, messageType: 'CRes', messageVersion: '2.1.0', transStatus: s.challengeResult });
    this._html(res, 'ACS', selfPostingForm(s.notificationURL, { cres }));
  }

  /** The redirect payment page (`realizarPago`): Bizum (`PAYMETHODS=z`). */
  protected override _redirectPage(form: URLSearchParams, res: http.ServerResponse): void {
    const msg = { Ds_SignatureVersion: form.get('Ds_SignatureVersion'), Ds_MerchantParameters: form.get('Ds_MerchantParameters'), Ds_Signature: form.get('Ds_Signature') };
    let params: Record<string, unknown>;
    try {
      params = decodeParameters(String(msg.Ds_MerchantParameters ?? ''));
    } catch {
      this.spec.request('realizarPago', null);
      return this._html(res, 'Redsys', '<p>SIS0430</p>', 400);
    }
    const problems = this.spec.request('realizarPago', params);
    const fuc = String(params.DS_MERCHANT_MERCHANTCODE ?? '');
    const terminalRaw = String(params.DS_MERCHANT_TERMINAL ?? '');
    const key = this._key(fuc, terminalRaw);
    if (!key) return this._html(res, 'Redsys', '<p>SIS0026</p>', 400);
    const opened = openMessage(key, msg);
    if (!opened.ok) return this._html(res, 'Redsys', '<p>SIS0042</p>', 400);
    if (problems.length > 0) return this._html(res, 'Redsys', `<p>${sisErrorOf(problems)}</p>`, 400);
    if (params.DS_MERCHANT_PAYMETHODS !== 'z') return this._html(res, 'Redsys', '<p>only Bizum (PAYMETHODS=z) is simulated on this page</p>', 400);
    const order = String(params.DS_MERCHANT_ORDER ?? '');
    if (this._orders.get(`${fuc}:${pad3(terminalRaw)}:${order}`)?.approved) return this._html(res, 'Redsys', '<p>SIS0051</p>', 400);
    const session = randomUUID();
    // the operation exists at Redsys while the customer is on its page: in progress, "card data being requested"
    const version = opened.version;
    const merchantUrl = (params.DS_MERCHANT_MERCHANTURL as string) ?? null;
    this._orders.set(`${fuc}:${pad3(terminalRaw)}:${order}`, {
      fuc, terminal: pad3(terminalRaw), order, type: '0', amount: Number(params.DS_MERCHANT_AMOUNT), currency: String(params.DS_MERCHANT_CURRENCY), approved: false, confirmed: 0, refunded: 0,
      cancelled: false, authCode: '', securePayment: '0', cofTxnid: null, inProgress: true, merchantUrl, version, operations: [{ type: '0', amount: Number(params.DS_MERCHANT_AMOUNT), code: '9998', authCode: '', at: this.now() }],
    });
    this._bizum.set(session, {
      fuc, terminalDisplay: terminalRaw, terminal: pad3(terminalRaw), order, amount: Number(params.DS_MERCHANT_AMOUNT), currency: String(params.DS_MERCHANT_CURRENCY),
      version: opened.version, merchantUrl: (params.DS_MERCHANT_MERCHANTURL as string) ?? null, urlOk: (params.DS_MERCHANT_URLOK as string) ?? null, urlKo: (params.DS_MERCHANT_URLKO as string) ?? null,
    });
    this._html(
      res,
      'Bizum (Redsys simulator)',
      `<h1>Bizum</h1><p>Amount: ${(Number(params.DS_MERCHANT_AMOUNT) / 100).toFixed(2)}</p><form method="post" action="/sim/bizum"><input type="hidden" name="session" value="${session}">` +
        '<label>Phone <input name="phone" id="bizum-phone" value="700000000"></label> <button name="action" value="pay" id="bizum-pay">Pay</button> <button name="action" value="refuse" id="bizum-refuse">Refuse</button></form>',
    );
  }

  protected override async _bizumAnswer(form: URLSearchParams, res: http.ServerResponse): Promise<void> {
    const s = this._bizum.get(form.get('session') ?? '');
    if (!s) return this._html(res, 'Bizum', '<p>unknown session</p>', 400);
    this._bizum.delete(form.get('session')!);
    const phone = (form.get('phone') ?? '').replace(/\D/g, '');
    const paid = form.get('action') === 'pay' && phone !== '700000001' && /^[67]\d{8}$/.test(phone);
    const code = paid ? '0000' : form.get('action') === 'pay' ? '0190' : '9915';
    const authCode = paid ? String(randomInt(100000, 999999)) : '';
    this._orders.set(`${s.fuc}:${s.terminal}:${s.order}`, {
      fuc: s.fuc, terminal: s.terminal, order: s.order, type: '0', amount: s.amount, currency: s.currency, approved: paid, confirmed: 0, refunded: 0, cancelled: false,
      authCode, securePayment: '0', cofTxnid: null, inProgress: false, merchantUrl: s.merchantUrl, version: s.version, operations: [{ type: '0', amount: s.amount, code, authCode, at: this.now() }],
    });
    if (s.merchantUrl) {
      await this._notify(s.merchantUrl, s.fuc, s.terminal, s.version, {
        Ds_Amount: String(s.amount), Ds_Currency: s.currency, Ds_Order: s.order, Ds_MerchantCode: s.fuc, Ds_Terminal: s.terminalDisplay, Ds_TransactionType: '0',
        Ds_SecurePayment: '0', Ds_Response: code, Ds_AuthorisationCode: authCode, Ds_Language: '1', Ds_MerchantData: '', Ds_ProcessedPayMethod: '68',
      });
    }
    const back = paid ? s.urlOk : s.urlKo;
    if (back) res.writeHead(303, { location: back }).end();
    else this._html(res, 'Bizum', paid ? '<p>Paid</p>' : '<p>Not paid</p>');
  }
}
