/**
 * REDSYSPSD2 terminal credentials (pure). A terminal carries the merchant code (FUC, 9 digits) in its
 * `code` and, in `credentials`, the two terminals Redsys gives a merchant with their keys:
 * `terminal_secure` / `key_secure` (3-D Secure: the customer's payments) and `terminal_not_secure` /
 * `key_not_secure` (MoTo and merchant-initiated payments), plus the optional `signature_version`
 * (`HMAC_SHA256_V1`, the default, or `HMAC_SHA512_V2`).
 */
import type { RedsysTerminal } from './mapping.js';
import { isSignatureVersion, SIGNATURE_VERSIONS } from './signature.js';

export const REDSYS_CREDENTIAL_KEYS = { required: ['key_secure', 'key_not_secure', 'terminal_secure', 'terminal_not_secure'], optional: ['signature_version'] };

/** A terminal number as Redsys writes it: 3 digits (`1` and `001` alike). Null when it is not 1–3 digits. */
export function terminalNumber(raw: string): string | null {
  const s = raw.trim();
  if (!/^\d{1,3}$/.test(s) || Number(s) === 0) return null;
  return s.padStart(3, '0');
}

/** A key as Redsys issues it: base64 of 24 bytes (32 characters). */
export function validKey(key: string): boolean {
  return /^[A-Za-z0-9+/]{32}$/.test(key) && Buffer.from(key, 'base64').length === 24;
}

/**
 * The problems of a REDSYSPSD2 terminal that a real connector would meet (production terminals), in
 * words an operator can act on; empty when it is usable.
 */
export function redsysTerminalProblems(code: string | null, creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (!code || !/^\d{9}$/.test(code)) problems.push('code must be the 9-digit Redsys merchant code (FUC)');
  for (const k of ['key_secure', 'key_not_secure'] as const) {
    if (creds[k] !== undefined && !validKey(creds[k])) problems.push(`credentials.${k} must be the key as Redsys issues it: 32 characters of base64 (24 bytes)`);
  }
  for (const k of ['terminal_secure', 'terminal_not_secure'] as const) {
    if (creds[k] !== undefined && terminalNumber(creds[k]) === null) problems.push(`credentials.${k} must be a Redsys terminal number of 1 to 3 digits (e.g. 001)`);
  }
  if (creds.signature_version !== undefined && !isSignatureVersion(creds.signature_version)) {
    problems.push(`credentials.signature_version must be one of ${SIGNATURE_VERSIONS.join(', ')}`);
  }
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function redsysTerminalOf(code: string | null, creds: Record<string, string> | null | undefined): RedsysTerminal {
  if (!creds) throw new Error('the REDSYSPSD2 terminal has no credentials');
  const problems = redsysTerminalProblems(code, creds);
  const missing = REDSYS_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the REDSYSPSD2 terminal is not usable: ${problems.join('; ')}`);
  return {
    fuc: code!,
    secure: { terminal: terminalNumber(creds.terminal_secure)!, key: creds.key_secure },
    nonSecure: { terminal: terminalNumber(creds.terminal_not_secure)!, key: creds.key_not_secure },
    version: isSignatureVersion(creds.signature_version) ? creds.signature_version : 'HMAC_SHA256_V1',
  };
}
