/**
 * TRUSTPAYMENTS terminal credentials (pure), as Trust Payments names them for its Webservices API: the
 * Webservices `alias` (the username of the Webservices user, sent as the request's `alias` and, with its
 * `password`, as HTTP Basic authentication of every request) and the `sitereference` the requests are
 * processed on (a test site reference begins with `test_`: it routes to Trust Payments' test bank).
 * Sealed at rest like every terminal's credentials; the password is write-only.
 */
export const TRUSTPAYMENTS_CREDENTIAL_KEYS = { required: ['alias', 'password', 'sitereference'], optional: [] as string[] };

export interface TrustpaymentsTerminal {
  alias: string;
  password: string;
  sitereference: string;
}

/** The problems of a TRUSTPAYMENTS terminal, in words an operator can act on; empty when it is usable. */
export function trustpaymentsTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.alias !== undefined && !/^[\x21-\x39\x3b-\x7e]{3,255}$/.test(creds.alias)) problems.push('credentials.alias must be the Webservices username Trust Payments gave (no spaces or colons; e.g. ws@example.com)');
  if (creds.password !== undefined && (creds.password.length < 8 || creds.password.length > 255)) problems.push('credentials.password must be the password of the Webservices user');
  // the reference's format: alphanumeric and underscore, up to 50
  if (creds.sitereference !== undefined && !/^\w{1,50}$/.test(creds.sitereference)) problems.push('credentials.sitereference must be the site reference of the account (letters, digits and underscores, up to 50; test sites begin with test_)');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function trustpaymentsTerminalOf(creds: Record<string, string> | null | undefined): TrustpaymentsTerminal {
  if (!creds) throw new Error('the TRUSTPAYMENTS terminal has no credentials');
  const problems = trustpaymentsTerminalProblems(creds);
  const missing = TRUSTPAYMENTS_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the TRUSTPAYMENTS terminal is not usable: ${problems.join('; ')}`);
  return { alias: creds.alias, password: creds.password, sitereference: creds.sitereference };
}
