/**
 * Recurring billing's schedule (section I): each due charge is a job of the platform queue
 * (`subscriptions.charge`) with the merchant on it, due at the charge date on the merchant's clock (the
 * sandbox test clock moves it), claimed with SKIP LOCKED. A charge is a real order made through the
 * payments module's public interface, with an order id derived from (subscription, payment number,
 * attempt), so a job that runs twice, or two processes racing, find the same order and charge once. The
 * payment row of each (subscription, payment number, attempt) is unique in the database, and only the run
 * that moves it out of CREATED (under a row lock) moves the subscription on, schedules the next charge and
 * notifies; a charge that fails is tried again on the retry dates (dunning) up to the attempts limit.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, badRequest } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { EnqueueOptions, Job } from '../../platform/jobs/queue.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import type { EventsService, NewNotification } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OrderResult, Payments } from '../payments/index.js';
import { decidedBy, hasPending, isPaid, retryableError, type ChargeOutcome } from './charge-outcome.js';
import { afterCharge, isActive, paymentTransition, subscriptionTransition, type SubscriptionStatus } from './subscription-states.js';
import type { SubscriptionsCatalogue } from './subscriptions.catalogue.js';
import { chargeDate, chargeOrderId, paymentResult, retryDate, type IntervalType } from './subscriptions.domain.js';
import * as repo from './subscriptions.repo.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export const CHARGE_QUEUE = 'subscriptions.charge';
export const SUBSCRIPTION_PAYMENT_EVENT = 'SUBSCRIPTION_PAYMENT';

/** Another run is charging this payment right now (the job tries again later). */
export class ChargeInProgress extends Error {
  constructor(readonly payment: repo.PaymentRow) {
    super('This charge is being made by another run');
    this.name = 'ChargeInProgress';
  }
}

export interface SubscriptionsDeps {
  payments: Payments;
  merchants: MerchantsService;
  events: EventsService;
}

export interface ChargeRef {
  subscriptionId: string;
  paymentNumber: number;
  attempt: number;
  /** The key the subscription acts for (read from the subscription when absent: jobs queued before it was carried). */
  keyId?: string;
  /** When the charge is due (ISO 8601, merchant clock): its payment date. */
  at?: string;
}

export class SubscriptionsBilling {
  /** Merchants' resend_failed_notifications, kept as long as the other caches of merchants (and dropped with them). */
  readonly #resend: TtlCache<boolean>;

