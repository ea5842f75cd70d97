/**
 * The payments module's service: one object that the routes, the pages and other modules call. Each
 * operation lives in its own file under `operations/`; they share `PaymentsCore` (core.ts).
 *
 * Money-moving steps follow one pattern (design.md principle 8):
 *   1. in a transaction that locks the order row: check state, amounts and retry rules; write a PENDING
 *      transaction and reserve what it needs (status, refund reservation, busy marker); commit;
 *   2. call the processor, outside any database transaction;
 *   3. in a new transaction that locks the order row again: settle the transaction and the order through
 *      the transition table, enqueue the notification; commit.
 * A crash or timeout between 1 and 3 leaves a PENDING transaction that the reconciler settles.
 */
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { ApmMethod } from '../../processors/index.js';
import { PaymentsCore, type NewOrder, type OrderResult, type PayInput, type PaymentsDeps, type PresentedOrder } from './core.js';
import * as repo from './payments.repo.js';
import { notFound } from '../../platform/errors/errors.js';
import * as background from './operations/background.js';
import { completeApm, payApmByToken, pendingApm, startApm, type ApmRecord, type ApmStarted, type StartApmInput } from './operations/apm.js';
import { createOrder, type CreatedOrder, type CreateOptions } from './operations/create-order.js';
import { cancel, confirm, refund } from './operations/follow-up.js';
import { attachMetadata, expireOrder, getOrder, listTransactions, recordDisputeMoney, type DisputeMoney, type ListQuery } from './operations/orders.js';
import type { BrowserInfo } from '../../processors/index.js';
import { apmRedirectForm, processorNotification } from './operations/notifications.js';
import { orderByToken, payByToken, payDirect, payMoto, payOwned, paySingleStep, type DirectInput, type MotoInput, type SingleStepInput } from './operations/pay.js';
import { payout, type PayoutInput } from './operations/payout.js';
import { payWallet, type WalletPayment } from './operations/wallet.js';
import { abandonDeviceWait, startDeviceWait, type AbandonInput, type DeviceWaitInput } from './operations/device.js';
import { finishDeviceRefund, reserveDeviceRefund, type ReservedRefund } from './operations/device-refund.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { acquirerThreedsAuthenticate, acquirerThreedsComplete, acquirerThreedsStart, completeAfter3ds, expireKeptCardChallenges, hasAcquirerThreeds, pending3dsCardLast4 } from './operations/threeds.js';
import { eachOrder, searchOrders, type OrderFilters, type OrderSearchRow } from './operations/search.js';
import { foldOverview, overview, type Overview, type OverviewQuery } from './operations/overview.js';

export { EXPIRE_QUEUE, RECONCILE_QUEUE } from './operations/background.js';
export type { OrderResult, PresentedOrder, PayInput, CardSpec, NewOrder, WalletUse, CardPresentRead } from './core.js';
export type { CreatedOrder, CreateOptions } from './operations/create-order.js';
export type { ApmRecord, ApmStarted, StartApmInput } from './operations/apm.js';
export type { WalletPayment } from './operations/wallet.js';
export type { DccChoice } from './core.js';
export type { OrderFilters, OrderSearchRow } from './operations/search.js';
export type { DisputeMoney } from './operations/orders.js';
export type { Overview, OverviewQuery, OverviewFigures, OverviewDay, OverviewPeriod } from './operations/overview.js';
export { OVERVIEW_PERIODS, OVERVIEW_MAX_DAYS } from './operations/overview.js';
export type { AbandonInput, DeviceWaitInput } from './operations/device.js';

/**
 * What other modules may do with payments (subscriptions, campaigns, batch files, devices, risk, payment
 * methods): create an order, pay it, follow it up, read it. Every charge they make is a real order with
 * transactions and notifications. `ctx` is the caller: an API request's context, or for background work
 * the context of the key that set it up (`MerchantsService.contextForKey`).
 */
