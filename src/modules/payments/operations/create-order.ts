/** B1: a payment order, created and not charged (also the first half of B3 and the orders other modules create). */
import { randomBytes, randomUUID } from 'node:crypto';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { Executor } from '../../../platform/db/database.js';
import { isAbsoluteHttpUrl, refusedUrlText } from '../../../platform/net/outgoing.js';
import { isUniqueViolation } from '../../../platform/db/database.js';
import type { Env } from '../../../platform/db/schema.js';
import { badRequest, conflict, notFound, registerConflictConstraint, unavailable } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import { currencyByCode, currencyFrom } from '../../../platform/money/currency.js';
import { findDefaultServiceForCurrency, findServiceWithTerminal, type ServiceWithTerminal } from '../../services/index.js';
import { EXPIRES_IN_DEFAULT } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import { orderWithTransactions } from '../fast.repo.js';
import type { NewOrder, OrderResult, PaymentsCore } from '../core.js';
import { checkOrderInput, normaliseExtraData } from './input.js';

/** An order just created, with the `extra_data` echo of B1 when the request carried it. */
export interface CreatedOrder extends OrderResult {
  extra?: { extra_data: unknown };
}

export interface CreateOptions {
  /**
   * The uuid of the new order, chosen by the caller so that a retried background step (a recurring charge,
   * a batch line) finds the order it created before a crash instead of creating a second one. When an
   * order with this uuid already exists for the caller's merchant and environment, it is returned as it is.
   */
  orderId?: string;
  /** `orderId` was drawn just now (a random uuid no earlier step used): no existing order is looked for. */
  fresh?: boolean;
}

export async function resolveService(core: PaymentsCore, ctx: RequestContext, input: NewOrder): Promise<ServiceWithTerminal> {
  const db = core.db.db;
  let currency: string | null = null;
  if (input.currency !== undefined && input.currency !== null) {
    const c = currencyFrom(input.currency);
    if (!c) throw badRequest(`currency "${input.currency}" is not an ISO 4217 currency (alpha-3 like EUR, or numeric like 978)`);
    currency = c.code;
  }
  let service: ServiceWithTerminal | undefined;
  if (input.service) {
    const key = `id:${input.service}`;
    service = core.services.get(key) ?? core.services.set(key, (await findServiceWithTerminal(db, input.service)) ?? null) ?? undefined;
    if (!service || service.merchant_id !== ctx.merchant.id || service.env !== ctx.env) throw notFound(`The service ${input.service} was not found`);
    if (!service.enabled || !service.currency_code) throw badRequest(`The service ${input.service} is not enabled (it has no terminal)`);
    if (currency && currency !== service.currency_code) {
      throw badRequest(`currency ${currency} does not match the service's currency ${service.currency_code}`);
    }
  } else {
    if (!currency) throw badRequest('currency is required when service is omitted');
    const key = `default:${ctx.merchant.id}:${currency}`;
    service = core.services.get(key) ?? core.services.set(key, (await findDefaultServiceForCurrency(db, ctx.merchant.id, currency)) ?? null) ?? undefined;
    if (!service) throw badRequest(`The merchant has no enabled service for currency ${currency}`);
  }
  return service;
}

/**
 * A production url_post must be one delivery may reach (issue of internal addresses accepted at creation
 * and refused only at delivery): judged now with the outgoing client's rules, 400 naming the rule.
 * url_ok and url_ko are not called by the gateway (the customer's browser goes there), so no network rule
 * applies to them. Sandbox URLs are judged at delivery only (a developer's machine, loopback allowed).
 */
export async function checkOutgoingUrls(core: PaymentsCore, env: Env, input: { url_post?: string | null }): Promise<void> {
  if (env !== 'production' || !isAbsoluteHttpUrl(input.url_post)) return;
  const refused = await core.p.outgoing.refusalOf(input.url_post, env);
  if (refused) throw badRequest(refusedUrlText('url_post', refused));
}

export function assertProcessable(core: PaymentsCore, env: Env, serviceType: string | null): void {
  if (serviceType !== null && !core.deps.processors.supports(serviceType, env)) {
    throw unavailable(`No processor connector is configured for services of type ${serviceType} in ${env}`);
  }
}