  constructor(
    private readonly p: Platform,
    private readonly deps: SubscriptionsDeps,
    private readonly catalogue: SubscriptionsCatalogue,
  ) {
    this.#resend = new TtlCache(p.config.cacheTtlMs);
    p.invalidation?.onInvalidate(() => this.#resend.clear());
  }

  /** Whether the merchant's notifications are sent again when they fail (its setting, cached briefly). */
  async #resendOf(merchantId: string): Promise<boolean> {
    const hit = this.#resend.get(merchantId);
    if (hit !== undefined) return hit;
    const resend = (await this.deps.merchants.findMerchant(this.#db, merchantId))?.resend_failed_notifications ?? false;
    return this.#resend.set(merchantId, resend);
  }

  get #db() {
    return this.p.database.db;
  }
  /** The job of the charge `ref`, due at `at` on the merchant's clock (a sandbox clock moves the job). */
  chargeJob(ctx: RequestContext, ref: ChargeRef, at: Date): EnqueueOptions<ChargeRef> {
    return {
      queue: CHARGE_QUEUE,
      payload: { ...ref, at: at.toISOString() },
      runAt: new Date(at.getTime() - ctx.clock.offsetMs),
      merchantId: ctx.merchant.id,
      maxAttempts: 20,
      dedupeKey: `charge:${ref.subscriptionId}:${ref.paymentNumber}:${ref.attempt}`,
    };
  }

  registerJobs(): void {
    this.p.jobs.register<ChargeRef>(CHARGE_QUEUE, async (job: Job<ChargeRef>) => {
      await this.charge(job.payload);
    });
  }

  /**
   * Makes the charge `ref` once, however often it is called and by how many processes at once: the
   * payment row is unique per (subscription, number, attempt), the order id is derived from it, and only
   * the call that settles the payment row moves the subscription on. Returns the payment, or null when
   * the subscription no longer charges.
   *
   * Three steps, each short: (1) under the subscription's lock, the payment row is made (or found) and
   * leased to this run; (2) the order is created and paid through the payments module, outside any
   * transaction of ours; (3) under the lock again, the payment and the subscription are settled in one
   * statement, the next charge is scheduled and the product is notified, in one transaction.
   */
  async charge(ref: ChargeRef): Promise<repo.PaymentRow | null> {
    let keyId = ref.keyId;
    if (!keyId) {
      const s0 = await this.#db.selectFrom('subscriptions').select('key_id').where('id', '=', ref.subscriptionId).executeTakeFirst();
      if (!s0) return null;
      keyId = s0.key_id;
    }
    const ctx = await this.deps.merchants.contextForKey(keyId);
    const tz = ctx.merchant.timezone;

    // 1. the payment row of this charge (made once), leased to this run: in one statement when it is the
    // subscription's next charge and nothing was made for it yet, else in a transaction that finds out why
    const claimed: { s: repo.ChargeRow; payment: repo.PaymentRow; busy: boolean; version?: string } | null = (await this.#claimDue(ctx, ref)) ?? (await this.p.database.transaction(async (trx) => {
      const s = await repo.lockForCharge(trx, ref.subscriptionId, ref.paymentNumber, ref.attempt);
      if (!s) return null;
      let payment = s.payment;
      // the lease of this run on the charge: a run holding a live one is charging it now; it is held as
      // long as the job's own lease, so a run that died frees the charge when its job is claimed again
      const realNow = this.p.clock.now();
      const until = new Date(realNow.getTime() + this.p.config.jobLeaseMs);
      if (!payment) {
        if (!s.active || s.next_payment_number !== ref.paymentNumber || s.next_attempt !== ref.attempt) {
          // not this charge's turn, or a run settled it after this transaction's read (the lock's wait)
          const settled = await repo.paymentOf(trx, s.id, ref.paymentNumber, ref.attempt);
          return settled ? { s, payment: settled, busy: false } : null;
        }
        const due = chargeDate(s.first_charge_date, ref.paymentNumber, s.interval, s.interval_type as IntervalType, tz);
        const now = ctx.clock.now();
        const inserted = await repo.insertPayment(trx, {
          id: randomUUID(),
          subscription_id: s.id,
          merchant_id: s.merchant_id,
          env: s.env,
          payment_number: ref.paymentNumber,
          attempt: ref.attempt,
          amount: Number(s.amount),
          currency: null,
          status: 'CREATED',
          payment_date: ref.attempt === 1 ? due : retryDate(due, ref.attempt, tz),
          order_id: null,
          transaction_id: null,
          source_uuid: (s.additional_data?.source_uuid as string | null | undefined) ?? null,
          error: null,
          charging_until: until,
          created_at: now,
          updated_at: now,
        });
        if (inserted) return { s, payment: inserted, busy: false };
        // another run made it after this transaction's read (the lock's wait): read it afresh
        payment = (await repo.paymentOf(trx, s.id, ref.paymentNumber, ref.attempt))!;
      }
      if (payment.status !== 'CREATED') return { s, payment, busy: false };
      // a guarded write, not the read above: a run that leased it meanwhile is seen here
      const leased = await repo.leasePayment(trx, payment.id, until, realNow);
      if (leased) return { s, payment: leased, busy: false };
      const fresh = (await repo.paymentOf(trx, s.id, ref.paymentNumber, ref.attempt))!;
      return { s, payment: fresh, busy: fresh.status === 'CREATED' };
    }));
    if (!claimed) return null;
    if (claimed.payment.status !== 'CREATED') return claimed.payment;
    if (claimed.busy) throw new ChargeInProgress(claimed.payment);
    const { s } = claimed;

    // 2. the order, created and paid through the payments module (outside any transaction of ours); a
    // subscription cancelled since a run died mid-charge is not charged now, only settled
    const outcome = s.active ? await this.#chargeOrder(ctx, s, ref) : await this.#settleOnly(ctx, s, ref);
    const resend = s.notification_url ? await this.#resendOf(s.merchant_id) : false;