export interface Payments {
  /** Creates an order, not charged (B1 rules). With `opts.orderId` a retried step finds the order it created. */
  create(ctx: RequestContext, input: NewOrder, opts?: CreateOptions): Promise<CreatedOrder>;
  /**
   * Pays an order of the caller with a card or a stored source (`channel` MIT for merchant-initiated
   * charges). A card read by a device (`channel` CARD_PRESENT with `cardPresent`) charges the order that
   * waited for the device, or with `cardPresent.scaRetry` continues an order in AUTHENTICATION_REQUIRED.
   */
  pay(ctx: RequestContext, orderUuid: string, input: PayInput): Promise<OrderResult>;
  /** J3/J4: the order waits for a physical device (PENDING_PROCESSOR_RESPONSE, a PENDING transaction). */
  sendToDevice(ctx: RequestContext, orderUuid: string, input: DeviceWaitInput): Promise<OrderResult>;
  /** No card was charged for an order that waited for a device: it is closed (CANCELLED or EXPIRED, notified). */
  abandonDevicePayment(ctx: RequestContext, orderUuid: string, input: AbandonInput): Promise<OrderResult>;
  /**
   * J7 on a simulated device: judges a refund and reserves its amount now (400 when more than is left),
   * a PENDING REFUND transaction; `within` runs in the same database transaction.
   */
  reserveDeviceRefund(ctx: RequestContext, orderUuid: string, amount: number | null, within: (trx: Tx, r: { txId: string; amount: number }) => Promise<void>): Promise<ReservedRefund>;
  /** What the terminal did with a reserved refund: refunded (the processor is asked), or cancelled or refused on it; notified. */
  finishDeviceRefund(ctx: RequestContext, orderUuid: string, txId: string, outcome: { kind: 'REFUND' } | { kind: 'CANCELLED' | 'REFUSED'; details: string }): Promise<OrderResult>;
  /** B9: captures a DEFERRED order's hold (all or part). */
  confirm(ctx: RequestContext, input: { order_uuid: string; amount?: number | null }): Promise<OrderResult>;
  /** B8: releases a DEFERRED order's hold. */
  cancel(ctx: RequestContext, input: { order_uuid: string }): Promise<OrderResult>;
  /** B12: full (amount omitted) or partial refund. */
  refund(ctx: RequestContext, input: { order_uuid: string; amount?: number | null; extra_data?: Record<string, unknown> | null }): Promise<OrderResult>;
  /** C1: closes an order that can still be paid (EXPIRED, notified); a device operation the customer cancelled uses it. */
  expireOrder(ctx: RequestContext, orderUuid: string): Promise<OrderResult>;
  /** C2: an order of the caller, as the API presents it. */
  getOrder(ctx: RequestContext, orderUuid: string): Promise<OrderResult>;
  /**
   * What the disputes of an order mean for it now (disputed, lost, won back; the disputes module hands
   * every change of a dispute here, in its transaction `trx`): kept on the order, presented with it
   * (`disputes`), exported, and a change of the lost amount is money out in the overview on the day of
   * `at` (the merchant's clock). Returns the key that created the order (whose signature signs its
   * notifications), or null when the order is not the merchant's.
   */
  recordDisputeMoney(trx: Executor, r: DisputeMoney): Promise<{ keyId: string | null } | null>;
  /**
   * Starts a payment of an order of the caller with an APM of any kind (B13): push and redirect APMs
   * leave the order PENDING_PROCESSOR_RESPONSE until the customer acts; vouchers carry the data to pay.
   */
  startApm(ctx: RequestContext, orderUuid: string, input: StartApmInput): Promise<ApmStarted>;
  /** The customer acted on a started APM payment (as its provider reports it): the order settles and is notified. */
  completeApm(ctx: RequestContext, orderUuid: string, action: 'PAID' | 'REFUSED'): Promise<OrderResult>;
  /**
   * B14: pays an order of the caller with the card of a verified, decrypted wallet token (never
   * stored). With the wallet's cryptogram the payment is authenticated; without it (Google Pay
   * PAN_ONLY) the answer sends the customer to 3-D Secure. `claim` runs in step 1's transaction.
   */
  payWallet(ctx: RequestContext, orderUuid: string, input: WalletPayment): Promise<OrderResult>;
  /** The envelope fields of an order-bearing answer (`order`, `client`, `validation_hash`). */
  respond(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }, extra?: { extra_data: unknown }): ReturnType<PaymentsCore['respond']>;
  /** `ok(ctx, respond(ctx, r))` as the wire JSON of the 200 answer, the hashed part serialized once. */
  respondWire(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }): string;
}

export class PaymentsService implements Payments {
  readonly #core: PaymentsCore;

  constructor(p: Platform, deps: PaymentsDeps) {
    this.#core = new PaymentsCore(p, deps);
  }

  // ---- the public interface ---------------------------------------------------------------------------

