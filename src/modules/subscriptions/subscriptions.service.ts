/**
 * Recurring billing (section I): the company, products and plans of a merchant, subscriptions and
 * their charges.
 *
 * The schedule is data: each due charge is a job of the platform queue (`subscriptions.charge`) with
 * the merchant on it, due at the charge date on the merchant's clock (the sandbox test clock moves it),
 * claimed with SKIP LOCKED. A charge is a real order made through the payments module's public
 * interface, with an order id derived from (subscription, payment number, attempt), so a job that runs
 * twice, or two processes racing, find the same order and charge once. The payment row of each
 * (subscription, payment number, attempt) is unique in the database, and only the run that moves it out
 * of CREATED (under a row lock) moves the subscription on, schedules the next charge and notifies.
 */
import { randomUUID } from 'node:crypto';
import { IdempotencyStore } from '../../platform/http/idempotency.js';
import type { Executor } from '../../platform/db/database.js';
import { ApiError, badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import { refusedUrlText } from '../../platform/net/outgoing.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { EnqueueOptions, Job } from '../../platform/jobs/queue.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import { parseFilterDate } from '../../platform/time/format.js';
import type { EventsService, NewNotification } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OrderResult, Payments, PresentedOrder } from '../payments/index.js';
import { afterCharge, isActive, paymentTransition, subscriptionTransition, type PaymentEvent, type SubscriptionStatus } from './subscription-states.js';
import {
  addInterval,
  chargeDate,
  chargeOrderId,
  intervalType,
  localDay,
  parseInitialDate,
  paymentResult,
  presentCompany,
  presentPayment,
  presentPlan,
  presentProduct,
  presentSubscription,
  retryDate,
  type IntervalType,
} from './subscriptions.domain.js';
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

const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export interface ProductInput {
  name: string;
  external_id: string;
  notification_url?: string | null;
}

export interface PlanInput {
  name: string;
  external_id: string;
  product: string;
  amount: number;
  interval?: number | null;
  interval_type: string;
  trial_available?: boolean | null;
  interval_offset?: number | null;
  interval_offset_type?: string | null;
}

export interface SubscribeInput {
  plan: string;
  customer: string;
  total_payment_number?: number | null;
  payment_attempts_limit: number;
  initial_date?: string | null;
  additional_data?: {
    additional?: string | null;
    customer_ext_id?: string | null;
    operative?: string | null;
    service?: string | null;
    source_uuid?: string | null;
    card_uuid?: string | null;
    url_post?: string | null;
  } | null;
}

export interface ListQuery {
  status?: string;
  customer?: string;
  plan?: string;
  product?: string;
  subscription?: string;
  active?: boolean;
  start?: string;
  end?: string;
  limit?: number;
  offset?: number;
}

function checkUrl(field: string, v: string | null | undefined): void {
  if (v === undefined || v === null) return;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw badRequest(`${field} must be an absolute http or https URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${field} must be an absolute http or https URL`);
}

/** The outcome of one charge: what the payments module answered, or why it could not be asked. */
interface ChargeOutcome {
  event: PaymentEvent;
  order: PresentedOrder | null;
  error: string | null;
}

export class SubscriptionsService {
  /** Merchants' resend_failed_notifications, kept as long as the other caches of merchants (and dropped with them). */
  readonly #resend: TtlCache<boolean>;

  constructor(
    private readonly p: Platform,
    private readonly deps: SubscriptionsDeps,
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

  // ---- company (I1) -------------------------------------------------------------------------------------

  async #company(db: Executor, ctx: RequestContext): Promise<repo.CompanyRow> {
    const existing = await repo.findCompany(db, ownerOf(ctx));
    if (existing) return existing;
    const now = ctx.clock.now();
    return repo.ensureCompany(db, ownerOf(ctx), { id: randomUUID(), merchant_id: ctx.merchant.id, env: ctx.env, name: ctx.merchant.name, created_at: now, updated_at: now });
  }