    // 3. settle the payment and move the subscription on, once: in one statement when the subscription
    // is as the claim read it, else under its lock
    if (claimed.version && (s.company_id || !s.notification_url)) {
      const plan = this.#settlement(ctx, s, claimed.payment, ref, outcome);
      if (plan.subSet) {
        const { nextRef, nextAt } = plan;
        const done = await repo.settleChargeAtVersion(this.#db, s.id, claimed.version, claimed.payment.id, plan.paySet, plan.subSet, (when) => [
          ...(nextRef && nextAt ? [this.p.jobs.insertSql(this.chargeJob(ctx, nextRef, nextAt), when)] : []),
          ...(s.notification_url ? this.deps.events.notificationSql(this.#notification(ctx, s, plan.settled, resend), when) : []),
        ]);
        if (done) {
          this.p.jobs.poke();
          return plan.settled;
        }
      }
    }
    return this.p.database.transaction(async (trx) => {
      const sub = (await repo.lockForCharge(trx, s.id, ref.paymentNumber, ref.attempt))!;
      const pay = sub.payment!;
      if (pay.status !== 'CREATED') return pay;
      const plan = this.#settlement(ctx, sub, pay, ref, outcome);
      // guarded by the payment's status (written, not the read above): another run that settled it
      // meanwhile makes this write nothing, and its result is answered
      if (!(await repo.settleCharge(trx, pay.id, plan.paySet, sub.id, plan.subSet))) {
        return (await repo.paymentOf(trx, sub.id, ref.paymentNumber, ref.attempt))!;
      }
      if (plan.nextRef && plan.nextAt) await this.p.jobs.enqueue(trx, this.chargeJob(ctx, plan.nextRef, plan.nextAt));
      if (sub.notification_url) {
        const company = sub.company_id ?? (await this.catalogue.company(trx, ctx)).id;
        await this.deps.events.enqueueNotification(trx, this.#notification(ctx, { ...sub, company_id: company }, plan.settled, resend));
      }
      return plan.settled;
    });
  }

  /**
   * What settling a charge writes, from the subscription `sub` as it is now: the payment's outcome, the
   * subscription's next state (null when it no longer charges) and its next charge.
   */
  #settlement(ctx: RequestContext, sub: repo.SubscriptionRow, pay: repo.PaymentRow, ref: ChargeRef, outcome: ChargeOutcome) {
    const tz = ctx.merchant.timezone;
    const now = ctx.clock.now();
    const status = paymentTransition(pay.status, outcome.event);
    const tx = outcome.order?.transactions?.[outcome.order.transactions.length - 1] as { uuid?: string } | undefined;
    const currency = outcome.order ? (currencyByNumber(String(outcome.order.currency))?.code ?? String(outcome.order.currency)) : null;
    const paySet = { status, order_id: outcome.order?.uuid ?? null, transaction_id: tx?.uuid ?? null, currency, error: outcome.error, updated_at: now };
    const settled: repo.PaymentRow = { ...pay, ...paySet, charging_until: null };
    let subSet: NonNullable<Parameters<typeof repo.settleChargeAtVersion>[5]> | null = null;
    let nextRef: ChargeRef | null = null;
    let nextAt: Date | null = null;
    if (isActive(sub.status)) {
      const event = afterCharge(status as 'PAID' | 'FAILED' | 'FAILED_NOTIFICATION', {
        paymentNumber: ref.paymentNumber,
        attempt: ref.attempt,
        totalPaymentNumber: sub.total_payment_number,
        attemptsLimit: sub.payment_attempts_limit,
      });
      const next: SubscriptionStatus = subscriptionTransition(sub.status, event);
      const type = sub.interval_type as IntervalType;
      if (event === 'CHARGE_PAID') {
        const n = ref.paymentNumber + 1;
        nextRef = { subscriptionId: sub.id, paymentNumber: n, attempt: 1, keyId: sub.key_id };
        nextAt = chargeDate(sub.first_charge_date, n, sub.interval, type, tz);
      } else if (event === 'CHARGE_FAILED') {
        const attempt = ref.attempt + 1;
        nextRef = { subscriptionId: sub.id, paymentNumber: ref.paymentNumber, attempt, keyId: sub.key_id };
        nextAt = retryDate(chargeDate(sub.first_charge_date, ref.paymentNumber, sub.interval, type, tz), attempt, tz);
      }
      subSet = {
        status: next,
        active: isActive(next),
        next_charge_date: nextAt,
        next_payment_number: nextRef?.paymentNumber ?? sub.next_payment_number,
        next_attempt: nextRef?.attempt ?? sub.next_attempt,
        total_payment_charged: sub.total_payment_charged + (status === 'PAID' ? 1 : 0),
        updated_at: now,
      };
    }
    return { paySet, settled, subSet, nextRef, nextAt };
  }

