/**
 * CLEARHAUS terminal credentials (pure), as Clearhaus names them in its Gateway API documentation
 * (docs.gateway.clearhaus.com, "Accounts and keys", "Authentication", "Signing requests"):
 *  - `api_key`: the merchant account's API key (a UUIDv4), sent as the HTTP Basic username with a blank
 *    password on every request;
 *  - `signing_api_key` and `signing_private_key` (optional, both or neither): a partner's signing API key
 *    (a UUIDv4) and the RSA private key (PEM) whose public part the partner gave Clearhaus; with them every
 *    POST carries `Signature: <signing_api_key> RS256-hex <signature of the body>`. Clearhaus requires
 *    signing for the `moto` payment method (and of every POST made through a partner account).
 * Sealed at rest like every terminal's credentials; the keys are write-only.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

export const CLEARHAUS_CREDENTIAL_KEYS = { required: ['api_key'], optional: ['signing_api_key', 'signing_private_key'] };

export interface ClearhausSigning {
  apiKey: string;
  privateKey: KeyObject;
}

export interface ClearhausTerminal {
  apiKey: string;
  /** null: requests are not signed (MoTo payments are then refused before anything is sent). */
  signing: ClearhausSigning | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The RSA private key of a PEM text; null when it is not one. */
export function rsaPrivateKeyOf(pem: string): KeyObject | null {
  try {
    const key = createPrivateKey(pem.replace(/\\n/g, '\n'));
    return key.asymmetricKeyType === 'rsa' ? key : null;
  } catch {
    return null;
  }
}

/** The problems of a CLEARHAUS terminal, in words an operator can act on; empty when it is usable. */
export function clearhausTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.api_key !== undefined && !UUID.test(creds.api_key)) problems.push('credentials.api_key must be the API key Clearhaus gave for the merchant account (a UUID, e.g. 4390aec7-f76a-4c2f-8597-c87c2d06cb4f)');
  const hasKey = !!creds.signing_api_key;
  const hasPem = !!creds.signing_private_key;
  if (hasKey !== hasPem) problems.push('credentials.signing_api_key and credentials.signing_private_key go together: give both (requests are signed) or neither');
  if (hasKey && !UUID.test(creds.signing_api_key)) problems.push('credentials.signing_api_key must be the signing API key Clearhaus registered for the partner (a UUID)');
  if (hasPem && !rsaPrivateKeyOf(creds.signing_private_key)) problems.push('credentials.signing_private_key must be the RSA private key (PEM, -----BEGIN RSA PRIVATE KEY----- or -----BEGIN PRIVATE KEY-----) whose public key Clearhaus holds for the signing API key');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function clearhausTerminalOf(creds: Record<string, string> | null | undefined): ClearhausTerminal {
  if (!creds) throw new Error('the CLEARHAUS terminal has no credentials');
  const problems = clearhausTerminalProblems(creds);
  const missing = CLEARHAUS_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the CLEARHAUS terminal is not usable: ${problems.join('; ')}`);
  const privateKey = creds.signing_private_key ? rsaPrivateKeyOf(creds.signing_private_key) : null;
  return { apiKey: creds.api_key, signing: creds.signing_api_key && privateKey ? { apiKey: creds.signing_api_key, privateKey } : null };
}
