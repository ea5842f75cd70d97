/**
 * SIBS terminal credentials (pure), named as SIBS Gateway names them: the `terminal_id` (the merchant's
 * terminal, `merchant.terminalId`, a number), the `client_id` (sent as `X-IBM-Client-Id`), the
 * `bearer_token` (the merchant's API token, sent as `Authorization: Bearer`) and the `webhook_secret`
 * (the secret key of the notifications, AES-256-GCM, base64 of 32 bytes as the backoffice shows it);
 * optionally the `payment_entity` (the Multibanco entity of the merchant's references, 5 digits: without
 * it Multibanco references are not offered). Sealed at rest like every terminal's credentials.
 */
export const SIBS_CREDENTIAL_KEYS = { required: ['terminal_id', 'client_id', 'bearer_token', 'webhook_secret'], optional: ['payment_entity'] };

export interface SibsTerminal {
  terminalId: number;
  clientId: string;
  bearerToken: string;
  /** The notifications' AES-256 key (32 bytes). */
  webhookKey: Buffer;
  /** The Multibanco entity of its references; null: none. */
  paymentEntity: string | null;
}

/** The 32-byte key a base64 webhook secret stands for; null when it is not one. */
export function webhookKeyOf(secret: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(secret)) return null;
  const key = Buffer.from(secret, 'base64');
  return key.length === 32 ? key : null;
}

/** The problems of a SIBS terminal, in words an operator can act on; empty when it is usable. */
export function sibsTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.terminal_id !== undefined && !/^[1-9][0-9]{0,9}$/.test(creds.terminal_id)) problems.push('credentials.terminal_id must be the SIBS terminal id (digits)');
  if (creds.client_id !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(creds.client_id)) problems.push('credentials.client_id must be the SIBS client id (a UUID, as the backoffice shows it)');
  if (creds.bearer_token !== undefined && (creds.bearer_token.length < 16 || /\s/.test(creds.bearer_token) || /^bearer /i.test(creds.bearer_token))) problems.push('credentials.bearer_token must be the SIBS bearer token as the backoffice shows it (without "Bearer ")');
  if (creds.webhook_secret !== undefined && !webhookKeyOf(creds.webhook_secret)) problems.push('credentials.webhook_secret must be the notifications\' secret key (base64 of 32 bytes)');
  if (creds.payment_entity !== undefined && creds.payment_entity !== '' && !/^[0-9]{5}$/.test(creds.payment_entity)) problems.push('credentials.payment_entity must be the Multibanco entity (5 digits)');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function sibsTerminalOf(creds: Record<string, string> | null | undefined): SibsTerminal {
  if (!creds) throw new Error('the SIBS terminal has no credentials');
  const problems = sibsTerminalProblems(creds);
  const missing = SIBS_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the SIBS terminal is not usable: ${problems.join('; ')}`);
  return { terminalId: Number(creds.terminal_id), clientId: creds.client_id, bearerToken: creds.bearer_token, webhookKey: webhookKeyOf(creds.webhook_secret)!, paymentEntity: creds.payment_entity || null };
}