  /** Step 1 of a charge in one statement (see repo.insertDuePayment); null when that cannot be. */
  async #claimDue(ctx: RequestContext, ref: ChargeRef): Promise<{ s: repo.ChargeRow; payment: repo.PaymentRow; busy: false; version?: string } | null> {
    if (!ref.at) return null;
    const paymentDate = new Date(ref.at);
    if (Number.isNaN(paymentDate.getTime())) return null;
    const now = ctx.clock.now();
    const until = new Date(this.p.clock.now().getTime() + this.p.config.jobLeaseMs);
    const id = randomUUID();
    const s = await repo.insertDuePayment(this.#db, { id, subscriptionId: ref.subscriptionId, paymentNumber: ref.paymentNumber, attempt: ref.attempt, paymentDate, until, now });
    if (!s) return null;
    const payment: repo.PaymentRow = {
      id,
      subscription_id: s.id,
      merchant_id: s.merchant_id,
      env: s.env,
      payment_number: ref.paymentNumber,
      attempt: ref.attempt,
      amount: String(s.amount),
      currency: null,
      status: 'CREATED',
      payment_date: paymentDate,
      order_id: null,
      transaction_id: null,
      source_uuid: (s.additional_data?.source_uuid as string | null | undefined) ?? null,
      error: null,
      charging_until: until,
      created_at: now,
      updated_at: now,
    };
    const { version, ...sub } = s;
    return { s: { ...sub, payment: null }, payment, busy: false, version };
  }

  /** The outcome of a charge that must not be paid now: what its order shows, if it has one. */
  async #settleOnly(ctx: RequestContext, s: repo.SubscriptionRow, ref: ChargeRef): Promise<ChargeOutcome> {
    const existing = await this.deps.payments.getOrder(ctx, chargeOrderId(s.id, ref.paymentNumber, ref.attempt)).catch(() => null);
    if (existing && hasPending(existing.order)) throw new Error('the charge is still pending at the processor');
    if (existing && isPaid(existing.order)) return { event: 'APPROVED', order: existing.order, error: null };
    return { event: 'DECLINED', order: existing?.order ?? null, error: 'The subscription was cancelled before this charge was made' };
  }

  /** Creates (or finds) the order of the charge and pays it with the stored card, merchant-initiated. */
  async #chargeOrder(ctx: RequestContext, s: repo.SubscriptionRow, ref: ChargeRef): Promise<ChargeOutcome> {
    const ad = (s.additional_data ?? {}) as Record<string, string | null>;
    const orderId = chargeOrderId(s.id, ref.paymentNumber, ref.attempt);
    const source = ad.source_uuid ?? null;
    let result: OrderResult;
    try {
      if (!source) throw badRequest('The subscription has no card (additional_data.source_uuid)');
      const created = await this.deps.payments.create(
        ctx,
        {
          amount: Number(s.amount),
          operative: 'AUTHORIZATION',
          secure: false,
          description: `Subscription ${s.id}, payment ${ref.paymentNumber}${ref.attempt > 1 ? `, attempt ${ref.attempt}` : ''}`,
          customer_ext_id: s.customer_ext_id,
          service: ad.service ?? null,
          currency: ad.service ? null : 'EUR',
          additional: ad.additional ?? null,
          url_post: ad.url_post ?? null,
          source_uuid: source,
          expires_in: 86_400,
          extra_data: { cof: { reason: 'RECURRING' } },
        },
        { orderId },
      );
      const decided = decidedBy(created.order);
      if (decided) return decided;
      result = await this.deps.payments.pay(ctx, orderId, { channel: 'MIT', mit: 'RECURRING', card: { kind: 'source', sourceUuid: source } });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      // a raced or repeated run: the order may have been paid by the other one
      const existing = await this.deps.payments.getOrder(ctx, orderId).catch(() => null);
      if (existing) {
        if (hasPending(existing.order)) throw err; // still being paid elsewhere: the job runs again
        const decided = decidedBy(existing.order);
        if (decided) return decided;
      }
      if (err.status === 409) throw err;
      return { event: 'NOT_CHARGEABLE', order: existing?.order ?? null, error: err.message };
    }
    if (hasPending(result.order)) throw new Error('the charge is still pending at the processor');
    // failed on our side, not declined: the job pays the same order again shortly
    if (retryableError(result.order)) throw new Error('the charge failed before the card was charged; it is tried again');
    const paid = isPaid(result.order);
    return { event: paid ? 'APPROVED' : 'DECLINED', order: result.order, error: paid ? null : 'The payment was declined' };
  }

  /** The product's notification of a settled charge (the product has a notification_url). */
  #notification(ctx: RequestContext, s: repo.ChargeRow, pay: repo.PaymentRow, resend: boolean): NewNotification {
    const body = paymentResult(pay, { subscriptionId: s.id, plan: s.plan_external_id, product: s.product_external_id, customer: s.customer_ext_id, company: s.company_id ?? '' });
    return {
      merchantId: s.merchant_id,
      env: s.env,
      orderId: pay.order_id,
      type: SUBSCRIPTION_PAYMENT_EVENT,
      keyId: s.key_id,
      url: s.notification_url!,
      payload: JSON.stringify(body),
      retries: resend,
      at: ctx.clock.now(),
    };
  }
}
