/**
 * WORLDPAY terminal credentials (pure), as Worldpay names them for Access: the API `username` and
 * `password` (HTTP Basic authentication of every request), the `entity` payments are routed to
 * (`merchant.entity`, created at boarding; `default` unless Worldpay said otherwise), and the
 * `event_signature_key`: the shared secret of the `Event-Signature` header Worldpay adds to its events
 * (webhooks) once the Implementation Manager enables it. Sealed at rest like every terminal's credentials.
 */
export const WORLDPAY_CREDENTIAL_KEYS = { required: ['username', 'password', 'entity', 'event_signature_key'], optional: [] as string[] };

export interface WorldpayTerminal {
  username: string;
  password: string;
  entity: string;
  eventKey: string;
}

/** The problems of a WORLDPAY terminal, in words an operator can act on; empty when it is usable. */
export function worldpayTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.username !== undefined && !/^[\x21-\x39\x3b-\x7e]{4,100}$/.test(creds.username)) problems.push('credentials.username must be the Access API username Worldpay gave (no spaces or colons)');
  if (creds.password !== undefined && (creds.password.length < 8 || creds.password.length > 200)) problems.push('credentials.password must be the Access API password Worldpay gave');
  if (creds.entity !== undefined && !/^[A-Za-z0-9][A-Za-z0-9 ]{0,31}$/.test(creds.entity)) problems.push('credentials.entity must be the Access entity payments are routed to (letters, digits and spaces, up to 32; usually "default")');
  if (creds.event_signature_key !== undefined && creds.event_signature_key.length < 16) problems.push('credentials.event_signature_key must be the shared secret of the Event-Signature header as Worldpay sent it');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function worldpayTerminalOf(creds: Record<string, string> | null | undefined): WorldpayTerminal {
  if (!creds) throw new Error('the WORLDPAY terminal has no credentials');
  const problems = worldpayTerminalProblems(creds);
  const missing = WORLDPAY_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the WORLDPAY terminal is not usable: ${problems.join('; ')}`);
  return { username: creds.username, password: creds.password, entity: creds.entity, eventKey: creds.event_signature_key };
}
