/**
 * Pure rules of wallet payments (B14): the wallets and their names, reading the `payload` a merchant
 * sends, and what a decrypted token pays with. No IO.
 */

/** The wallets, in the checkout's names (decisions §10). */
export const WALLETS = ['GOOGLE_PAY', 'APPLE_PAY'] as const;
export type Wallet = (typeof WALLETS)[number];

/** B14 `wallet` values (GOOGLEPAY, APPLEPAY), with the checkout spellings accepted as aliases. */
export function parseWallet(v: unknown): Wallet | null {
  if (typeof v !== 'string') return null;
  const s = v.trim().toUpperCase().replace(/[\s_-]/g, '');
  if (s === 'GOOGLEPAY') return 'GOOGLE_PAY';
  if (s === 'APPLEPAY') return 'APPLE_PAY';
  return null;
}

export const WALLET_LABEL: Record<Wallet, string> = { GOOGLE_PAY: 'Google Pay', APPLE_PAY: 'Apple Pay' };

/** A token that fails verification or decryption: a 400 with this reason (never token data). */
export class WalletTokenError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'WalletTokenError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A JSON text, or base64 of one (Apple Pay's paymentData is often sent base64-encoded). */
function jsonOf(text: string): unknown {
  const t = text.trim();
  if (t.startsWith('{')) {
    try {
      return JSON.parse(t);
    } catch {
      return undefined;
    }
  }
  if (/^[A-Za-z0-9+/=_-]+$/.test(t)) {
    const decoded = Buffer.from(t, /[-_]/.test(t) ? 'base64url' : 'base64').toString('utf8').trim();
    if (decoded.startsWith('{')) {
      try {
        return JSON.parse(decoded);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * The wallet's token inside a B14 `payload` (a string holding JSON, base64 of it, or a JSON object),
 * or an error text. Google Pay: the token (`paymentMethodData.tokenizationData.token` of the
 * PaymentData, which is itself accepted). Apple Pay: the `paymentData` (the PKPaymentToken, or an
 * object holding it as `paymentData` or `token.paymentData`, is accepted).
 */
export function tokenOfPayload(wallet: Wallet, payload: unknown): { ok: Record<string, unknown> } | { error: string } {
  let v: unknown = payload;
  if (typeof v === 'string') {
    v = jsonOf(v);
    if (v === undefined) return { error: 'payload must be the JSON the wallet returned (as a string, base64, or an object)' };
  }
  if (!isObject(v)) return { error: 'payload must be a JSON object' };
  if (wallet === 'GOOGLE_PAY') {
    // the whole PaymentData: its token is a JSON string again
    const pmd = v.paymentMethodData;
    if (isObject(pmd) && isObject(pmd.tokenizationData)) {
      const token = pmd.tokenizationData.token;
      const parsed = typeof token === 'string' ? jsonOf(token) : token;
      if (!isObject(parsed)) return { error: 'payload.paymentMethodData.tokenizationData.token is not a Google Pay token' };
      v = parsed;
    }
    if (!isObject(v) || (!('protocolVersion' in v) && !('signedMessage' in v))) return { error: 'payload is not a Google Pay token (protocolVersion, signature, intermediateSigningKey, signedMessage)' };
    return { ok: v };
  }
  if (isObject(v.token) && v.token.paymentData !== undefined) v = v.token.paymentData;
  else if (v.paymentData !== undefined) v = v.paymentData;
  if (typeof v === 'string') v = jsonOf(v);
  if (!isObject(v) || !('version' in v) || !('header' in v)) return { error: 'payload is not an Apple Pay payment token (version, data, signature, header)' };
  return { ok: v };
}

/** B14 `flow`: APP (default) or WEB; empty means absent. */
export function parseFlow(v: unknown): 'APP' | 'WEB' | null {
  if (v === undefined || v === null || v === '') return 'APP';
  if (typeof v !== 'string') return null;
  const s = v.trim().toUpperCase();
  return s === 'APP' || s === 'WEB' ? s : null;
}

/**
 * Whether a wallet is offered to a merchant's customers (`GET /client/resources`, pages): the gateway
 * trusts roots for it in this environment, a service of the merchant that is enabled offers it, and
 * the merchant has keys for it (sandbox merchants get them on first use).
 */
export function walletEnabled(p: { rootsTrusted: boolean; serviceOffers: boolean; hasKeys: boolean; sandbox: boolean }): boolean {
  return p.rootsTrusted && p.serviceOffers && (p.hasKeys || p.sandbox);
}

/** A Google Pay recipient id: `merchant:<id>` or `gateway:<id>`. */
export function parseRecipientId(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return /^(merchant|gateway):[A-Za-z0-9._-]{1,100}$/.test(s) ? s : null;
}

/** An Apple Pay merchant identifier (`merchant.com.example.shop`). */
export function parseMerchantIdentifier(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return /^[A-Za-z0-9._-]{3,120}$/.test(s) ? s : null;
}

/** A token's replay id as stored: printable, bounded. */
export function replayId(id: string): string | null {
  return /^[\x21-\x7e]{1,500}$/.test(id) ? id : null;
}
