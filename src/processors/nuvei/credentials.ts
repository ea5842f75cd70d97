/**
 * NUVEI terminal credentials (pure), as Nuvei names them in its REST API 1.0: the `merchantId` and
 * `merchantSiteId` Nuvei assigns (both sent in every request) and the merchant secret key
 * (`merchantSecretKey`), which never travels: it closes the SHA-256 `checksum` of every request and of
 * every DMN (Direct Merchant Notification) Nuvei sends. Sealed at rest like every terminal's credentials.
 */
export const NUVEI_CREDENTIAL_KEYS = { required: ['merchantId', 'merchantSiteId', 'merchantSecretKey'], optional: [] as string[] };

export interface NuveiTerminal {
  merchantId: string;
  merchantSiteId: string;
  secretKey: string;
}

/** The problems of a NUVEI terminal, in words an operator can act on; empty when it is usable. */
export function nuveiTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.merchantId !== undefined && !/^\d{1,30}$/.test(creds.merchantId)) problems.push('credentials.merchantId must be the merchant ID Nuvei assigned (digits)');
  if (creds.merchantSiteId !== undefined && !/^\d{1,20}$/.test(creds.merchantSiteId)) problems.push('credentials.merchantSiteId must be the merchant site ID Nuvei assigned (digits)');
  if (creds.merchantSecretKey !== undefined && !/^[\x21-\x7e]{16,200}$/.test(creds.merchantSecretKey)) problems.push('credentials.merchantSecretKey must be the merchant secret key of the site as Nuvei gave it (no spaces)');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function nuveiTerminalOf(creds: Record<string, string> | null | undefined): NuveiTerminal {
  if (!creds) throw new Error('the NUVEI terminal has no credentials');
  const problems = nuveiTerminalProblems(creds);
  const missing = NUVEI_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the NUVEI terminal is not usable: ${problems.join('; ')}`);
  return { merchantId: creds.merchantId, merchantSiteId: creds.merchantSiteId, secretKey: creds.merchantSecretKey };
}
