/**
 * Where the Checkout.com connector's ledger lives (kit/ledger.ts): the operations sent
 * (`checkout_operations`, migration 1000: `payment_id` the provider id, `action_id` a follow-up's), the
 * scheme ids of cards' first payments (`checkout_cof`) and the webhooks received
 * (`checkout_webhook_events`).
 */
import type { LedgerDescriptor, LedgerOperation } from '../kit/ledger.js';
import type { TerminalRefRecord } from '../kit/outcomes.js';
import type { CheckoutKind } from './mapping.js';

export const CHECKOUT_LEDGER: LedgerDescriptor = {
  connector: 'checkout',
  operations: { table: 'checkout_operations', columns: { account: 'processing_channel_id', providerId: 'payment_id', actionId: 'action_id' } },
  cof: { table: 'checkout_cof', columns: { account: 'processing_channel_id', id: 'scheme_id' } },
  events: { table: 'checkout_webhook_events', columns: { resourceId: 'payment_id' } },
};

/** A Checkout.com operation: `account` its processing channel, `providerId` the payment id, `actionId` a follow-up's. */
export type CheckoutOperation = LedgerOperation & { kind: CheckoutKind };

declare module '../../platform/db/schema.js' {
  interface DB {
    checkout_operations: {
      reference: string; kind: CheckoutKind; amount: number | string; currency: string; processing_channel_id: string; payment_id: string | null; action_id: string | null;
      original_reference: string | null; terminal_ref: TerminalRefRecord | null; created_at: Date | undefined;
    };
    checkout_cof: { processing_channel_id: string; card_fingerprint: string; scheme_id: string; updated_at: Date | undefined };
    checkout_webhook_events: { event_id: string; type: string; payment_id: string; reference: string | null; outcome: string; received_at: Date | undefined };
  }
}
