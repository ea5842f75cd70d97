/** The PayPal simulator's shapes (apps, orders, payments, disputes) and helpers (server.ts re-exports the public ones). */
import { createHash, randomInt } from 'node:crypto';
import type http from 'node:http';
import { type FaultKind, type WebhookTransport as KitTransport } from '../../kit/simulator.js';
import { PAYPAL_CURRENCY_DECIMALS } from '../currencies.js';

export interface PaypalSimApp {
  clientSecret: string;
  webhookId: string;
  /** Where its webhooks go (the gateway's `/v1/processor/paypal/webhook`); none: not sent. */
  webhookUrl?: string | null;
}

export interface PaypalSimulatorOptions {
  /** REST apps by client id. */
  apps: Record<string, PaypalSimApp>;
  latencyMs?: number;
  clock?: () => Date;
  webhookHeaders?: Record<string, string>;
}

export type PaypalFaultKind = Exclude<FaultKind, 'hang'>;
export type WebhookTransport = KitTransport;

export type Json = Record<string, unknown>;
export interface Money { currency_code: string; value: string }
export interface Payment {
  id: string;
  status: string;
  status_details?: { reason: string };
  amount: Money;
  custom_id?: string;
  invoice_id?: string;
  processor_response?: { response_code: string };
  network_transaction_reference?: { id: string; network: string; date?: string };
  final_capture?: boolean;
  create_time: string;
  update_time: string;
}

/** What PayPal left in `payment_source.card.authentication_result` after 3-D Secure. */
export interface Authentication { liability_shift: string; three_d_secure: { enrollment_status: string; authentication_status?: string } }

export interface SimOrder {
  id: string;
  clientId: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: string;
  customId: string;
  amount: Money;
  createTime: string;
  paypal: { returnUrl: string; cancelUrl: string } | null;
  captures: Payment[];
  authorizations: Payment[];
  refunds: Payment[];
  /** The card of the order's payment as PayPal shows it (never its number). */
  card: { last_digits: string; brand: string; authentication_result?: Authentication } | null;
  /** A card payment waiting for 3-D Secure on PayPal's page: the card and where the cardholder returns. */
  pendingCard: { number: string; expiry: string; returnUrl: string | null } | null;
  /** The last card request's stored_credential and verification method, as sent (tests read them). */
  storedCredential: Json | null;
  verification: string | null;
}

export type Out = { status: number; body: unknown; hooks: Array<{ type: string; resource: Json }> };

/** A dispute the simulator raised on a capture (`raiseDispute`), as PayPal's Disputes API shows it. */
export interface SimDispute {
  id: string;
  clientId: string;
  order: SimOrder;
  capture: Payment;
  reason: string;
  stage: string;
  amount: Money;
  status: string;
  outcomeCode: string | null;
  /** How PayPal decides it once the merchant provided evidence (`decideDisputes`). */
  decision: 'RESOLVED_SELLER_FAVOUR' | 'RESOLVED_BUYER_FAVOUR';
  evidences: Json[];
  /** The `evidence-file` parts received, by name. */
  files: Map<string, { contentType: string | null; content: Buffer }>;
  externalReasonCode: string | null;
  createTime: string;
  updateTime: string;
  dueDate: string;
}

export const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const ppId = (n = 17) => Array.from({ length: n }, () => UP[randomInt(UP.length)]).join('');
export const canonical = (text: string) => createHash('sha256').update(JSON.stringify(JSON.parse(text))).digest('hex');
export const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);

/** An amount in PayPal's smallest unit of its currency (cents; whole yen, forints, dollars). */
export const decimalsOf = (currency: string) => PAYPAL_CURRENCY_DECIMALS[currency] ?? 2;
export const units = (m: Money) => Math.round(Number(m.value) * 10 ** decimalsOf(m.currency_code));
export const money = (n: number, currency: string): Money => {
  const d = decimalsOf(currency);
  return { currency_code: currency, value: d === 0 ? String(n) : (n / 10 ** d).toFixed(d) };
};

export const MESSAGES: Record<number, { name: string; message: string }> = {
  400: { name: 'INVALID_REQUEST', message: 'Request is not well-formed, syntactically incorrect, or violates schema.' },
  401: { name: 'AUTHENTICATION_FAILURE', message: 'Authentication failed due to missing authorization header, or invalid authentication credentials.' },
  404: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' },
  422: { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed, semantically incorrect, or failed business validation.' },
};
