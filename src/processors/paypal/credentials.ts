/**
 * PAYPAL terminal credentials (pure): the REST app's `client_id` and `client_secret`, and the
 * `webhook_id` of the webhook PayPal sends to the gateway (its verification call needs it). Sealed at
 * rest like every terminal's credentials.
 */
export const PAYPAL_CREDENTIAL_KEYS = { required: ['client_id', 'client_secret', 'webhook_id'], optional: [] as string[] };

export interface PaypalTerminal {
  clientId: string;
  clientSecret: string;
  webhookId: string;
}

/** The problems of a PAYPAL terminal's credentials (missing keys apart), in words an operator can act on; empty when none. */
export function paypalTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.client_id && !/^[A-Za-z0-9_-]{16,128}$/.test(creds.client_id)) problems.push('credentials.client_id must be the REST app\'s client id as PayPal shows it');
  if (creds.webhook_id && !/^[A-Z0-9]{8,40}$/.test(creds.webhook_id)) problems.push('credentials.webhook_id must be the webhook\'s id as PayPal shows it (letters and digits)');
  return problems;
}

export function paypalTerminalOf(creds: Record<string, string> | null | undefined): PaypalTerminal {
  if (!creds) throw new Error('the PAYPAL terminal has no credentials');
  const problems = paypalTerminalProblems(creds);
  const missing = PAYPAL_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.unshift(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the PAYPAL terminal is not usable: ${problems.join('; ')}`);
  return { clientId: creds.client_id, clientSecret: creds.client_secret, webhookId: creds.webhook_id };
}