  create(ctx: RequestContext, input: NewOrder, opts?: CreateOptions): Promise<CreatedOrder> {
    return createOrder(this.#core, ctx, input, opts);
  }

  pay(ctx: RequestContext, orderUuid: string, input: PayInput): Promise<OrderResult> {
    return payOwned(this.#core, ctx, orderUuid, () => input, { fast: input.card.kind === 'source', card: input.card.kind === 'source' ? input.card.sourceUuid : null });
  }

  payWallet(ctx: RequestContext, orderUuid: string, input: WalletPayment): Promise<OrderResult> {
    return payWallet(this.#core, ctx, orderUuid, input);
  }

  confirm(ctx: RequestContext, input: { order_uuid: string; amount?: number | null }): Promise<OrderResult> {
    return confirm(this.#core, ctx, input);
  }

  /** J7 on a simulated device: judges the refund and reserves its amount (operations/device-refund.ts). */
  reserveDeviceRefund(ctx: RequestContext, orderUuid: string, amount: number | null, within: (trx: Tx, r: { txId: string; amount: number }) => Promise<void>): Promise<ReservedRefund> {
    return reserveDeviceRefund(this.#core, ctx, orderUuid, amount, within);
  }

  /** What the terminal did with a reserved refund: refunded, or cancelled or refused on it. */
  finishDeviceRefund(ctx: RequestContext, orderUuid: string, txId: string, outcome: { kind: 'REFUND' } | { kind: 'CANCELLED' | 'REFUSED'; details: string }): Promise<OrderResult> {
    return finishDeviceRefund(this.#core, ctx, orderUuid, txId, outcome);
  }

  sendToDevice(ctx: RequestContext, orderUuid: string, input: DeviceWaitInput): Promise<OrderResult> {
    return startDeviceWait(this.#core, ctx, orderUuid, input);
  }

  abandonDevicePayment(ctx: RequestContext, orderUuid: string, input: AbandonInput): Promise<OrderResult> {
    return abandonDeviceWait(this.#core, ctx, orderUuid, input);
  }

  cancel(ctx: RequestContext, input: { order_uuid: string }): Promise<OrderResult> {
    return cancel(this.#core, ctx, input);
  }

  refund(ctx: RequestContext, input: { order_uuid: string; amount?: number | null; extra_data?: Record<string, unknown> | null }): Promise<OrderResult> {
    return refund(this.#core, ctx, input);
  }

  getOrder(ctx: RequestContext, orderUuid: string): Promise<OrderResult> {
    return getOrder(this.#core, ctx, orderUuid);
  }

  recordDisputeMoney(trx: Executor, r: DisputeMoney): Promise<{ keyId: string | null } | null> {
    return recordDisputeMoney(trx, r);
  }

  respond(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }, extra?: { extra_data: unknown }) {
    return this.#core.respond(ctx, r, extra);
  }

  respondWire(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }) {
    return this.#core.respondWire(ctx, r);
  }

  startApm(ctx: RequestContext, orderUuid: string, input: StartApmInput): Promise<ApmStarted> {
    return startApm(this.#core, (trx) => this.#core.lockOwned(trx, ctx, orderUuid), input, ctx);
  }

  async completeApm(ctx: RequestContext, orderUuid: string, action: 'PAID' | 'REFUSED'): Promise<OrderResult> {
    const o = await repo.findOrder(this.#core.db.db, orderUuid);
    if (!o || o.merchant_id !== ctx.merchant.id || o.env !== ctx.env) throw notFound(`The order ${orderUuid} was not found`);
    return completeApm(this.#core, o, action);
  }

  // ---- the API routes of this module -----------------------------------------------------------------

  /** B1, as the route answers it (with the `extra_data` echo). */
  async createOrder(ctx: RequestContext, input: NewOrder) {
    const r = await this.create(ctx, input);
    return this.respond(ctx, r, r.extra);
  }

  expireOrder(ctx: RequestContext, orderUuid: string): Promise<OrderResult> {
    return expireOrder(this.#core, ctx, orderUuid);
  }

  listTransactions(ctx: RequestContext, q: ListQuery) {
    return listTransactions(this.#core, ctx, q);
  }

  /** The dashboard's payments list: the caller's orders by filters and search, newest first, keyset paged. */
  searchOrders(ctx: RequestContext, f: OrderFilters, page: { limit: number; cursor?: string }): Promise<{ rows: OrderSearchRow[]; next_cursor: string | null }> {
    return searchOrders(this.#core, ctx, f, page);
  }

  /**
   * The overview of the caller's payments for a period and the period before it, per currency (the
   * dashboard's landing page): see operations/overview.ts for what each figure counts.
   */
  overview(ctx: RequestContext, q: OverviewQuery): Promise<Overview> {
    return overview(this.#core, ctx, q);
  }

  /** Every order `searchOrders` finds, in pages (the CSV export). */
  eachOrder(ctx: RequestContext, f: OrderFilters): AsyncGenerator<OrderSearchRow[]> {
    return eachOrder(this.#core, ctx, f);
  }

  attachMetadata(ctx: RequestContext, txId: string, metadata: Record<string, unknown>) {
    return attachMetadata(this.#core, ctx, txId, metadata);
  }

  payDirect(ctx: RequestContext, input: DirectInput): Promise<OrderResult> {
    return payDirect(this.#core, ctx, input);
  }

  payMoto(ctx: RequestContext, input: MotoInput): Promise<OrderResult> {
    return payMoto(this.#core, ctx, input);
  }

  paySingleStep(ctx: RequestContext, input: SingleStepInput): Promise<OrderResult> {
    return paySingleStep(this.#core, ctx, input);
  }

  payout(ctx: RequestContext, input: PayoutInput): Promise<OrderResult> {
    return payout(this.#core, ctx, input);
  }

  // ---- for the customer pages --------------------------------------------------------------------------

  payByToken(token: string, input: PayInput): Promise<OrderResult> {
    return payByToken(this.#core, token, input);
  }

  orderByToken(token: string): Promise<{ order: PresentedOrder; row: repo.LockedOrder } | null> {
    return orderByToken(this.#core, token);
  }

  completeAfter3ds(token: string, opts: { challenge?: 'APPROVED' | 'FAILED' | null } = {}): Promise<OrderResult> {
    return completeAfter3ds(this.#core, token, opts);
  }

  /** A processor's signed notification (webhook): settles the transaction it names, once. */
  processorNotification(connectorName: string, fields: Record<string, string>) {
    return processorNotification(this.#core, connectorName, fields);
  }

  /** The form a started redirect APM payment posts to the provider's page, or null. */
  apmRedirectForm(connectorName: string, reference: string) {
    return apmRedirectForm(this.#core, connectorName, reference);
  }

  /** Whether an order's processor runs 3-D Secure itself (EMV 3DS 2 through the acquirer). */
  hasAcquirerThreeds(o: { service_type: string; env: 'sandbox' | 'production' }): boolean {
    return hasAcquirerThreeds(this.#core, o);
  }

  /** Acquirer-side 3-D Secure, step 1: the 3DS method to run in the browser, or none. */
  acquirerThreedsStart(token: string, urls: { methodNotification: string }) {
    return acquirerThreedsStart(this.#core, token, urls);
  }

  /** Step 2: authentication with the browser's data: the payment's result, or the ACS challenge. */
  acquirerThreedsAuthenticate(token: string, browser: BrowserInfo, urls: { challengeNotification: string }, methodCompleted: boolean | null) {
    return acquirerThreedsAuthenticate(this.#core, token, browser, urls, methodCompleted);
  }

  /** Step 3: the ACS's answer (cres): the payment's result. */
  acquirerThreedsComplete(token: string, cres: string) {
    return acquirerThreedsComplete(this.#core, token, cres);
  }

  payApmByToken(token: string, input: { apm: ApmMethod; phone: string; customerIp?: string | null }): Promise<OrderResult & { goto?: string | null }> {
    return payApmByToken(this.#core, token, input);
  }

  /** The pages: starts an APM payment of the order of a page. */
  startApmByToken(token: string, input: StartApmInput): Promise<ApmStarted> {
    return startApm(this.#core, (trx) => repo.lockOrderByToken(trx, token), input);
  }

  /** The sandbox provider's pages (bank page, phone): the customer acted on the order of a page. */
  async completeApmByToken(token: string, action: 'PAID' | 'REFUSED'): Promise<OrderResult> {
    const o = await repo.findOrderByToken(this.#core.db.db, token);
    if (!o) throw notFound('The order was not found');
    return completeApm(this.#core, o, action);
  }

  /** The started APM payment waiting on the order of a page, or null. */
  async pendingApmByToken(token: string): Promise<ApmRecord | null> {
    const o = await repo.findOrderByToken(this.#core.db.db, token);
    return o ? ((await pendingApm(this.#core, o))?.record ?? null) : null;
  }

  pending3dsCardLast4(orderId: string): Promise<string | null> {
    return pending3dsCardLast4(this.#core, orderId);
  }

  expireKeptCardChallenges(limit = 200): Promise<number> {
    return expireKeptCardChallenges(this.#core, limit);
  }

  // ---- background ---------------------------------------------------------------------------------------

  registerJobs(): void {
    background.registerJobs(this.#core);
  }

  expireDue(batch = 200): Promise<number> {
    return background.expireDue(this.#core, batch);
  }

  reconcile(opts: { olderThanMs?: number } = {}): Promise<number> {
    return background.reconcile(this.#core, opts);
  }

  /** Folds up to `batch` of the overview's changes into its day rows (the recurring job does it too). */
  foldOverview(batch = 10_000): Promise<number> {
    return foldOverview(this.#core.db.db, batch);
  }
}
