/**
 * CREDORAX terminal credentials (pure), named as the contract shows them (api.md "Terminal") and as
 * Credorax (Finaro) issues them for its Source payment gateway:
 *  - `merchant_id`: the gateway merchant ID, sent as `M` in every request;
 *  - `signing_api_key`: the signature key, appended to the request's values before hashing (`K`); never
 *    sent, only signatures made with it are;
 *  - `sub_merchant_id` (optional): the sub-merchant identifier, sent as `h3`;
 *  - American Express cards go through their own gateway merchant: `merchant_id_amex` and
 *    `signing_api_key_amex` (both, or neither), `target_mid_amex` (the requested processor MID, sent as
 *    `r2`) and `sub_merchant_phone_amex` (the sub-merchant's phone, `h8`).
 * Sealed at rest like every terminal's credentials.
 */
export const CREDORAX_CREDENTIAL_KEYS = {
  required: ['merchant_id', 'signing_api_key'],
  optional: ['sub_merchant_id', 'merchant_id_amex', 'signing_api_key_amex', 'target_mid_amex', 'sub_merchant_phone_amex'],
};

/** One gateway merchant of the terminal: its `M`, its signing key and what goes with its requests. */
export interface CredoraxMerchant {
  merchantId: string;
  signingKey: string;
  subMerchantId: string | null;
  /** `r2` (Amex: target_mid_amex). */
  targetMid: string | null;
  /** `h8` (Amex: sub_merchant_phone_amex). */
  subMerchantPhone: string | null;
}

export interface CredoraxTerminal {
  main: CredoraxMerchant;
  /** American Express cards' merchant; null: they go through `main`. */
  amex: CredoraxMerchant | null;
}

const ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY = /^[\x21-\x7e]{1,128}$/;

/** The problems of a CREDORAX terminal, in words an operator can act on; empty when it is usable. */
export function credoraxTerminalProblems(c: Record<string, string>): string[] {
  const p: string[] = [];
  for (const k of ['merchant_id', 'merchant_id_amex']) if (c[k] !== undefined && !ID.test(c[k])) p.push(`credentials.${k} must be the gateway merchant ID Credorax issued (letters, digits, - and _, up to 32)`);
  for (const k of ['signing_api_key', 'signing_api_key_amex']) if (c[k] !== undefined && !KEY.test(c[k])) p.push(`credentials.${k} must be the signature key Credorax issued (printable characters without spaces, up to 128)`);
  if (c.sub_merchant_id !== undefined && !/^[\x21-\x7e]{1,16}$/.test(c.sub_merchant_id)) p.push('credentials.sub_merchant_id must be the sub-merchant identifier (up to 16 characters, no spaces)');
  if (c.target_mid_amex !== undefined && !/^[\x21-\x7e]{1,40}$/.test(c.target_mid_amex)) p.push('credentials.target_mid_amex must be the American Express processor MID (up to 40 characters, no spaces)');
  if (c.sub_merchant_phone_amex !== undefined && !/^[0-9+() -]{5,32}$/.test(c.sub_merchant_phone_amex)) p.push('credentials.sub_merchant_phone_amex must be a phone number (5 to 32 digits, +, spaces, dashes)');
  const amex = ['merchant_id_amex', 'signing_api_key_amex'].filter((k) => c[k]);
  if (amex.length === 1) p.push('credentials.merchant_id_amex and credentials.signing_api_key_amex go together: give both for American Express cards, or neither');
  if (amex.length === 0 && (c.target_mid_amex || c.sub_merchant_phone_amex)) p.push('credentials.target_mid_amex and credentials.sub_merchant_phone_amex need credentials.merchant_id_amex and credentials.signing_api_key_amex');
  return p;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function credoraxTerminalOf(c: Record<string, string> | null | undefined): CredoraxTerminal {
  if (!c) throw new Error('the CREDORAX terminal has no credentials');
  const problems = credoraxTerminalProblems(c);
  const missing = CREDORAX_CREDENTIAL_KEYS.required.filter((k) => !c[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the CREDORAX terminal is not usable: ${problems.join('; ')}`);
  const sub = c.sub_merchant_id || null;
  return {
    main: { merchantId: c.merchant_id, signingKey: c.signing_api_key, subMerchantId: sub, targetMid: null, subMerchantPhone: null },
    amex: c.merchant_id_amex && c.signing_api_key_amex
      ? { merchantId: c.merchant_id_amex, signingKey: c.signing_api_key_amex, subMerchantId: sub, targetMid: c.target_mid_amex || null, subMerchantPhone: c.sub_merchant_phone_amex || null }
      : null,
  };
}

/** American Express numbers (34, 37). */
export function isAmex(pan: string): boolean {
  return /^3[47]\d{13}$/.test(pan);
}

/** The merchant a card goes through. */
export function merchantForCard(t: CredoraxTerminal, pan: string): CredoraxMerchant {
  return t.amex && isAmex(pan) ? t.amex : t.main;
}

/** The merchant an earlier operation went through (its `M`), for its follow-ups. */
export function merchantById(t: CredoraxTerminal, merchantId: string): CredoraxMerchant | null {
  if (t.main.merchantId === merchantId) return t.main;
  return t.amex?.merchantId === merchantId ? t.amex : null;
}
