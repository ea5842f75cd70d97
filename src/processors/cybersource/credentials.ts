/**
 * CYBERSOURCE terminal credentials (pure), named as CyberSource's Business Center names them for REST
 * HTTP Signature authentication: `merchant_id` (the merchant ID, sent as `v-c-merchant-id`), `key_id` (the
 * REST shared secret key's key serial number, the signature's `keyid`) and `shared_secret_key` (the
 * shared secret itself, base64 as CyberSource shows it once; the HMAC key is its decoded bytes). Sealed at
 * rest like every terminal's credentials and never sent: only signatures made with it are.
 */
export const CYBERSOURCE_CREDENTIAL_KEYS = { required: ['merchant_id', 'key_id', 'shared_secret_key'], optional: [] as string[] };

export interface CybersourceTerminal {
  merchantId: string;
  keyId: string;
  /** The decoded shared secret (the HMAC-SHA256 key). */
  secret: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The problems of a CYBERSOURCE terminal, in words an operator can act on; empty when it is usable. */
export function cybersourceTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.merchant_id !== undefined && !/^[A-Za-z0-9_]{1,30}$/.test(creds.merchant_id)) problems.push('credentials.merchant_id must be the CyberSource merchant ID (letters, digits and _, up to 30)');
  if (creds.key_id !== undefined && !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(creds.key_id)) problems.push('credentials.key_id must be the key serial number CyberSource shows for the REST shared secret key (a UUID)');
  if (creds.shared_secret_key !== undefined && (!BASE64.test(creds.shared_secret_key) || Buffer.from(creds.shared_secret_key, 'base64').length < 16)) problems.push('credentials.shared_secret_key must be the REST shared secret key as CyberSource shows it (base64)');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function cybersourceTerminalOf(creds: Record<string, string> | null | undefined): CybersourceTerminal {
  if (!creds) throw new Error('the CYBERSOURCE terminal has no credentials');
  const problems = cybersourceTerminalProblems(creds);
  const missing = CYBERSOURCE_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the CYBERSOURCE terminal is not usable: ${problems.join('; ')}`);
  return { merchantId: creds.merchant_id, keyId: creds.key_id, secret: Buffer.from(creds.shared_secret_key, 'base64') };
}
