/** The Checkout.com simulator's shapes (accounts, payments, disputes) and its error codes (server.ts re-exports the public ones). */
import { randomInt } from 'node:crypto';
import type http from 'node:http';
import { type FaultKind, type WebhookTransport as KitTransport } from '../../kit/simulator.js';

export interface CheckoutSimAccount {
  processingChannelId: string;
  webhookKey: string;
  /** Where its webhooks go (the gateway's `/v1/processor/checkout/webhook`); none: not sent. */
  webhookUrl?: string | null;
}

export interface CheckoutSimulatorOptions {
  /** Accounts by secret key. */
  accounts: Record<string, CheckoutSimAccount>;
  latencyMs?: number;
  clock?: () => Date;
  /** Extra headers of the webhooks it posts (tests: the TLS proxy's `x-forwarded-proto`). */
  webhookHeaders?: Record<string, string>;
}

export type CheckoutFaultKind = Exclude<FaultKind, 'hang'>;

export type WebhookTransport = KitTransport;

export type FollowUpKind = 'capture' | 'void' | 'refund';

export interface Action {
  id: string;
  type: 'Authorization' | 'Card Verification' | 'Capture' | 'Void' | 'Refund';
  amount: number;
  approved: boolean;
  response_code: string;
  response_summary: string;
  reference: string;
  processed_on: string;
  auth_code?: string;
}

/** What a payment request said about the card's storage and who initiated it. */
export interface SimPaymentRequestFlags {
  paymentType: string;
  merchantInitiated: boolean;
  /** `source.stored`: the card comes from the merchant's storage. */
  stored: boolean;
  /** `source.store_for_future_use` as sent (null: left out). */
  storeForFutureUse: boolean | null;
  previousPaymentId: string | null;
}

export interface SimPayment {
  id: string;
  secretKey: string;
  reference: string;
  amount: number;
  currency: string;
  status: string;
  approved: boolean;
  code: string;
  authCode: string;
  schemeId: string;
  last4: string;
  bin: string;
  fingerprint: string;
  expiryMonth: number;
  expiryYear: number;
  captured: number;
  refunded: number;
  capture: boolean;
  actions: Action[];
  request: SimPaymentRequestFlags;
  /** Accepted follow-ups not decided yet (amounts held). */
  pending: { capture: number; void: boolean; refund: number };
  /** 3DS through Checkout.com: what the payment waits for. */
  pending3ds: { number: string; successUrl: string; failureUrl: string } | null;
}

/** A dispute the simulator raised on a payment (`raiseDispute`), as Checkout.com's Disputes API shows it. */
export interface SimDispute {
  id: string;
  p: SimPayment;
  category: string;
  reasonCode: string;
  amount: number;
  status: string;
  /** What the scheme decides once the evidence is submitted (`decideDisputes`). */
  outcome: 'won' | 'lost';
  evidence: Record<string, string> | null;
  receivedOn: string;
  requiredBy: string;
  lastUpdate: string;
}

/** A capture, void or refund accepted (202) and not decided yet. */
export interface PendingFollowUp {
  p: SimPayment;
  kind: FollowUpKind;
  id: string;
  amount: number;
  reference: string;
  /** Declined with this code when decided (a test asked for it); null: approved. */
  declineCode: string | null;
}

export interface Route {
  op: string;
  method: 'GET' | 'POST';
  paymentId?: string;
  sessionId?: string;
  follow?: FollowUpKind;
  actions?: boolean;
}

export const FOLLOW_UP_OP: Record<FollowUpKind, string> = { capture: 'captureAPayment', void: 'voidAPayment', refund: 'refundAPayment' };
export const FOLLOW_UP_PATH: Record<string, FollowUpKind> = { captures: 'capture', voids: 'void', refunds: 'refund' };
export const FOLLOW_UP_EVENT: Record<FollowUpKind, { approved: string; declined: string; type: Action['type'] }> = {
  capture: { approved: 'payment_captured', declined: 'payment_capture_declined', type: 'Capture' },
  void: { approved: 'payment_voided', declined: 'payment_void_declined', type: 'Void' },
  refund: { approved: 'payment_refunded', declined: 'payment_refund_declined', type: 'Refund' },
};

/** Error codes of invalid fields, by the field's path (Checkout.com's error codes where it names them). */
export const FIELD_CODES: Record<string, string> = {
  '/source': 'payment_source_invalid',
  '/source/number': 'card_number_invalid',
  '/source/expiry_month': 'card_expiry_month_invalid',
  '/source/expiry_year': 'card_expiry_year_invalid',
  '/source/cvv': 'cvv_invalid',
  '/3ds': 'three_ds_invalid',
};

/** The error codes of a request's problems (as SpecChecker words them): `<field>_required` / `<field>_invalid`. */
export function errorCodesOf(problems: string[]): string[] {
  const codes = new Set<string>();
  for (const p of problems) {
    const where = p.split(' ')[0];
    const missing = /must have required property '([^']+)'/.exec(p)?.[1];
    const extra = /\(([a-z0-9_]+)\)$/.exec(p)?.[1];
    if (missing) codes.add(where === '(body)' && missing === 'source' ? 'payment_source_required' : `${missing}_required`);
    else if (/must NOT have additional properties/.test(p) && extra) codes.add(`${extra}_invalid`);
    else if (where === '(body)') codes.add('request_body_malformed');
    else codes.add(FIELD_CODES[where] ?? `${where.split('/').filter(Boolean).join('_')}_invalid`);
  }
  return [...codes];
}

export const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const id = (prefix: string) => prefix + Array.from({ length: 26 }, () => ALNUM[randomInt(ALNUM.length)]).join('');
