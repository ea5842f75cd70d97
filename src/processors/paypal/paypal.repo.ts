/**
 * The operations sent to PayPal (table `paypal_operations`, migration 1001), the network references of
 * cards' first payments with their network and date (`paypal_cof`, migrations 1001 and 1085) and the
 * webhooks received (`paypal_webhook_events`). Each
 * function is one statement on the root connection, never inside a business transaction.
 */
import type { ColumnType, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { NetworkReference, PaypalKind } from './mapping.js';

export interface TerminalRefRecord {
  serviceId?: string | null;
  terminalId?: string | null;
  serviceType?: string;
}

export interface PaypalOperationsTable {
  reference: string;
  kind: PaypalKind;
  amount: number | string;
  currency: string;
  client_id: string;
  order_id: string | null;
  payment_id: string | null;
  action_id: string | null;
  original_reference: string | null;
  terminal_ref: ColumnType<TerminalRefRecord | null, string | null, string | null>;
  created_at: Date | undefined;
}

export interface PaypalCofTable {
  client_id: string;
  card_fingerprint: string;
  network_reference: string;
  network: string;
  network_date: string | null;
  updated_at: Date | undefined;
}

export interface PaypalWebhookEventsTable {
  event_id: string;
  event_type: string;
  resource_id: string;
  reference: string | null;
  outcome: string;
  received_at: Date | undefined;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    paypal_operations: PaypalOperationsTable;
    paypal_cof: PaypalCofTable;
    paypal_webhook_events: PaypalWebhookEventsTable;
  }
}

export interface PaypalOperation {
  reference: string;
  kind: PaypalKind;
  amount: number;
  currency: string;
  clientId: string;
  orderId: string | null;
  paymentId: string | null;
  actionId: string | null;
  originalReference: string | null;
  terminalRef: TerminalRefRecord | null;
}

function toOperation(r: Selectable<PaypalOperationsTable>): PaypalOperation {
  return {
    reference: r.reference, kind: r.kind, amount: Number(r.amount), currency: r.currency, clientId: r.client_id, orderId: r.order_id,
    paymentId: r.payment_id, actionId: r.action_id, originalReference: r.original_reference, terminalRef: r.terminal_ref ?? null,
  };
}

export async function findOperation(db: Executor, reference: string): Promise<PaypalOperation | null> {
  const r = await db.selectFrom('paypal_operations').selectAll().where('reference', '=', reference).executeTakeFirst();
  return r ? toOperation(r) : null;
}

/** The operations of a PayPal order, or acting on (or done as) a capture or authorization id. */
export async function operationsOf(db: Executor, ids: { orderId?: string | null; paymentId?: string | null }): Promise<PaypalOperation[]> {
  let q = db.selectFrom('paypal_operations').selectAll();
  q = q.where((eb) => eb.or([
    ...(ids.orderId ? [eb('order_id', '=', ids.orderId)] : []),
    ...(ids.paymentId ? [eb('payment_id', '=', ids.paymentId), eb('action_id', '=', ids.paymentId)] : []),
  ]));
  if (!ids.orderId && !ids.paymentId) return [];
  return (await q.orderBy('created_at').execute()).map(toOperation);
}

/** Records an operation before it is sent; idempotent by reference. */
export async function recordOperation(db: Executor, op: Omit<PaypalOperation, 'actionId'>): Promise<PaypalOperation> {
  const inserted = await db
    .insertInto('paypal_operations')
    .values({
      reference: op.reference, kind: op.kind, amount: op.amount, currency: op.currency, client_id: op.clientId, order_id: op.orderId,
      payment_id: op.paymentId, action_id: null, original_reference: op.originalReference,
      terminal_ref: op.terminalRef ? JSON.stringify(op.terminalRef) : null, created_at: undefined,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return toOperation(inserted);
  const existing = await findOperation(db, op.reference);
  if (!existing) throw new Error('paypal: the operation could not be recorded');
  return existing;
}

export async function saveIds(db: Executor, reference: string, ids: { orderId?: string; paymentId?: string; actionId?: string }): Promise<void> {
  const set: { order_id?: string; payment_id?: string; action_id?: string } = {};
  if (ids.orderId) set.order_id = ids.orderId;
  if (ids.paymentId) set.payment_id = ids.paymentId;
  if (ids.actionId) set.action_id = ids.actionId;
  if (Object.keys(set).length > 0) await db.updateTable('paypal_operations').set(set).where('reference', '=', reference).execute();
}

export async function findCof(db: Executor, clientId: string, fingerprint: string): Promise<NetworkReference | null> {
  const r = await db.selectFrom('paypal_cof').select(['network_reference', 'network', 'network_date']).where('client_id', '=', clientId).where('card_fingerprint', '=', fingerprint).executeTakeFirst();
  return r ? { id: r.network_reference, network: r.network || null, date: r.network_date ?? null } : null;
}

/** Keeps a card's first network reference (the first one kept stays). */
export async function keepCof(db: Executor, clientId: string, fingerprint: string, ref: NetworkReference): Promise<void> {
  await db
    .insertInto('paypal_cof')
    .values({ client_id: clientId, card_fingerprint: fingerprint, network_reference: ref.id, network: ref.network ?? '', network_date: ref.date, updated_at: undefined })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Records a verified webhook; false when its event id was received before (a replay). */
export async function recordWebhook(db: Executor, e: { eventId: string; type: string; resourceId: string; reference: string | null; outcome: string }): Promise<boolean> {
  const r = await db
    .insertInto('paypal_webhook_events')
    .values({ event_id: e.eventId, event_type: e.type, resource_id: e.resourceId, reference: e.reference, outcome: e.outcome, received_at: undefined })
    .onConflict((oc) => oc.doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return !!r;
}
