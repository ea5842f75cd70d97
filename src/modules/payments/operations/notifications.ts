/**
 * Processors' own notifications (webhooks) of an operation's outcome: the connector verifies the
 * notification and names our operation; a transaction still PENDING settles with that outcome (a
 * redirect APM completed on the provider's page, or a payment whose answer was lost). Settling is
 * idempotent: a transaction already settled is left as it is.
 */
import * as repo from '../payments.repo.js';
import type { PaymentsCore } from '../core.js';
import { settle } from './settle.js';

export type NotificationOutcome = 'settled' | 'already-settled' | 'ignored';

export async function processorNotification(core: PaymentsCore, connectorName: string, fields: Record<string, string>): Promise<NotificationOutcome> {
  const connector = core.deps.processors.connectorNamed(connectorName);
  if (!connector?.notification) return 'ignored';
  const n = await connector.notification(fields);
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
