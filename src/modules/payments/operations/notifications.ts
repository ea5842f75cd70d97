/**
 * Processors' own notifications (webhooks) of an operation's outcome: the connector verifies the
 * notification and names our operation; a transaction still PENDING settles with that outcome (a
 * redirect APM completed on the provider's page, or a payment whose answer was lost). Settling is
 * idempotent: a transaction already settled is left as it is.
 */
import { UUID_RE } from '../../../platform/ids.js';
import * as repo from '../payments.repo.js';
import type { PaymentsCore } from '../core.js';
import type { NotificationResult } from '../../../processors/index.js';
import { settle } from './settle.js';

export type NotificationOutcome = 'settled' | 'already-settled' | 'ignored' | 'dispute';

/**
 * What became of a notification, and the body its processor expects in the answer (null: none). The
 * acknowledgement is only given back once the notification was applied (or found not to need it), so a
 * processor that resends until acknowledged resends whatever failed before.
 */
export async function processorNotification(core: PaymentsCore, connectorName: string, fields: Record<string, string>): Promise<{ outcome: NotificationOutcome; acknowledgement: Record<string, unknown> | null }> {
  const connector = core.deps.processors.connectorNamed(connectorName);
  if (!connector?.notification) return { outcome: 'ignored', acknowledgement: null };
  const n = await connector.notification(fields);
  const outcome = await apply(core, connectorName, n);
  return { outcome, acknowledgement: n.acknowledgement ?? null };
}

async function apply(core: PaymentsCore, connectorName: string, n: NotificationResult): Promise<NotificationOutcome> {
  if (n.outcome === 'DISPUTE') {
    // a dispute of one of our payments: the disputes module records it (found here, as ours)
    const disputed = UUID_RE.test(n.notice.reference) ? await repo.findTransaction(core.db.db, n.notice.reference) : undefined;
    const sink = core.deps.processors.onDispute;
    if (!disputed || !sink) return 'ignored';
    const done = await sink(connectorName, n.notice, { merchantId: disputed.merchant_id, orderId: disputed.order_id, transactionId: disputed.id });
    return done === 'applied' ? 'dispute' : 'ignored';
  }
  if (n.outcome !== 'SETTLE') {
    core.p.logger.info({ connector: connectorName, reason: n.reason }, 'processor notification ignored');
    return 'ignored';
  }
  const tx = await repo.findTransaction(core.db.db, n.reference);
  if (!tx) return 'ignored';
  if (tx.status !== 'PENDING') return 'already-settled';
  await settle(core, tx.order_id, tx.id, n.result, { afterAnswer: true });
  core.p.logger.info({ connector: connectorName, transaction: tx.id, outcome: n.result.outcome }, 'settled by a processor notification');
  return 'settled';
}

/** The form a started redirect APM payment posts to the provider's page (by our reference), or null. */
export async function apmRedirectForm(core: PaymentsCore, connectorName: string, reference: string) {
  const connector = core.deps.processors.connectorNamed(connectorName);
  if (!connector?.apmRedirectForm) return null;
  const tx = await repo.findTransaction(core.db.db, reference);
  if (!tx || tx.status !== 'PENDING' || tx.processor_operation !== 'apmStart') return null;
  return connector.apmRedirectForm(reference);
}
