/**
 * Where the PayPal connector's ledger lives (kit/ledger.ts): the operations sent (`paypal_operations`,
 * migration 1001: `payment_id` the capture or authorization id, `action_id` what a follow-up did, the
 * order id a field of its own), the network references of cards' first payments with their network and
 * date (`paypal_cof`, migrations 1001 and 1085) and the webhooks received (`paypal_webhook_events`).
 */
import type { LedgerDescriptor, LedgerOperation } from '../kit/ledger.js';
import type { TerminalRefRecord } from '../kit/outcomes.js';
import type { PaypalKind } from './mapping.js';

export const PAYPAL_LEDGER: LedgerDescriptor = {
  connector: 'paypal',
  operations: { table: 'paypal_operations', columns: { account: 'client_id', providerId: 'payment_id', actionId: 'action_id' }, extras: { orderId: { column: 'order_id' } } },
  cof: { table: 'paypal_cof', columns: { account: 'client_id', id: 'network_reference', network: 'network', date: 'network_date' }, blankNetwork: true },
  events: { table: 'paypal_webhook_events', columns: { type: 'event_type' } },
};

/** A PayPal operation as the ledger keeps it: `account` the REST app's client id, `data.orderId` its order, `providerId` the capture or authorization. */
export type PaypalRecord = LedgerOperation<{ orderId: string }> & { kind: PaypalKind };

/** A PayPal operation in PayPal's words. */
export type PaypalOperation = Omit<PaypalRecord, 'account' | 'providerId' | 'data'> & { clientId: string; orderId: string | null; paymentId: string | null };

export function paypalOperation(r: LedgerOperation<{ orderId: string }>): PaypalOperation {
  const { account, providerId, data, ...rest } = r;
  return { ...rest, kind: r.kind as PaypalKind, clientId: account, orderId: data.orderId ?? null, paymentId: providerId };
}

declare module '../../platform/db/schema.js' {
  interface DB {
    paypal_operations: {
      reference: string; kind: PaypalKind; amount: number | string; currency: string; client_id: string; order_id: string | null; payment_id: string | null; action_id: string | null;
      original_reference: string | null; terminal_ref: TerminalRefRecord | null; created_at: Date | undefined;
    };
    paypal_cof: { client_id: string; card_fingerprint: string; network_reference: string; network: string; network_date: string | null; updated_at: Date | undefined };
    paypal_webhook_events: { event_id: string; event_type: string; resource_id: string; reference: string | null; outcome: string; received_at: Date | undefined };
  }
}
