/** Steps 2 and 3 of a payment once step 1 has committed (card payments, payouts, APM payments). */
import { badRequest } from '../../../platform/errors/errors.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, Started } from '../core.js';
import { callAndSettlePayment } from '../money/run.js';
import { tryFrictionless } from './threeds.js';

/** Steps 2 and 3 after step 1 of a payment: answer, redirect to 3DS, or call the processor and settle. */
export async function finishStarted(core: PaymentsCore, started: Started): Promise<OrderResult> {
  if (started.kind === 'done') {
    if (started.result.failed) throw badRequest(started.result.failed);
    return started.result;
  }
  if (started.kind === '3ds') {
    if (started.tryFrictionless) {
      const done = await tryFrictionless(core, started.orderId, started.exemption ?? null);
      if (done) return done;
    }
    const db = core.db.db;
    const o = await repo.findOrder(db, started.orderId);
    return { order: core.present(o!, await repo.transactionsOf(db, started.orderId)), merchantId: o!.merchant_id, redirect: started.url, failed: null };
  }
  return callAndSettlePayment(core, started, { safe: started.safe });
}
