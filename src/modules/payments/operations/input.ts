/** Input rules of the payment operations beyond the schemas, and small pure helpers they share. */
import { badRequest } from '../../../platform/errors/errors.js';
import type { DpanData, ThreeDSResult } from '../../../processors/index.js';
import type { OrderStatus } from '../order-states.js';
import { nullIfEmpty, THREEDS_VERSION } from '../payments.domain.js';
import type * as repo from '../payments.repo.js';
import type { NewOrder, WalletUse } from '../core.js';

export function unwrap(c: { ok: number } | { error: string }): number {
  if ('error' in c) throw badRequest(c.error);
  return c.ok;
}

export function amountsOf(o: repo.LockedOrder) {
  return {
    status: o.status as OrderStatus,
    operative: o.operative,
    amount: Number(o.amount),
    authorized: Number(o.authorized),
    captured: Number(o.captured),
    refunded: Number(o.refunded),
    refund_reserved: Number(o.refund_reserved),
  };
}

/**
 * A merchant URL (url_post, url_ok, url_ko) checked and in its normal form: an absolute http(s) URL has
 * no control characters (CR/LF would split a header), everything else a header cannot carry (`€`, CJK,
 * spaces) percent-encoded and an international host name in punycode, so a redirect to it can never
 * fail. A relative URL (PrestaShop sends `prestashop/plugins/controllers/success.php`) is stored as sent
 * and never used: the hosted page shows its own result page instead, and a notification to it is a
 * failed delivery that says why (decisions "Existing clients"). Null when empty.
 */
export function normaliseUrl(name: string, v: string | null | undefined): string | null | undefined {
  if (v === undefined || v === null || v === '') return v;
  if (/[\u0000-\u001f\u007f]/.test(v)) throw badRequest(`${name} must not contain control characters (such as CR or LF)`);
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return v; // relative: stored as sent
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${name} must be an http(s) URL (or a relative one, which the gateway stores but does not use), not ${u.protocol.replace(/:$/, '')}`);
  if (u.href.length > 2000) throw badRequest(`${name} must be at most 2000 characters once percent-encoded`);
  return u.href;
}

/** Rules of B1 beyond the schema; merchant URLs are replaced by their normal form. */
export function checkOrderInput(input: NewOrder): void {
  if (input.expires_in !== undefined && input.expires_in !== null && (input.expires_in < 600 || input.expires_in > 31_536_000)) {
    throw badRequest('expires_in must be from 600 to 31536000 seconds');
  }
  input.url_post = normaliseUrl('url_post', input.url_post);
  input.url_ok = normaliseUrl('url_ok', input.url_ok);
  input.url_ko = normaliseUrl('url_ko', input.url_ko);
  if (input.source_uuid && input.card_uuid && input.source_uuid !== input.card_uuid) throw badRequest('source_uuid and card_uuid differ');
}

/** extra_data as stored and echoed: `checkout` and `cof` (null when absent), never `{}`. */
export function normaliseExtraData(extra: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!extra) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) out[k] = nullIfEmpty(v);
  return nullIfEmpty(out);
}

export function externalThreeds(t: { version?: number | string; trans_status?: string; eci?: number | string; cavv?: string; ds_trans_id?: string }): ThreeDSResult {
  if (!t.trans_status) throw badRequest('threeds_data.trans_status is required');
  return {
    version: t.version === undefined ? '2' : String(t.version),
    transStatus: t.trans_status,
    eci: t.eci === undefined ? null : String(t.eci),
    cavv: t.cavv ?? null,
    dsTransId: t.ds_trans_id ?? null,
  };
}

export function threedsRecordOf(t: ThreeDSResult, flow: string, scaRequested: boolean) {
  return { version: t.version, flow, sca_requested: scaRequested, status: t.transStatus, eci: t.eci, exemption: null };
}

/** The EMV 3-D Secure protocol version of the flows the gateway runs and of the exemptions it records. */
export const THREEDS_PROTOCOL_VERSION = '2.2.0';

/**
 * `threeds_data` of a payment that went without 3-D Secure under an exemption recorded by the gateway
 * (merchant-initiated payments are out of the scope of strong customer authentication).
 */
export function exemptionRecord(exemption: 'MERCHANT_INITIATED') {
  return { version: THREEDS_PROTOCOL_VERSION, flow: 'EXEMPTED', sca_requested: false, status: 'EXEMPTED', eci: null, exemption };
}

/** The transaction's `source` of a wallet payment: the wallet, never card data. */
export function walletSource(w: WalletUse) {
  return { object: w.wallet, type: 'wallet', flow: w.flow };
}

/** `threeds_data` of a payment authenticated by the wallet's cryptogram. */
export function walletThreedsRecord(dpan: DpanData, secure: boolean) {
  // the version of the EMV 3-D Secure authentication the cryptogram stands for (decisions, B14)
  return { version: THREEDS_VERSION, flow: 'WALLET', sca_requested: secure, status: 'Y', eci: dpan.eci, exemption: null };
}