/** Builds and inserts an order (B1, B3) with `executor`. */
export async function insertOrder(
  core: PaymentsCore,
  executor: Executor,
  ctx: RequestContext,
  input: NewOrder,
  service: ServiceWithTerminal,
  sourceId: string | null,
  id: string = randomUUID(),
): Promise<repo.LockedOrder> {
  const currency = currencyByCode(service.currency_code!)!;
  const now = ctx.clock.now();
  const expiresIn = input.expires_in ?? EXPIRES_IN_DEFAULT;
  const extra = normaliseExtraData(input.extra_data);
  const row: repo.OrderRow = {
    id,
    merchant_id: ctx.merchant.id,
    env: ctx.env,
    key_id: ctx.keyId,
    service_id: service.id,
    service_type: service.type,
    operative: input.operative,
    amount: input.amount,
    currency: currency.code,
    currency_number: currency.number,
    secure: input.secure,
    status: 'CREATED',
    paid: false,
    safe: false,
    authorized: 0,
    captured: 0,
    refunded: 0,
    refund_reserved: 0,
    busy_tx_id: null,
    description: input.description,
    additional: input.additional ?? null,
    customer_ext_id: input.customer_ext_id === undefined || input.customer_ext_id === null ? null : String(input.customer_ext_id),
    cof_txnid: null,
    token: randomBytes(20).toString('hex'),
    ip: input.customer_ip ?? null,
    reference: input.reference ?? null,
    dynamic_descriptor: input.dynamic_descriptor ?? service.dynamic_descriptor ?? null,
    threeds_data: null,
    url_post: input.url_post ?? null,
    url_ok: input.url_ok ?? null,
    url_ko: input.url_ko ?? null,
    template_uuid: input.template_uuid ?? null,
    dcc_template_uuid: input.dcc_template_uuid ?? null,
    source_id: sourceId,
    save_card: input.save_card ?? true,
    extra_data: extra,
    expires_at: new Date(now.getTime() + expiresIn * 1000),
    created_at: now,
    updated_at: now,
  };
  if (row.reference !== null) {
    // a reference is held only while an order with it is paid, being paid or held: a retry of an order
    // that was never paid (Magento sends its order number again) is a new order
    const held = await repo.orderHoldingReference(executor, ctx.merchant.id, ctx.env, row.reference);
    if (held) throw conflict(referenceHeld(row.reference, held));
  }
  try {
    // B1 outside a transaction goes through the group commit; B3 inserts within its transaction. With an
    // Idempotency-Key, B1 inserts with the key's mark in one transaction: a retry whose answer was lost
    // (a failover, a node killed) never creates the order twice.
    const committed = executor === core.db.db ? IdempotencyStore.committedSql(ctx.merchant.id, ctx.idempotencyKey, undefined, row.id, ctx.idempotencyAttempt ?? null) : null;
    if (committed) {
      await core.db.transaction(async (trx) => {
        await repo.insertOrder(trx, row);
        await committed.execute(trx);
      });
    } else if (executor === core.db.db) await core.orderInserts.insert(row);
    else await repo.insertOrder(executor, row);
  } catch (err) {
    throw err;
  }
  return { ...row, m_offset: ctx.clock.offsetMs, m_timezone: ctx.merchant.timezone, m_resend: false, m_autorecover: false };
}

// two orders with one reference paid at once: the second's payment breaks the index (migration 0960)
registerConflictConstraint('orders_merchant_reference_held', 'Another order with the same reference is paid, being paid or held: this one cannot be paid');

/** The 409 of a reference held by another order. */
export function referenceHeld(reference: string, held?: { id: string; status: string }): string {
  return held
    ? `The order ${held.id} with reference "${reference}" is ${held.status}: a reference can be used again only when no order with it is paid, being paid or held`
    : `Another order with reference "${reference}" is paid, being paid or held: a reference can be used again only when no order with it is`;
}

/** B1: a payment order, not charged. */
export async function createOrder(core: PaymentsCore, ctx: RequestContext, input: NewOrder, opts: CreateOptions = {}): Promise<CreatedOrder> {
  checkOrderInput(input);
  if (opts.orderId && !opts.fresh) {
    // the order and its transactions in one statement (one snapshot): a payment settling meanwhile is
    // seen whole or not at all, never a SUCCESS transaction next to `paid: false`
    const existing = await orderWithTransactions(core.db.db, opts.orderId);
    if (existing) {
      const o = existing.order;
      if (o.merchant_id !== ctx.merchant.id || o.env !== ctx.env) throw conflict(`The order id ${opts.orderId} is taken`);
      return { order: core.present(o, existing.txs), merchantId: o.merchant_id, redirect: null, failed: null };
    }
  }
  assertProcessable(core, ctx.env, null);
  await checkOutgoingUrls(core, ctx.env, input);
  const service = await resolveService(core, ctx, input);
  assertProcessable(core, ctx.env, service.type);
  const sourceUuid = input.source_uuid ?? input.card_uuid ?? null;
  let sourceId: string | null = null;
  if (sourceUuid) sourceId = (await core.deps.sources.loadSource(core.db.db, { merchantId: ctx.merchant.id, env: ctx.env }, sourceUuid)).id;
  let o: repo.LockedOrder;
  try {
    o = await insertOrder(core, core.db.db, ctx, input, service, sourceId, opts.orderId);
  } catch (err) {
    // two retries of the same background step at once: the second finds the first's order
    if (opts.orderId && isUniqueViolation(err, 'orders_pkey')) {
      if (opts.fresh) throw conflict(`The order id ${opts.orderId} is taken`);
      return createOrder(core, ctx, input, opts);
    }
    throw err;
  }
  const extra = input.extra_data === undefined ? undefined : { extra_data: o.extra_data ?? null };
  return { order: core.present(o, []), merchantId: o.merchant_id, redirect: null, failed: null, extra };
}