  async createCompany(ctx: RequestContext) {
    return presentCompany(await this.#company(this.#db, ctx));
  }

  async getCompany(ctx: RequestContext) {
    const c = await repo.findCompany(this.#db, ownerOf(ctx));
    if (!c) throw notFound('The merchant has no company yet (POST /subscriptions/company creates it)');
    return presentCompany(c);
  }

  /** A production URL the gateway will call is judged now with the rules of delivery (400 naming the rule). */
  async #checkOutgoing(ctx: RequestContext, field: string, v: string | null | undefined): Promise<void> {
    if (ctx.env !== 'production' || !v) return;
    const refused = await this.p.outgoing.refusalOf(v, ctx.env);
    if (refused) throw badRequest(refusedUrlText(field, refused));
  }

  // ---- products (I2–I5) ---------------------------------------------------------------------------------

  async createProduct(ctx: RequestContext, input: ProductInput) {
    const name = input.name.trim();
    const externalId = String(input.external_id).trim();
    if (name === '') throw badRequest('name must not be empty');
    if (externalId === '') throw badRequest('external_id must not be empty');
    checkUrl('notification_url', input.notification_url);
    await this.#checkOutgoing(ctx, 'notification_url', input.notification_url);
    const now = ctx.clock.now();
    const row: repo.ProductRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      external_id: externalId,
      name,
      notification_url: input.notification_url ?? null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.p.database.transaction(async (trx) => {
      await this.#company(trx, ctx);
      if (await repo.findProduct(trx, ownerOf(ctx), externalId)) throw conflict(`A product with external_id "${externalId}" already exists`);
      try {
        await repo.insertProduct(trx, row);
      } catch (err) {
        if (isUnique(err)) throw conflict(`A product with external_id "${externalId}" already exists`);
        throw err;
      }
    });
    return presentProduct(row);
  }

  async #product(ctx: RequestContext, externalId: string): Promise<repo.ProductRow> {
    const p = await repo.findProduct(this.#db, ownerOf(ctx), externalId);
    if (!p) throw notFound(`The product ${externalId} was not found`);
    return p;
  }

  async listProducts(ctx: RequestContext) {
    return (await repo.listProducts(this.#db, ownerOf(ctx))).map(presentProduct);
  }

  async getProduct(ctx: RequestContext, externalId: string) {
    return presentProduct(await this.#product(ctx, externalId));
  }

  /** I5: the product is removed; its plans and subscriptions go on. */
  async deleteProduct(ctx: RequestContext, externalId: string): Promise<number> {
    const p = await this.#product(ctx, externalId);
    return repo.deleteProduct(this.#db, p.id, ctx.clock.now());
  }

  // ---- plans (I8–I11) -----------------------------------------------------------------------------------

  async createPlan(ctx: RequestContext, input: PlanInput) {
    const name = input.name.trim();
    const externalId = String(input.external_id).trim();
    if (name === '') throw badRequest('name must not be empty');
    if (externalId === '') throw badRequest('external_id must not be empty');
    const type = intervalType(input.interval_type);
    if (!type) throw badRequest('interval_type must be DAILY, WEEKLY, MONTHLY or ANNUAL (YEARLY)');
    let offsetType: IntervalType | null = null;
    if (input.interval_offset_type !== undefined && input.interval_offset_type !== null) {
      offsetType = intervalType(input.interval_offset_type);
      if (!offsetType) throw badRequest('interval_offset_type must be DAILY, WEEKLY, MONTHLY or ANNUAL (YEARLY)');
    }
    const offset = input.interval_offset ?? null;
    const trial = input.trial_available ?? false;
    if (trial && (offset === null || offsetType === null)) throw badRequest('a plan with trial_available needs interval_offset and interval_offset_type (how long the trial lasts)');
    if (offset !== null && offsetType === null) throw badRequest('interval_offset_type is required with interval_offset');
    const product = await this.#product(ctx, String(input.product));
    const now = ctx.clock.now();
    const row = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      product_id: product.id,
      external_id: externalId,
      name,
      amount: input.amount,
      interval: input.interval ?? 1,
      interval_type: type,
      interval_offset: offset,
      interval_offset_type: offsetType,
      trial_available: trial,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.p.database.transaction(async (trx) => {
      if (await repo.findPlan(trx, ownerOf(ctx), externalId)) throw conflict(`A plan with external_id "${externalId}" already exists`);
      try {
        await repo.insertPlan(trx, row);
      } catch (err) {
        if (isUnique(err)) throw conflict(`A plan with external_id "${externalId}" already exists`);
        throw err;
      }
    });
    return presentPlan({ ...row, amount: String(row.amount) }, product);
  }

  async #plan(ctx: RequestContext, externalId: string): Promise<repo.PlanRow> {
    const p = await repo.findPlan(this.#db, ownerOf(ctx), externalId);
    if (!p) throw notFound(`The plan ${externalId} was not found`);
    return p;
  }

  async #presentPlan(plan: repo.PlanRow) {
    return presentPlan(plan, (await repo.findProductById(this.#db, plan.product_id))!);
  }

  async listPlans(ctx: RequestContext, q: { product?: string } = {}) {
    let productId: string | undefined;
    if (q.product) productId = (await this.#product(ctx, q.product)).id;
    const plans = await repo.listPlans(this.#db, ownerOf(ctx), productId);
    return Promise.all(plans.map((p) => this.#presentPlan(p)));
  }

  async getPlan(ctx: RequestContext, externalId: string) {
    return this.#presentPlan(await this.#plan(ctx, externalId));
  }

  /** I11: the plan is removed; its subscriptions go on. */
  async deletePlan(ctx: RequestContext, externalId: string): Promise<number> {
    const p = await this.#plan(ctx, externalId);
    return repo.deletePlan(this.#db, p.id, ctx.clock.now());
  }

  // ---- subscriptions (I12–I15) --------------------------------------------------------------------------

  /**
   * I12. Registers the subscription and schedules its first charge: at once when there is no trial and
   * `initial_date` is today (the answer carries that charge's result), otherwise on that date or after
   * the trial.
   */
  async subscribe(ctx: RequestContext, input: SubscribeInput) {
    const plan = await this.#plan(ctx, String(input.plan));
    const product = (await repo.findProductById(this.#db, plan.product_id))!;
    const customer = String(input.customer).trim();
    if (customer === '') throw badRequest('customer must not be empty');
    const ad = input.additional_data ?? {};
    if (ad.source_uuid && ad.card_uuid && ad.source_uuid.toLowerCase() !== ad.card_uuid.toLowerCase()) throw badRequest('additional_data.source_uuid and additional_data.card_uuid differ');
    const operative = (ad.operative ?? 'AUTHORIZATION').toUpperCase();
    if (operative !== 'AUTHORIZATION') throw badRequest('additional_data.operative must be AUTHORIZATION (subscription charges are captured at once)');
    checkUrl('additional_data.url_post', ad.url_post);
    await this.#checkOutgoing(ctx, 'additional_data.url_post', ad.url_post);
    if (ad.customer_ext_id && String(ad.customer_ext_id) !== customer) throw badRequest('additional_data.customer_ext_id differs from customer');

    const tz = ctx.merchant.timezone;
    const now = ctx.clock.now();
    const today = localDay(now, tz);
    let base = now;
    if (input.initial_date !== undefined && input.initial_date !== null) {
      const parsed = parseInitialDate(input.initial_date, tz);
      if (!parsed) throw badRequest('initial_date must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
      if (parsed.day < today) throw badRequest(`initial_date must be today (${today}) or later`);
      base = parsed.day === today ? now : parsed.at;
    }
    let first = base;
    if (plan.trial_available && plan.interval_offset && plan.interval_offset_type) {
      first = addInterval(base, plan.interval_offset, plan.interval_offset_type as IntervalType, tz);
    }
    const additional = {
      additional: ad.additional ?? null,
      customer_ext_id: customer,
      operative,
      service: ad.service ?? null,
      source_uuid: ad.source_uuid ?? ad.card_uuid ?? null,
      url_post: ad.url_post ?? null,
    };
    const id = randomUUID();
    const company = await this.p.database.transaction(async (trx) => {
      const c = await this.#company(trx, ctx);
      await repo.insertSubscription(trx, {
        id,
        merchant_id: ctx.merchant.id,
        env: ctx.env,
        key_id: ctx.keyId,
        plan_id: plan.id,
        customer_ext_id: customer,
        additional_data: JSON.stringify(additional),
        amount: Number(plan.amount),
        interval: plan.interval,
        interval_type: plan.interval_type,
        status: 'CREATED',
        active: true,
        total_payment_number: input.total_payment_number ?? null,
        payment_attempts_limit: input.payment_attempts_limit,
        first_charge_date: first,
        next_charge_date: first,
        created_at: now,
        updated_at: now,
      });
      await this.p.jobs.enqueue(trx, this.#chargeJob(ctx, { subscriptionId: id, paymentNumber: 1, attempt: 1, keyId: ctx.keyId }, first));
      // with an Idempotency-Key: a retry whose answer was lost never subscribes (and charges) twice
      await IdempotencyStore.commit(trx, ctx);
      return c;
    });

    const refs = { subscriptionId: id, plan: plan.external_id, product: product.external_id, customer, company: company.id };
    if (first.getTime() <= now.getTime()) {
      // the first charge now, in this request; its job finds it done
      try {
        const payment = await this.charge({ subscriptionId: id, paymentNumber: 1, attempt: 1, keyId: ctx.keyId, at: first.toISOString() });
        if (payment) return paymentResult(payment, refs);
      } catch (err) {
        // the background job got there first: its result follows by notification
        if (err instanceof ChargeInProgress) return paymentResult(err.payment, refs);
        // not settled now (the processor is unreachable, ...): the scheduled job goes on with it
        this.p.logger.warn({ subscription: id, err: err instanceof Error ? err.message : String(err) }, 'first charge left to its job');
      }
    }
    return {
      ...paymentResult(
        { id: null as unknown as string, subscription_id: id, payment_number: 1, attempt: 1, amount: plan.amount, currency: null, status: 'CREATED', payment_date: first, order_id: null, transaction_id: null, source_uuid: additional.source_uuid, error: null, created_at: now, updated_at: now },
        refs,
      ),
    };
  }

  async #presentSubscriptions(rows: repo.SubscriptionRow[]) {
    const payments = await repo.paymentsOf(this.#db, rows.map((r) => r.id));
    const plans = new Map<string, Awaited<ReturnType<SubscriptionsService['getPlanById']>>>();
    const out = [];
    for (const s of rows) {
      if (!plans.has(s.plan_id)) plans.set(s.plan_id, await this.getPlanById(s.plan_id));
      out.push(presentSubscription(s, plans.get(s.plan_id)!, payments.filter((p) => p.subscription_id === s.id)));
    }
    return out;
  }

  async getPlanById(id: string) {
    return this.#presentPlan((await repo.findPlanById(this.#db, id))!);
  }

  async getSubscription(ctx: RequestContext, id: string) {
    const s = await repo.findSubscription(this.#db, ownerOf(ctx), id);
    if (!s) throw notFound(`The subscription ${id} was not found`);
    return (await this.#presentSubscriptions([s]))[0];
  }

  #range(ctx: RequestContext, q: ListQuery): { start?: Date; end?: Date } {
    const out: { start?: Date; end?: Date } = {};
    for (const k of ['start', 'end'] as const) {
      const v = q[k];
      if (v === undefined) continue;
      const d = parseFilterDate(v, ctx.merchant.timezone);
      if (!d) throw badRequest(`${k} must be a date YYYYMMDDHHmm`);
      out[k] = d;
    }
    return out;
  }

  async listSubscriptions(ctx: RequestContext, q: ListQuery) {
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    const owner = ownerOf(ctx);
    let planId: string | undefined;
    let productId: string | undefined;
    if (q.plan) {
      const plan = await repo.findPlan(this.#db, owner, q.plan);
      if (!plan) return { count: 0, subscriptions: [], next_offset: null };
      planId = plan.id;
    }
    if (q.product) {
      const product = await repo.findProduct(this.#db, owner, q.product);
      if (!product) return { count: 0, subscriptions: [], next_offset: null };
      productId = product.id;
    }
    const { rows, count } = await repo.listSubscriptions(this.#db, owner, {
      status: q.status, customer: q.customer, planId, productId, active: q.active, ...this.#range(ctx, q), limit, offset,
    });
    return { count, subscriptions: await this.#presentSubscriptions(rows), next_offset: offset + rows.length < count ? offset + rows.length : null };
  }

  /** I15: no charge is made after this; answers 1 when it was cancelled now, 0 when it had ended already. */
  async cancel(ctx: RequestContext, id: string): Promise<number> {
    return this.p.database.transaction(async (trx) => {
      const s = await repo.findSubscription(trx, ownerOf(ctx), id, { forUpdate: true });
      if (!s) throw notFound(`The subscription ${id} was not found`);
      if (!isActive(s.status)) return 0;
      const status = subscriptionTransition(s.status, 'CANCEL');
      await repo.updateSubscription(trx, s.id, { status, active: isActive(status), next_charge_date: null, updated_at: ctx.clock.now() });
      await trx
        .deleteFrom('jobs')
        .where('queue', '=', CHARGE_QUEUE)
        .where('status', '=', 'pending')
        .where('dedupe_key', 'like', `charge:${s.id}:%`)
        .execute();
      return 1;
    });
  }

  // ---- subscription payments (I6, I7) -------------------------------------------------------------------

  async getPayment(ctx: RequestContext, id: string) {
    const pay = await repo.findPayment(this.#db, ownerOf(ctx), id);
    if (!pay) throw notFound(`The payment ${id} was not found`);
    const s = (await repo.findSubscription(this.#db, ownerOf(ctx), pay.subscription_id))!;
    const [sub] = await this.#presentSubscriptions([s]);
    const { payments: _payments, ...subscription } = sub;
    return { ...presentPayment(pay), subscription };
  }

  async listPayments(ctx: RequestContext, q: ListQuery) {
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    let subscriptionId: string | undefined;
    if (q.subscription) {
      const s = await repo.findSubscription(this.#db, ownerOf(ctx), q.subscription);
      if (!s) return { count: 0, payments: [], next_offset: null };
      subscriptionId = s.id;
    }
    const { rows, count } = await repo.listPayments(this.#db, ownerOf(ctx), { status: q.status, subscriptionId, ...this.#range(ctx, q), limit, offset });
    return {
      count,
      payments: rows.map((r) => ({ ...presentPayment(r), subscription: r.subscription_id })),
      next_offset: offset + rows.length < count ? offset + rows.length : null,
    };
  }

  /**
   * The failed charge attempts (declined, or not chargeable), newest due first, each with why it failed
   * and what happens next: RETRIED (a later attempt of the same payment exists; its status), SCHEDULED
   * (the retry is due at `next_attempt_at`) or NONE (the subscription ended: no retry).
   */
  async failedCharges(ctx: RequestContext, page: { limit?: number; offset?: number } = {}) {
    const limit = page.limit ?? 50;
    const offset = page.offset ?? 0;
    const owner = ownerOf(ctx);
    const { rows, count } = await repo.listFailedPayments(this.#db, owner, { limit, offset });
    const ids = [...new Set(rows.map((r) => r.subscription_id))];
    const subs = new Map((await repo.subscriptionsByIds(this.#db, owner, ids)).map((s) => [s.id, s]));
    const all = await repo.paymentsOf(this.#db, ids);
    const plans = new Map<string, repo.PlanRow | undefined>();
    for (const s of subs.values()) if (!plans.has(s.plan_id)) plans.set(s.plan_id, await repo.findPlanById(this.#db, s.plan_id));
    const charges = rows.map((p) => {
      const s = subs.get(p.subscription_id)!;
      const later = all.filter((x) => x.subscription_id === p.subscription_id && x.payment_number === p.payment_number && x.attempt > p.attempt);
      const last = later[later.length - 1];
      let retry: 'RETRIED' | 'SCHEDULED' | 'NONE' = 'NONE';
      if (last) retry = 'RETRIED';
      else if (s.active && s.next_charge_date && s.next_payment_number === p.payment_number) retry = 'SCHEDULED';
      const plan = plans.get(s.plan_id);
      return {
        id: p.id,
        subscription: p.subscription_id,
        customer: s.customer_ext_id,
        plan: plan?.external_id ?? '',
        subscription_status: s.status,
        payment_number: p.payment_number,
        attempt: p.attempt,
        status: p.status,
        payment_date: new Date(p.payment_date).toISOString(),
        amount: Number(p.amount),
        currency: p.currency,
        order_uuid: p.order_id,
        reason: p.error,
        retry,
        retry_attempt: last ? last.attempt : null,
        retry_status: last ? last.status : null,
        next_attempt_at: retry === 'SCHEDULED' ? new Date(s.next_charge_date!).toISOString() : null,
        attempts_limit: s.payment_attempts_limit,
      };
    });
    return { count, charges, next_offset: offset + rows.length < count ? offset + rows.length : null };
  }

  // ---- the schedule -------------------------------------------------------------------------------------

  /** The job of the charge `ref`, due at `at` on the merchant's clock (a sandbox clock moves the job). */
  #chargeJob(ctx: RequestContext, ref: ChargeRef, at: Date): EnqueueOptions<ChargeRef> {
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
          ...(nextRef && nextAt ? [this.p.jobs.insertSql(this.#chargeJob(ctx, nextRef, nextAt), when)] : []),
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
      if (plan.nextRef && plan.nextAt) await this.p.jobs.enqueue(trx, this.#chargeJob(ctx, plan.nextRef, plan.nextAt));
      if (sub.notification_url) {
        const company = sub.company_id ?? (await this.#company(trx, ctx)).id;
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

function hasPending(o: PresentedOrder): boolean {
  return (o.transactions ?? []).some((t: { status?: string }) => t.status === 'PENDING');
}

/**
 * A charge whose attempts failed on our side (transaction ERROR: the processor was not reached, timed
 * out, or a crash cut the attempt short) is paid again on the same order, up to this many times, before
 * it counts as a failed attempt of the subscription: the card was not declined.
 */
const ERROR_RETRIES = 3;

function lastTx(o: PresentedOrder): { status?: string } | undefined {
  const txs = (o.transactions ?? []) as Array<{ status?: string }>;
  return txs[txs.length - 1];
}

/** The order was charged (the payments module reads an order and its transactions in one snapshot). */
function isPaid(o: PresentedOrder): boolean {
  return o.paid;
}

function retryableError(o: PresentedOrder): boolean {
  return !isPaid(o) && lastTx(o)?.status === 'ERROR' && (o.transactions ?? []).length < ERROR_RETRIES;
}

/** The outcome an order already shows (a repeated run), or null when it is to be paid (again). */
function decidedBy(o: PresentedOrder): ChargeOutcome | null {
  if (isPaid(o)) return { event: 'APPROVED', order: o, error: null };
  const txs = (o.transactions ?? []) as Array<{ status?: string }>;
  if (txs.length === 0 || hasPending(o) || retryableError(o)) return null;
  return { event: 'DECLINED', order: o, error: 'The payment was declined' };
}

function isUnique(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}
