/**
 * The Redsys simulator against redsys-easy, an independent client of the protocol: redsys-easy signs
 * requests the simulator must accept, and verifies every answer and notification the simulator signs.
 * Also the simulator's rules: orders per merchant code and terminal, capped follow-ups, test cards, the
 * EMV 3-D Secure 2 exchange (card configuration, challenge through the ACS page), protocol errors.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedsysAPI, deserializeCres } from 'redsys-easy';
import { RedsysSimulator } from '../../src/processors/redsys/simulator/server.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';
import { openMessage, signMessage } from '../../src/processors/redsys/signature.js';

const KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';
const FUC = '999008881';
let sim: RedsysSimulator;
let url: string;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<Record<string, string>> = [];
let api: ReturnType<typeof createRedsysAPI>;
let n = 0;
const order = () => `${String(1000 + (++n % 9000))}sim${String(n).padStart(5, '0')}`;

beforeAll(async () => {
  sim = new RedsysSimulator({ merchants: { [FUC]: { '001': { key: KEY }, '002': { key: KEY } } }, clock: () => new Date('2026-06-01T10:00:00Z') });
  url = await sim.listen();
  api = createRedsysAPI({ secretKey: KEY, urls: { restTrataPeticion: `${url}/sis/rest/trataPeticionREST`, restIniciaPeticion: `${url}/sis/rest/iniciaPeticionREST`, redirect: `${url}/sis/realizarPago` } });
  receiver = http.createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      received.push(Object.fromEntries(new URLSearchParams(b)));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
});

afterAll(async () => {
  await sim.close();
  await new Promise((r) => receiver.close(r));
  // what redsys-easy sent and the simulator answered followed Redsys's reference (the requests below
  // that break it on purpose take their violations off the ledger)
  sim.spec.assertClean();
});

const base = (o: string, extra: Record<string, unknown> = {}) => ({
  DS_MERCHANT_ORDER: o, DS_MERCHANT_MERCHANTCODE: FUC, DS_MERCHANT_TERMINAL: '1', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_AMOUNT: '1000', DS_MERCHANT_TRANSACTIONTYPE: '0', ...extra,
});
const card = (pan: string, extra: Record<string, unknown> = {}) => ({ DS_MERCHANT_PAN: pan, DS_MERCHANT_EXPIRYDATE: '3012', DS_MERCHANT_CVV2: '123', ...extra });

describe('redsys-easy as a client of the simulator', () => {
  it('pays, pre-authorizes, confirms, refunds and cancels; every answer verifies under redsys-easy', async () => {
    const o1 = order();
    const paid = await api.restTrataPeticion(base(o1, card(SIM_CARDS.APPROVED)) as never);
    expect(paid).toMatchObject({ Ds_Order: o1, Ds_Response: '0000', Ds_Amount: '1000', Ds_AuthorisationCode: expect.stringMatching(/^\d{6}$/) });
    const refund = await api.restTrataPeticion(base(o1, { DS_MERCHANT_TRANSACTIONTYPE: '3', DS_MERCHANT_AMOUNT: '400' }) as never);
    expect(refund).toMatchObject({ Ds_Response: '0900', Ds_Amount: '400' });
    await api.restTrataPeticion(base(o1, { DS_MERCHANT_TRANSACTIONTYPE: '3', DS_MERCHANT_AMOUNT: '600' }) as never);
    // nothing left to refund: the cap is the payment
    await expect(api.restTrataPeticion(base(o1, { DS_MERCHANT_TRANSACTIONTYPE: '3', DS_MERCHANT_AMOUNT: '1' }) as never)).rejects.toMatchObject({ code: 'SIS0057' });
    expect(sim.order(FUC, '1', o1)).toMatchObject({ refunded: 1000, amount: 1000 });

    const o2 = order();
    expect(await api.restTrataPeticion(base(o2, card(SIM_CARDS.APPROVED, { DS_MERCHANT_TRANSACTIONTYPE: '1' })) as never)).toMatchObject({ Ds_Response: '0000', Ds_TransactionType: '1' });
    await expect(api.restTrataPeticion(base(o2, { DS_MERCHANT_TRANSACTIONTYPE: '2', DS_MERCHANT_AMOUNT: '1001' }) as never)).rejects.toMatchObject({ code: 'SIS0062' });
    expect(await api.restTrataPeticion(base(o2, { DS_MERCHANT_TRANSACTIONTYPE: '2', DS_MERCHANT_AMOUNT: '700' }) as never)).toMatchObject({ Ds_Response: '0900', Ds_Amount: '700' });
    await expect(api.restTrataPeticion(base(o2, { DS_MERCHANT_TRANSACTIONTYPE: '9' }) as never)).rejects.toMatchObject({ code: 'SIS0072' });
    // the refund of a confirmed pre-authorization is capped by the confirmed amount
    await expect(api.restTrataPeticion(base(o2, { DS_MERCHANT_TRANSACTIONTYPE: '3', DS_MERCHANT_AMOUNT: '800' }) as never)).rejects.toMatchObject({ code: 'SIS0057' });

    const o3 = order();
    await api.restTrataPeticion(base(o3, card(SIM_CARDS.APPROVED, { DS_MERCHANT_TRANSACTIONTYPE: '1' })) as never);
    expect(await api.restTrataPeticion(base(o3, { DS_MERCHANT_TRANSACTIONTYPE: '9' }) as never)).toMatchObject({ Ds_Response: '0400' });
    // Redsys's cancellation errors: already cancelled (SIS0222), nothing to cancel (a payment is no pre-authorization: SIS0225)
    await expect(api.restTrataPeticion(base(o3, { DS_MERCHANT_TRANSACTIONTYPE: '9' }) as never)).rejects.toMatchObject({ code: 'SIS0222' });
    await expect(api.restTrataPeticion(base(o1, { DS_MERCHANT_TRANSACTIONTYPE: '9' }) as never)).rejects.toMatchObject({ code: 'SIS0225' });
    // a refund needs a payment; a confirmation a pre-authorization
    await expect(api.restTrataPeticion(base(order(), { DS_MERCHANT_TRANSACTIONTYPE: '3' }) as never)).rejects.toMatchObject({ code: 'SIS0054' });
    await expect(api.restTrataPeticion(base(o1, { DS_MERCHANT_TRANSACTIONTYPE: '2' }) as never)).rejects.toMatchObject({ code: 'SIS0059' });
    // an order number is used once per merchant code and terminal, not across terminals
    await expect(api.restTrataPeticion(base(o1, card(SIM_CARDS.APPROVED)) as never)).rejects.toMatchObject({ code: 'SIS0051' });
    expect(await api.restTrataPeticion(base(o1, card(SIM_CARDS.APPROVED, { DS_MERCHANT_TERMINAL: '2' })) as never)).toMatchObject({ Ds_Response: '0000' });
  });

  it('answers the documented code of each test card', async () => {
    const code = async (pan: string, extra: Record<string, unknown> = {}) => {
      try {
        return ((await api.restTrataPeticion(base(order(), card(pan, extra)) as never)) as { Ds_Response: string }).Ds_Response;
      } catch (err) {
        return (err as { code?: string; response?: { Ds_Response?: string } }).response?.Ds_Response ?? (err as { code: string }).code;
      }
    };
    expect(await code(SIM_CARDS.REFUSED)).toBe('0190');
    expect(await code(SIM_CARDS.INSUFFICIENT_FUNDS)).toBe('0116');
    expect(await code(SIM_CARDS.NOT_SUPPORTED)).toBe('0180');
    expect(await code(SIM_CARDS.FRAUD)).toBe('0202');
    expect(await code(SIM_CARDS.CVV_FAIL)).toBe('0129');
    expect(await code(SIM_CARDS.SOFT_DECLINE)).toBe('0195');
    expect(await code(SIM_CARDS.SOFT_DECLINE, { DS_MERCHANT_DIRECTPAYMENT: 'moto', DS_MERCHANT_TERMINAL: '2' })).toBe('0000');
    expect(await code(SIM_CARDS.APPROVED, { DS_MERCHANT_EXPIRYDATE: '2505' })).toBe('0101');
    expect(await code('4548812049400005')).toBe('SIS0253');
    // merchant-initiated: without the first payment's id SIS0617, with it approved, a bad exemption SIS0616
    expect(await code(SIM_CARDS.APPROVED, { DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_DIRECTPAYMENT: 'true' })).toBe('SIS0617');
    expect(await code(SIM_CARDS.APPROVED, { DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TXNID: '123', DS_MERCHANT_DIRECTPAYMENT: 'true' })).toBe('0000');
    // an exemption Redsys does not define breaks its reference: SIS0616, and the simulator records it
    expect(await code(SIM_CARDS.APPROVED, { DS_MERCHANT_EXCEP_SCA: 'XYZ' })).toBe('SIS0616');
    expect(sim.spec.violations.splice(0)).toEqual([expect.stringContaining('/DS_MERCHANT_EXCEP_SCA must be equal to one of the allowed values')]);
  });

  it('runs the EMV 3-D Secure 2 challenge of the published transcript, with the ACS page posting cres to the merchant', async () => {
    const o = order();
    const config = await api.restIniciaPeticion(base(o, card(SIM_CARDS.CHALLENGE, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'CardData' } })) as never);
    const emv = (config as unknown as { Ds_EMV3DS: Record<string, string> }).Ds_EMV3DS;
    expect(config).toMatchObject({ Ds_Card_PSD2: 'Y', Ds_EMV3DS: { protocolVersion: '2.1.0', threeDSInfo: 'CardConfiguration', threeDSMethodURL: `${url}/sim/3ds-method` } });
    const browser = { browserAcceptHeader: 'text/html', browserUserAgent: 'test', browserJavaEnabled: false, browserJavascriptEnabled: true, browserLanguage: 'es-ES', browserColorDepth: '24', browserScreenHeight: '800', browserScreenWidth: '1200', browserTZ: '-60' };
    // without browserJavascriptEnabled: SIS0653
    const partial: Record<string, unknown> = { ...browser };
    delete partial.browserJavascriptEnabled;
    await expect(api.restTrataPeticion(base(o, card(SIM_CARDS.CHALLENGE, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'AuthenticationData', protocolVersion: '2.1.0', threeDSServerTransID: emv.threeDSServerTransID, notificationURL: receiverUrl, threeDSCompInd: 'Y', ...partial } })) as never)).rejects.toMatchObject({ code: 'SIS0653' });
    expect(sim.spec.violations.splice(0)).toEqual([expect.stringContaining("/DS_MERCHANT_EMV3DS must have required property 'browserJavascriptEnabled'")]);
    // each missing browser field is named by its own SIS error
    for (const [field, sis] of [['browserAcceptHeader', 'SIS0573'], ['browserTZ', 'SIS0580']] as const) {
      const without: Record<string, unknown> = { ...browser };
      delete without[field];
      await expect(api.restTrataPeticion(base(o, card(SIM_CARDS.CHALLENGE, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'AuthenticationData', protocolVersion: '2.1.0', threeDSServerTransID: emv.threeDSServerTransID, notificationURL: receiverUrl, threeDSCompInd: 'Y', ...without } })) as never)).rejects.toMatchObject({ code: sis });
      expect(sim.spec.violations.splice(0)).toHaveLength(1);
    }
    const challenge = await api.restTrataPeticion(base(o, card(SIM_CARDS.CHALLENGE, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'AuthenticationData', protocolVersion: '2.1.0', threeDSServerTransID: emv.threeDSServerTransID, notificationURL: receiverUrl, threeDSCompInd: 'Y', ...browser } })) as never);
    const req = (challenge as unknown as { Ds_EMV3DS: { threeDSInfo: string; acsURL: string; creq: string } }).Ds_EMV3DS;
    expect(req).toMatchObject({ threeDSInfo: 'ChallengeRequest', acsURL: `${url}/sim/acs` });
    // the cardholder authenticates on the ACS page, which posts cres to the merchant's notification URL
    const page = await fetch(req.acsURL, { method: 'POST', body: new URLSearchParams({ creq: req.creq }) });
    expect(await page.text()).toContain('acs-authenticate');
    const posted = await (await fetch(`${url}/sim/acs/answer`, { method: 'POST', body: new URLSearchParams({ creq: req.creq, result: 'Y' }) })).text();
    expect(posted).toContain(`action="${receiverUrl}"`);
    const cres = /name="cres" value="([^"]+)"/.exec(posted)![1];
    expect(deserializeCres(cres)).toMatchObject({ messageType: 'CRes', transStatus: 'Y', threeDSServerTransID: emv.threeDSServerTransID });
    const final = await api.restTrataPeticion(base(o, card(SIM_CARDS.CHALLENGE, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'ChallengeResponse', protocolVersion: '2.1.0', cres } })) as never);
    expect(final).toMatchObject({ Ds_Response: '0000', Ds_SecurePayment: '2' });
  });

  it('answers frictionless cards at once, and tells which cards have a 3DS method', async () => {
    const o = order();
    const config = await api.restIniciaPeticion(base(o, card(SIM_CARDS.FRICTIONLESS_NO_METHOD, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'CardData' } })) as never);
    const emv = (config as unknown as { Ds_EMV3DS: Record<string, string> }).Ds_EMV3DS;
    expect(emv.threeDSMethodURL).toBeUndefined();
    const browser = { browserAcceptHeader: 'a', browserUserAgent: 'b', browserJavaEnabled: false, browserJavascriptEnabled: true, browserLanguage: 'es-ES', browserColorDepth: '24', browserScreenHeight: '800', browserScreenWidth: '1200', browserTZ: '-60' };
    const done = await api.restTrataPeticion(base(o, card(SIM_CARDS.FRICTIONLESS_NO_METHOD, { DS_MERCHANT_EMV3DS: { threeDSInfo: 'AuthenticationData', protocolVersion: '2.1.0', threeDSServerTransID: emv.threeDSServerTransID, notificationURL: receiverUrl, threeDSCompInd: 'N', ...browser } })) as never);
    expect(done).toMatchObject({ Ds_Response: '0000', Ds_SecurePayment: '2' });
  });

  it('sends signed notifications that redsys-easy verifies', async () => {
    const before = received.length;
    const o = order();
    await api.restTrataPeticion(base(o, card(SIM_CARDS.APPROVED, { DS_MERCHANT_MERCHANTURL: receiverUrl })) as never);
    await sim.notificationsSent();
    expect(received.length).toBe(before + 1);
    const body = received.at(-1)!;
    expect(body.Ds_Signature).not.toMatch(/[+/]/);
    const verified = api.processRestNotification(body as never);
    expect(verified).toMatchObject({ Ds_Order: o, Ds_Response: '0000' });
    // and a tampered one is refused
    expect(() => api.processRestNotification({ ...body, Ds_MerchantParameters: body.Ds_MerchantParameters.slice(0, -2) + 'fQ' } as never)).toThrow();
  });
});

describe('protocol errors, V2 and faults', () => {
  const post = async (message: unknown) => (await fetch(`${url}/sis/rest/trataPeticionREST`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) })).json() as Promise<Record<string, unknown>>;

  it('SIS0042 for a bad signature, SIS0026 for an unknown terminal', async () => {
    const o = order();
    const m = signMessage('HMAC_SHA256_V1', KEY, base(o, card(SIM_CARDS.APPROVED)), o);
    expect(await post({ ...m, Ds_Signature: signMessage('HMAC_SHA256_V1', 'Zq7HjrUOBfKmC576ILgskD5srU870gJ7', base(o, card(SIM_CARDS.APPROVED)), o).Ds_Signature })).toEqual({ errorCode: 'SIS0042' });
    const o2 = order();
    expect(await post(signMessage('HMAC_SHA256_V1', KEY, base(o2, card(SIM_CARDS.APPROVED, { DS_MERCHANT_TERMINAL: '7' })), o2))).toEqual({ errorCode: 'SIS0026' });
  });

  it('speaks HMAC_SHA512_V2 and answers in the version asked', async () => {
    const o = order();
    const answer = await post(signMessage('HMAC_SHA512_V2', KEY, base(o, card(SIM_CARDS.APPROVED)), o));
    expect(answer.Ds_SignatureVersion).toBe('HMAC_SHA512_V2');
    expect(openMessage(KEY, answer as never)).toMatchObject({ ok: true, params: { Ds_Response: '0000', Ds_Order: o } });
  });

  it('a tampered answer no longer verifies; a dropped one never arrives (but the payment was made)', async () => {
    sim.injectFault({ kind: 'tamper' });
    const o = order();
    await expect(api.restTrataPeticion(base(o, card(SIM_CARDS.REFUSED)) as never)).rejects.toThrow();
    expect(sim.order(FUC, '1', o)).toMatchObject({ approved: false });
    sim.injectFault({ kind: 'drop' });
    const o2 = order();
    await expect(api.restTrataPeticion(base(o2, card(SIM_CARDS.APPROVED)) as never)).rejects.toThrow();
    expect(sim.order(FUC, '1', o2)).toMatchObject({ approved: true });
    sim.injectFault({ kind: 'lost' });
    const o3 = order();
    await expect(api.restTrataPeticion(base(o3, card(SIM_CARDS.APPROVED)) as never)).rejects.toThrow();
    expect(sim.order(FUC, '1', o3)).toBeUndefined();
  });
});
