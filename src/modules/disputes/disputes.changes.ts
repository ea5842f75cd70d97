/**
 * What a change of a dispute does beyond the dispute (docs/disputes.md "Events", "A lost dispute is money
 * out"), in the change's transaction: the order's dispute money handed to the payments module (its
 * interface: kept on the order, presented with it, exported, counted in the overview) and the dispute
 * event, always on the event log and the event stream, posted to the merchant's URL for dispute events
 * only when it gave one.
 */
import type { Executor } from '../../platform/db/database.js';
import type { Payments } from '../payments/index.js';
import type { EventsService } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import { eventsFrom, evidenceFields, moneyOf, type DisputeEvent } from './disputes.domain.js';
import * as repo from './disputes.repo.js';

export type DisputeEventType = 'DISPUTE_CREATED' | 'DISPUTE_SUBMITTED' | 'DISPUTE_ACCEPTED' | 'DISPUTE_WON' | 'DISPUTE_LOST' | 'DISPUTE_EXPIRED' | 'DISPUTE_ESCALATED';
export const EVENT_TYPE: Record<DisputeEvent, DisputeEventType> = { SUBMIT: 'DISPUTE_SUBMITTED', ACCEPT: 'DISPUTE_ACCEPTED', WIN: 'DISPUTE_WON', LOSE: 'DISPUTE_LOST', EXPIRE: 'DISPUTE_EXPIRED', ESCALATE: 'DISPUTE_ESCALATED' };
export const DISPUTE_EVENT_TYPES = ['DISPUTE_CREATED', ...Object.values(EVENT_TYPE)] as const;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentDispute(d: repo.DisputeRow) {
  return {
    uuid: d.id,
    order_uuid: d.order_id,
    transaction_uuid: d.transaction_id,
    source: d.source,
    acquirer: d.acquirer,
    provider_id: d.provider_id,
    reason_code: d.reason_code,
    category: d.category,
    amount: d.amount,
    currency: d.currency,
    stage: d.stage,
    status: d.status,
    evidence_due_at: d.evidence_due_at.toISOString(),
    submitted_at: iso(d.submitted_at),
    resolved_at: iso(d.resolved_at),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    money: moneyOf(d),
    evidence_fields: evidenceFields(d.category),
    actions: eventsFrom(d.status).filter((e) => e === 'SUBMIT' || e === 'ACCEPT'),
  };
}

/** What every dispute of an order means for it, in the order's currency. */
export function orderTotals(orderId: string, ds: repo.DisputeRow[]) {
  const t = { order_uuid: orderId, currency: ds[0]?.currency ?? null, disputes: ds.length, disputed: 0, lost: 0, won: 0 };
  for (const d of ds) {
    const m = moneyOf(d);
    t.disputed += m.disputed;
    t.lost += m.lost;
    t.won += m.won;
  }
  return t;
}

/**
 * Records a change of the dispute `d` (as it is now): its order's dispute money through the payments
 * module, and its event. The event is signed with the key that turned dispute events on when the merchant
 * gave a URL for them (and posted there, retried as its resend_failed_notifications says); otherwise with
 * the key that created the order, as the order's own notifications are, and not posted (NOT_SENT).
 */
export async function recordChange(
  deps: { payments: Payments; events: EventsService; merchants: MerchantsService },
  trx: Executor,
  d: repo.DisputeRow,
  type: DisputeEventType,
  now: Date,
): Promise<void> {
  const totals = orderTotals(d.order_id, await repo.disputesOfOrder(trx, { merchantId: d.merchant_id, env: d.env }, d.order_id));
  const order = await deps.payments.recordDisputeMoney(trx, { merchantId: d.merchant_id, orderId: d.order_id, disputed: totals.disputed, lost: totals.lost, won: totals.won, at: now });
  const s = await repo.settingsOf(trx, d.merchant_id);
  const optedIn = !!(s?.notification_url && s.key_id);
  const keyId = optedIn ? s!.key_id! : order?.keyId ?? null;
  if (!keyId) throw new Error(`dispute ${d.id}: its order ${d.order_id} is not an order of its merchant`);
  const m = optedIn ? await deps.merchants.findMerchant(trx, d.merchant_id) : null;
  await deps.events.enqueueNotification(trx, {
    merchantId: d.merchant_id,
    env: d.env,
    orderId: d.order_id,
    type,
    keyId,
    url: optedIn ? s!.notification_url! : null,
    payload: JSON.stringify({ dispute: presentDispute(d) }),
    retries: m?.resend_failed_notifications ?? false,
    at: now,
  });
}
