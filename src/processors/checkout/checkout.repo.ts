/**
 * The operations sent to Checkout.com (table `checkout_operations`, migration 1000), the scheme ids of
 * cards' first payments (`checkout_cof`) and the webhooks received (`checkout_webhook_events`). Each
 * function is one statement on the root connection, never inside a business transaction.
 */
import type { ColumnType, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { CheckoutKind } from './mapping.js';

export interface TerminalRefRecord {
  serviceId?: string | null;
  terminalId?: string | null;
  serviceType?: string;
}

export interface CheckoutOperationsTable {
  reference: string;
  kind: CheckoutKind;
  amount: number | string;
  currency: string;
  processing_channel_id: string;
  payment_id: string | null;
  action_id: string | null;
  original_reference: string | null;
  terminal_ref: ColumnType<TerminalRefRecord | null, string | null, string | null>;
  created_at: Date | undefined;
}

export interface CheckoutCofTable {
  processing_channel_id: string;
  card_fingerprint: string;
  scheme_id: string;
  updated_at: Date | undefined;
}

export interface CheckoutWebhookEventsTable {
  event_id: string;
  type: string;
  payment_id: string;
  reference: string | null;
  outcome: string;
  received_at: Date | undefined;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    checkout_operations: CheckoutOperationsTable;
    checkout_cof: CheckoutCofTable;
    checkout_webhook_events: CheckoutWebhookEventsTable;
  }
}

export interface CheckoutOperation {
  reference: string;
  kind: CheckoutKind;
  amount: number;
  currency: string;
  processingChannelId: string;
  paymentId: string | null;
  actionId: string | null;
  originalReference: string | null;
  terminalRef: TerminalRefRecord | null;
  /** When it was recorded (real time), before it was sent. */
  createdAt: Date | null;
}

function toOperation(r: Selectable<CheckoutOperationsTable>): CheckoutOperation {
  return {
    reference: r.reference, kind: r.kind, amount: Number(r.amount), currency: r.currency, processingChannelId: r.processing_channel_id,
    paymentId: r.payment_id, actionId: r.action_id, originalReference: r.original_reference, terminalRef: r.terminal_ref ?? null,
    createdAt: r.created_at ? new Date(r.created_at) : null,
  };
}

export async function findOperation(db: Executor, reference: string): Promise<CheckoutOperation | null> {
  const r = await db.selectFrom('checkout_operations').selectAll().where('reference', '=', reference).executeTakeFirst();
  return r ? toOperation(r) : null;
}

/** The operations on a payment (a webhook names the payment id). */
export async function operationsOfPayment(db: Executor, paymentId: string): Promise<CheckoutOperation[]> {
  const rows = await db.selectFrom('checkout_operations').selectAll().where('payment_id', '=', paymentId).orderBy('created_at').execute();
  return rows.map(toOperation);
}

/** Records an operation before it is sent; idempotent by reference (a retried step keeps its row). */
export async function recordOperation(db: Executor, op: Omit<CheckoutOperation, 'actionId' | 'createdAt'>): Promise<CheckoutOperation> {
  const inserted = await db
    .insertInto('checkout_operations')
    .values({
      reference: op.reference, kind: op.kind, amount: op.amount, currency: op.currency, processing_channel_id: op.processingChannelId,
      payment_id: op.paymentId, action_id: null, original_reference: op.originalReference,
      terminal_ref: op.terminalRef ? JSON.stringify(op.terminalRef) : null, created_at: undefined,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return toOperation(inserted);
  const existing = await findOperation(db, op.reference);
  if (!existing) throw new Error('checkout: the operation could not be recorded');
  return existing;
}

/** Keeps the payment id of a payment, or the action id of a follow-up, once Checkout.com named it. */
export async function saveIds(db: Executor, reference: string, ids: { paymentId?: string; actionId?: string }): Promise<void> {
  const set: { payment_id?: string; action_id?: string } = {};
  if (ids.paymentId) set.payment_id = ids.paymentId;
  if (ids.actionId) set.action_id = ids.actionId;
  if (Object.keys(set).length > 0) await db.updateTable('checkout_operations').set(set).where('reference', '=', reference).execute();
}

export async function findCof(db: Executor, channel: string, fingerprint: string): Promise<string | null> {
  const r = await db.selectFrom('checkout_cof').select('scheme_id').where('processing_channel_id', '=', channel).where('card_fingerprint', '=', fingerprint).executeTakeFirst();
  return r?.scheme_id ?? null;
}

/** Keeps the first scheme id of a card (a later one does not replace it). */
export async function keepCof(db: Executor, channel: string, fingerprint: string, schemeId: string): Promise<void> {
  await db.insertInto('checkout_cof').values({ processing_channel_id: channel, card_fingerprint: fingerprint, scheme_id: schemeId, updated_at: undefined }).onConflict((oc) => oc.doNothing()).execute();
}

/** Records a verified webhook; false when its event id was received before (a replay). */
export async function recordWebhook(db: Executor, e: { eventId: string; type: string; paymentId: string; reference: string | null; outcome: string }): Promise<boolean> {
  const r = await db
    .insertInto('checkout_webhook_events')
    .values({ event_id: e.eventId, type: e.type, payment_id: e.paymentId, reference: e.reference, outcome: e.outcome, received_at: undefined })
    .onConflict((oc) => oc.doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return !!r;
}
