/**
 * CHECKOUT terminal credentials (pure): `secret_key` (the API secret key, `sk_...`), the
 * `processing_channel_id` (`pc_...`) payments go through, and the `webhook_signature_key` that signs
 * the webhooks Checkout.com sends to the gateway (Cko-Signature). Sealed at rest like every terminal's
 * credentials.
 */
export const CHECKOUT_CREDENTIAL_KEYS = { required: ['secret_key', 'processing_channel_id', 'webhook_signature_key'], optional: [] as string[] };

export interface CheckoutTerminal {
  secretKey: string;
  processingChannelId: string;
  webhookKey: string;
}

/** The problems of a CHECKOUT terminal, in words an operator can act on; empty when it is usable. */
export function checkoutTerminalProblems(creds: Record<string, string>): string[] {
  const problems: string[] = [];
  if (creds.secret_key !== undefined && !/^sk_(sbox_)?[A-Za-z0-9_-]{8,}$/.test(creds.secret_key)) problems.push('credentials.secret_key must be a Checkout.com secret key (sk_... or sk_sbox_...)');
  if (creds.processing_channel_id !== undefined && !/^pc_[a-z0-9]{26}$/.test(creds.processing_channel_id)) problems.push('credentials.processing_channel_id must be a Checkout.com processing channel id (pc_ and 26 letters or digits)');
  if (creds.webhook_signature_key !== undefined && creds.webhook_signature_key.length < 16) problems.push('credentials.webhook_signature_key must be the webhook\'s signature key as Checkout.com shows it');
  return problems;
}

/** The connector's view of a terminal; throws (a configuration error) when it is not usable. */
export function checkoutTerminalOf(creds: Record<string, string> | null | undefined): CheckoutTerminal {
  if (!creds) throw new Error('the CHECKOUT terminal has no credentials');
  const problems = checkoutTerminalProblems(creds);
  const missing = CHECKOUT_CREDENTIAL_KEYS.required.filter((k) => !creds[k]);
  if (missing.length > 0) problems.push(`credentials are missing: ${missing.join(', ')}`);
  if (problems.length > 0) throw new Error(`the CHECKOUT terminal is not usable: ${problems.join('; ')}`);
  return { secretKey: creds.secret_key, processingChannelId: creds.processing_channel_id, webhookKey: creds.webhook_signature_key };
}
