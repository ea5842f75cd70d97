/**
 * Use cases of payments: orders (B1, C1–C4), paying (B3, B10, B11, B15 and the 3DS completion the
 * payment pages call), deferred confirmation and cancellation (B8, B9), refunds (B12), the reconciler
 * and the expiry sweep.
 *
 * Money-moving steps follow one pattern (design.md principle 8):
 *   1. in a transaction that locks the order row: check state, amounts and retry rules; write a PENDING
 *      transaction and reserve what it needs (status, refund reservation, busy marker); commit;
 *   2. call the processor, outside any database transaction;
 *   3. in a new transaction that locks the order row again: settle the transaction and the order through
 *      the transition table, enqueue the notification; commit.
 * A crash or timeout between 1 and 3 leaves a PENDING transaction that the reconciler settles.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database, Executor, Tx } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { ApiError, badRequest, conflict, notFound, tooManyRequests, unavailable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { currencyByCode } from '../../platform/money/currency.js';
import type { Secret } from '../../platform/security/secret.js';
import { parseFilterDate } from '../../platform/time/format.js';
import type {
  ApmMethod,
  ApmPaymentRequest,
  CardData,
  Connector,
  DpanData,
  FollowUpRequest,
  PaymentRequest,
  ProcessorOperation,
  ProcessorResult,
  SettledResult,
  ThreeDSResult,
  TxError,
} from '../../processors/index.js';
import type { ProcessorRegistry } from '../../processors/index.js';
import type { EventsService } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import { findDefaultServiceForCurrency, findServiceWithTerminal, type ServiceWithTerminal } from '../services/index.js';
import { presentSource, type SourcesService } from '../sources/index.js';
import {
  canOrder,
  declineEvent,
  fromStatuses,
  orderTransition,
  txTransition,
  type OrderEvent,
  type OrderStatus,
  type TxEvent,
} from './order-states.js';
import {
  EXPIRES_IN_DEFAULT,
  LIST_LIMIT_MAX,
  METADATA_MAX_PAIRS,
  afterFailure,
  afterSuccess,
  challengeThreedsRecord,
  checkCancellation,
  checkConfirmation,
  checkMarketplaceRefunds,
  checkRefund,
  hashedPart,
  nullIfEmpty,
  orderUrls,
  paymentOperation,
  presentOrder,
  presentTransaction,
  refundEventFor,
  retryWaitSeconds,
  validationHash,
  type Operative,
  type RetryOperation,
  type RetryState,
  type TxOperative,
} from './payments.domain.js';
import * as repo from './payments.repo.js';
import * as keptCards from './threeds-cards.repo.js';

export type PresentedOrder = ReturnType<typeof presentOrder>;

/** An order-bearing answer: the order, and where the customer must go when 3DS is needed. */
export interface OrderResult {
  order: PresentedOrder;
  merchantId: string;
  /** 303: the URL the customer must be sent to (3DS). */
  redirect: string | null;
  /** 402: the processor refused a confirmation, cancellation or refund. */
  failed: string | null;
}

export interface NewOrder {
  amount: number;
  operative: Operative;
  secure: boolean;
  description: string;
  customer_ext_id?: string | number | null;
  service?: string | null;
  currency?: string | null;
  additional?: string | null;
  url_post?: string | null;
  url_ok?: string | null;
  url_ko?: string | null;
  template_uuid?: string | null;
  dcc_template_uuid?: string | null;
  source_uuid?: string | null;
  card_uuid?: string | null;
  save_card?: boolean | null;
  reference?: string | null;
  dynamic_descriptor?: string | null;
  expires_in?: number | null;
  extra_data?: Record<string, unknown> | null;
  customer_ip?: string | null;
}

/** A card given in the request (B3, B11) or a stored one (B10, B11, pages). */
export type CardSpec =
  | { kind: 'source'; sourceUuid: string }
  | {
      kind: 'card';
      holder: string;
      pan: Secret<string>;
      expMonth: string | number;
      expYear: string | number;
      additional?: string | null;
      origin: string;
      /** Store the card as a source (needs a customer). */
      store: boolean;
    };

export interface PayInput {
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT';
  card: CardSpec;
  cvv?: Secret<string> | null;
  customerIp?: string | null;
  /** 3DS done by an external MPI. */
  threeds?: ThreeDSResult | null;
  dpan?: DpanData | null;
  /**
   * Hosted payment page: when the typed card is not stored as a source (no customer), keep it sealed
   * for the few minutes of a 3DS challenge (secure order or soft decline). Never the CVV.
   */
  keepCardFor3ds?: boolean;
  /** Tokenized 3DS page (B7): authenticate the cardholder even when the order is not `secure`. */
  force3ds?: boolean;
}

type Started =
  | { kind: 'done'; result: OrderResult }
  | { kind: '3ds'; orderId: string; url: string }
  | { kind: 'call'; orderId: string; txId: string; op: ProcessorOperation; request: PaymentRequest | ApmPaymentRequest; connector: Connector; safe: boolean };

/** What settles a PENDING transaction. */
type Settlement =
  | SettledResult
  | { outcome: 'FAILED'; error: Extract<TxError, 'TIMEOUT' | 'PROCESSOR_ERROR' | 'AUTHENTICATION_FAILED'>; details: string }
  | { outcome: 'CHALLENGE'; details: string }
  | { outcome: 'VOIDED'; details: string };

const OPEN_STATUSES = fromStatuses('EXPIRED');

export const EXPIRE_QUEUE = 'payments.expire';
export const RECONCILE_QUEUE = 'payments.reconcile';

/** A processor failure that the merchant sees as HTTP 402 "Failed". */
const FAILED_OPERATION: Record<string, string> = {
  CONFIRMATION: 'The processor refused the confirmation',
  CANCELLATION: 'The processor refused the cancellation',
  REFUND: 'The processor refused the refund',
};

/** A small TTL cache (services and key signatures are read on every order). */
class TtlCache<V> {
  readonly #m = new Map<string, { v: V; until: number }>();
  constructor(private readonly ttlMs: number, private readonly max = 10_000) {}
  get(k: string): V | undefined {
    const e = this.#m.get(k);
    if (!e) return undefined;
    if (e.until < Date.now()) {
      this.#m.delete(k);
      return undefined;
    }
    return e.v;
  }
  set(k: string, v: V): V {
    if (this.#m.size >= this.max) this.#m.clear();
    this.#m.set(k, { v, until: Date.now() + this.ttlMs });
    return v;
  }
}

export class PaymentsService {
  readonly #db: Database;
  /** Services by id and default services by merchant and currency, for 2 s (a disabled service stops within that). */
  readonly #services = new TtlCache<ServiceWithTerminal | null>(2000);
  /** Opened key signatures (validation_hash of every order-bearing response). */
  readonly #signatures = new TtlCache<Secret<string>>(60_000);
  /** Group commit of B1 orders. */
  readonly #orderInserts: repo.OrderInsertBatcher;

  constructor(
    private readonly p: Platform,
    private readonly deps: {
      merchants: MerchantsService;
      sources: SourcesService;
      processors: ProcessorRegistry;
      events: EventsService;
    },
  ) {
    this.#db = p.database;
    this.#orderInserts = new repo.OrderInsertBatcher(() => p.database.db);
  }

  // ---- helpers -------------------------------------------------------------------------------------

  /** Now on the order's merchant clock. */
  #now(o: { env: Env; m_offset: number }): Date {
    return new Date(this.p.clock.now().getTime() + (o.env === 'sandbox' ? Number(o.m_offset) : 0));
  }

  #zones(o: { m_timezone: string }) {
    return { server: this.p.config.timezone, merchant: o.m_timezone };
  }

  #present(o: repo.LockedOrder, txs: repo.TxRow[]): PresentedOrder {
    return presentOrder(o, txs, this.#zones(o), this.p.config.publicUrl);
  }

  /** Envelope fields of an order-bearing response, hashed with the caller's signature. */
  respond(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }, extra?: { extra_data: unknown }) {
    const client = { uuid: r.merchantId };
    const serialized = hashedPart({ order: r.order, client, ...(extra ?? {}) });
    return {
      order: r.order,
      client,
      ...(extra ?? {}),
      validation_hash: validationHash(serialized, this.#signature(ctx).reveal()),
    };
  }

  #signature(ctx: RequestContext): Secret<string> {
    return this.#signatures.get(ctx.keyId) ?? this.#signatures.set(ctx.keyId, ctx.signature());
  }

  async #lockOwned(trx: Executor, ctx: RequestContext, orderId: string): Promise<repo.LockedOrder> {
    const o = await repo.lockOrder(trx, orderId, ctx.merchant.id);
    if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    return o;
  }

  /**
   * Applies an order event: status from the table, extra columns, notification when the table says so.
   * Returns the order as it is now, presented.
   */
  async #transition(
    trx: Tx,
    o: repo.LockedOrder,
    event: OrderEvent,
    set: Partial<repo.OrderRow> = {},
    now = this.#now(o),
    opts: { present?: boolean } = {},
  ): Promise<{ order: repo.LockedOrder; presented: PresentedOrder }> {
    const t = orderTransition(o.status, event);
    const next: repo.LockedOrder = { ...o, ...set, status: t.to, paid: t.paid ?? o.paid, updated_at: now };
    await repo.updateOrder(trx, o.id, o.status, { ...set, status: t.to, paid: next.paid, updated_at: now });
    const notify = t.notify && !!o.url_post;
    // The order is presented (one more query) only when a notification or the caller needs it.
    if (!notify && opts.present === false) return { order: next, presented: null as unknown as PresentedOrder };
    const txs = await repo.transactionsOf(trx, o.id);
    const presented = this.#present(next, txs);
    if (notify) {
      await this.deps.events.enqueueNotification(trx, {
        merchantId: o.merchant_id,
        env: o.env,
        orderId: o.id,
        keyId: o.key_id,
        url: o.url_post!,
        payload: hashedPart({ order: presented, client: { uuid: o.merchant_id } }),
        retries: o.m_resend,
        at: now,
      });
    }
    return { order: next, presented };
  }

  async #settleTx(trx: Tx, tx: Pick<repo.TxRow, 'id' | 'status'>, event: TxEvent, set: Partial<repo.TxRow>, now: Date): Promise<void> {
    const status = txTransition(tx.status, event);
    await repo.settleTransaction(trx, tx.id, { ...set, status, awaiting_3ds: false, updated_at: now } as never);
    // a card kept for a 3DS challenge goes as soon as its transaction settles
    await keptCards.dropCard(trx, tx.id);
  }

  /** Expires an open order in `trx` (C1, the sweep, and the lazy check on read and pay). */
  async #expire(trx: Tx, o: repo.LockedOrder, now: Date) {
    const waiting = await repo.awaiting3dsTransaction(trx, o.id);
    if (waiting) await this.#settleTx(trx, waiting, 'VOIDED', { error_details: 'The order expired before 3DS was completed' }, now);
    return this.#transition(trx, o, 'EXPIRED', {}, now);
  }

  #isDue(o: repo.LockedOrder, now: Date): boolean {
    return canOrder(o.status, 'EXPIRED') && o.expires_at.getTime() <= now.getTime();
  }

  // ---- B1 create order -----------------------------------------------------------------------------

  async #resolveService(ctx: RequestContext, input: NewOrder): Promise<ServiceWithTerminal> {
    const db = this.#db.db;
    let currency: string | null = null;
    if (input.currency !== undefined && input.currency !== null) {
      const c = currencyByCode(input.currency);
      if (!c || c.code !== input.currency.toUpperCase()) throw badRequest(`currency "${input.currency}" is not an ISO 4217 alpha-3 currency`);
      currency = c.code;
    }
    let service: ServiceWithTerminal | undefined;
    if (input.service) {
      const key = `id:${input.service}`;
      service = this.#services.get(key) ?? this.#services.set(key, (await findServiceWithTerminal(db, input.service)) ?? null) ?? undefined;
      if (!service || service.merchant_id !== ctx.merchant.id || service.env !== ctx.env) throw notFound(`The service ${input.service} was not found`);
      if (!service.enabled || !service.currency_code) throw badRequest(`The service ${input.service} is not enabled (it has no terminal)`);
      if (currency && currency !== service.currency_code) {
        throw badRequest(`currency ${currency} does not match the service's currency ${service.currency_code}`);
      }
    } else {
      if (!currency) throw badRequest('currency is required when service is omitted');
      const key = `default:${ctx.merchant.id}:${currency}`;
      service = this.#services.get(key) ?? this.#services.set(key, (await findDefaultServiceForCurrency(db, ctx.merchant.id, currency)) ?? null) ?? undefined;
      if (!service) throw badRequest(`The merchant has no enabled service for currency ${currency}`);
    }
    return service;
  }

  /** Builds and inserts an order (B1, B3) with `executor`. */
  async #insertOrder(executor: Executor, ctx: RequestContext, input: NewOrder, service: ServiceWithTerminal, sourceId: string | null): Promise<repo.LockedOrder> {
    const currency = currencyByCode(service.currency_code!)!;
    const now = ctx.clock.now();
    const expiresIn = input.expires_in ?? EXPIRES_IN_DEFAULT;
    const extra = normaliseExtraData(input.extra_data);
    const row: repo.OrderRow = {
      id: randomUUID(),
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
    try {
      // B1 outside a transaction goes through the group commit; B3 inserts within its transaction.
      if (executor === this.#db.db) await this.#orderInserts.insert(row);
      else await repo.insertOrder(executor, row);
    } catch (err) {
      if (isUniqueViolation(err, 'orders_merchant_reference')) throw conflict(`An order with reference "${input.reference}" already exists`);
      throw err;
    }
    return { ...row, m_offset: ctx.clock.offsetMs, m_timezone: ctx.merchant.timezone, m_resend: false, m_autorecover: false };
  }

  /** B1: a payment order, not charged. */
  async createOrder(ctx: RequestContext, input: NewOrder) {
    checkOrderInput(input);
    this.#assertProcessable(ctx.env, null);
    const service = await this.#resolveService(ctx, input);
    this.#assertProcessable(ctx.env, service.type);
    const sourceUuid = input.source_uuid ?? input.card_uuid ?? null;
    let sourceId: string | null = null;
    if (sourceUuid) sourceId = (await this.deps.sources.loadSource(this.#db.db, { merchantId: ctx.merchant.id, env: ctx.env }, sourceUuid)).id;
    const o = await this.#insertOrder(this.#db.db, ctx, input, service, sourceId);
    const extra = input.extra_data === undefined ? undefined : { extra_data: o.extra_data ?? null };
    return this.respond(ctx, { order: this.#present(o, []), merchantId: o.merchant_id }, extra);
  }

  #assertProcessable(env: Env, serviceType: string | null): void {
    if (serviceType !== null && !this.deps.processors.supports(serviceType, env)) {
      throw unavailable(`No processor connector is configured for services of type ${serviceType} in ${env}`);
    }
  }

  // ---- C1 / C2 / C3 / C4 --------------------------------------------------------------------------------

  /** C2: an order of the caller (expired on the spot when its time has come). */
  async getOrder(ctx: RequestContext, orderId: string): Promise<OrderResult> {
    const db = this.#db.db;
    const o = await repo.findOrder(db, orderId);
    if (!o || o.merchant_id !== ctx.merchant.id || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    if (this.#isDue(o, this.#now(o))) {
      const expired = await this.#db.transaction(async (trx) => {
        const locked = await this.#lockOwned(trx, ctx, orderId);
        const now = this.#now(locked);
        return this.#isDue(locked, now) ? (await this.#expire(trx, locked, now)).presented : null;
      });
      if (expired) return { order: expired, merchantId: o.merchant_id, redirect: null, failed: null };
    }
    return { order: this.#present(o, await repo.transactionsOf(db, o.id)), merchantId: o.merchant_id, redirect: null, failed: null };
  }

  /** C1: the payment link stops working. */
  async expireOrder(ctx: RequestContext, orderId: string): Promise<OrderResult> {
    const presented = await this.#db.transaction(async (trx) => {
      const o = await this.#lockOwned(trx, ctx, orderId);
      if (!canOrder(o.status, 'EXPIRED')) throw badRequest(`The order is ${o.status} and cannot be expired`);
      return (await this.#expire(trx, o, this.#now(o))).presented;
    });
    return { order: presented, merchantId: ctx.merchant.id, redirect: null, failed: null };
  }

  /** C3: transactions of the merchant and its children. */
  async listTransactions(
    ctx: RequestContext,
    q: { start?: string; end?: string; updated_at_start?: string; updated_at_end?: string; terminal?: number | string; limit?: number; offset?: number },
  ) {
    const tz = ctx.merchant.timezone;
    const date = (name: string, v: string | undefined) => {
      if (v === undefined || v === '') return undefined;
      const d = parseFilterDate(String(v), tz);
      if (!d) throw badRequest(`${name} must be a date in the format YYYYMMDDHHmm`);
      return d;
    };
    const limit = q.limit ?? LIST_LIMIT_MAX;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) throw badRequest(`limit must be from 1 to ${LIST_LIMIT_MAX}`);
    const offset = q.offset ?? 0;
    const db = this.#db.db;
    const ids = await this.deps.merchants.selfAndDescendantIds(db, ctx.merchant.id);
    const { rows, count } = await repo.listTransactions(db, {
      merchantIds: ids,
      start: date('start', q.start),
      end: date('end', q.end),
      updatedStart: date('updated_at_start', q.updated_at_start),
      updatedEnd: date('updated_at_end', q.updated_at_end),
      terminalCode: q.terminal === undefined ? undefined : String(q.terminal),
      limit,
      offset,
    });
    const zones = { server: ctx.timezone, merchant: tz };
    const transactions = rows.map((t) => ({
      ...presentTransaction(t, zones),
      order_uuid: t.order_id,
      client_uuid: t.merchant_id,
      currency: t.o_currency_number,
      service: t.o_service_type,
      service_uuid: t.o_service_id,
      reference: t.o_reference,
      customer: t.o_customer_ext_id,
      order_status: t.o_status,
      updated: t.updated_at.toISOString(),
      metadata: nullIfEmpty(t.metadata as Record<string, string> | null),
    }));
    return { count, transactions, next_offset: offset + rows.length < count ? offset + rows.length : null };
  }

  /** C4: key-value metadata on a transaction (at most 20 pairs; replaces earlier metadata). */
  async attachMetadata(ctx: RequestContext, txId: string, metadata: Record<string, unknown>) {
    const pairs = Object.entries(metadata);
    if (pairs.length === 0) throw badRequest('metadata must have at least one pair');
    if (pairs.length > METADATA_MAX_PAIRS) throw badRequest(`metadata may have at most ${METADATA_MAX_PAIRS} pairs (got ${pairs.length})`);
    const clean: Record<string, string> = {};
    for (const [k, v] of pairs) {
      if (k.length === 0 || k.length > 64) throw badRequest('metadata keys must be 1 to 64 characters');
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw badRequest(`metadata.${k} must be a string, number or boolean`);
      const s = String(v);
      if (s.length > 500) throw badRequest(`metadata.${k} must be at most 500 characters`);
      clean[k] = s;
    }
    const db = this.#db.db;
    const tx = await repo.findTransaction(db, txId);
    if (!tx || tx.merchant_id !== ctx.merchant.id) throw notFound(`The transaction ${txId} was not found`);
    await repo.setTransactionMetadata(db, txId, clean);
    return { transaction_uuid: txId, metadata: clean };
  }

  // ---- paying ---------------------------------------------------------------------------------------

  /** B10: WebService payment with a stored card (card_uuid, or the order's source_uuid). */
  async payDirect(ctx: RequestContext, input: { order_uuid: string; card_uuid?: string | null; source_uuid?: string | null; customer_ip?: string | null }) {
    return this.#payOwned(ctx, input.order_uuid, (o) => {
      const sourceUuid = input.card_uuid ?? input.source_uuid ?? o.source_id;
      if (!sourceUuid) throw badRequest('card_uuid is required (the order has no source_uuid)');
      return { channel: 'ECOMMERCE', card: { kind: 'source', sourceUuid }, customerIp: input.customer_ip ?? null };
    });
  }

  /** B11: MoTo payment (PCI merchants), with card data or a stored card; exempt from SCA. */
  async payMoto(
    ctx: RequestContext,
    input: {
      order_uuid: string;
      method: 'MAIL' | 'PHONE';
      card_holder?: string;
      card_pan?: Secret<string>;
      card_expiry_month?: string | number;
      card_expiry_year?: string | number;
      card_cvv?: Secret<string> | null;
      card_additional?: string | null;
      source_uuid?: string | null;
      card_uuid?: string | null;
    },
  ) {
    this.#requirePci(ctx, 'MoTo payment');
    const sourceUuid = input.source_uuid ?? input.card_uuid ?? null;
    const hasCard = input.card_pan !== undefined;
    if (!hasCard && !sourceUuid) throw badRequest('either the card fields (card_holder, card_pan, card_expiry_month, card_expiry_year) or source_uuid is required');
    if (hasCard && sourceUuid) throw badRequest('give either the card fields or source_uuid, not both');
    if (hasCard) {
      for (const f of ['card_holder', 'card_expiry_month', 'card_expiry_year'] as const) {
        if (input[f] === undefined || input[f] === null) throw badRequest(`${f} is required with card_pan`);
      }
    }
    return this.#payOwned(ctx, input.order_uuid, (o) => ({
      channel: 'MOTO',
      card: hasCard
        ? {
            kind: 'card',
            holder: input.card_holder!,
            pan: input.card_pan!,
            expMonth: input.card_expiry_month!,
            expYear: input.card_expiry_year!,
            additional: input.card_additional ?? null,
            origin: 'MOTO',
            store: o.customer_ext_id !== null,
          }
        : { kind: 'source', sourceUuid: sourceUuid! },
      cvv: input.card_cvv ?? null,
    }));
  }

  /** B3: creates the order, stores the card and pays, in one request (PCI merchants). */
  async paySingleStep(
    ctx: RequestContext,
    input: NewOrder & {
      card_holder: string;
      card_pan: Secret<string>;
      card_expiry_month: string | number;
      card_expiry_year: string | number;
      card_cvv?: Secret<string> | null;
      card_additional?: string | null;
      threeds_data?: { version?: number | string; trans_status?: string; eci?: number | string; cavv?: string; ds_trans_id?: string } | null;
      dpan_data?: { cryptogram: string; eci?: number | string | null } | null;
    },
  ): Promise<OrderResult> {
    this.#requirePci(ctx, 'Single-step payment');
    checkOrderInput(input);
    if (input.customer_ext_id === undefined || input.customer_ext_id === null || input.customer_ext_id === '') throw badRequest('customer_ext_id is required');
    const service = await this.#resolveService(ctx, input);
    this.#assertProcessable(ctx.env, service.type);
    const threeds = input.threeds_data ? externalThreeds(input.threeds_data) : null;
    const dpan = input.dpan_data ? { cryptogram: input.dpan_data.cryptogram, eci: input.dpan_data.eci == null ? null : String(input.dpan_data.eci) } : null;
    const pay: PayInput = {
      channel: 'ECOMMERCE',
      card: {
        kind: 'card',
        holder: input.card_holder,
        pan: input.card_pan,
        expMonth: input.card_expiry_month,
        expYear: input.card_expiry_year,
        additional: input.card_additional ?? null,
        origin: 'SINGLE_STEP',
        store: true,
      },
      cvv: input.card_cvv ?? null,
      customerIp: input.customer_ip ?? null,
      threeds,
      dpan,
    };
    const started = await this.#db.transaction(async (trx) => {
      const inserted = await this.#insertOrder(trx, ctx, input, service, null);
      const merchant = await this.deps.merchants.findMerchant(trx, ctx.merchant.id);
      const o: repo.LockedOrder = { ...inserted, m_resend: merchant?.resend_failed_notifications ?? false, m_autorecover: merchant?.autorecover_transactions ?? false };
      return this.#startPayment(trx, o, pay);
    });
    return this.#finishStarted(started);
  }

  #requirePci(ctx: RequestContext, what: string): void {
    if (!ctx.merchant.isPci) throw badRequest(`${what} with card data is only available to PCI-compliant merchants (is_pci)`);
  }

  async #payOwned(ctx: RequestContext, orderId: string, build: (o: repo.LockedOrder) => PayInput): Promise<OrderResult> {
    const started = await this.#db.transaction(async (trx) => {
      const o = await this.#lockOwned(trx, ctx, orderId);
      return this.#startPayment(trx, o, build(o));
    });
    return this.#finishStarted(started);
  }

  /**
   * Pays an order by its token (the hosted payment page): with card data the customer typed, or a
   * stored card. Secure orders answer with the 3DS URL (`redirect`); the page then calls
   * `completeAfter3ds`.
   */
  async payByToken(token: string, input: PayInput): Promise<OrderResult> {
    const started = await this.#db.transaction(async (trx) => {
      const o = await repo.lockOrderByToken(trx, token);
      if (!o) throw notFound('The order was not found');
      return this.#startPayment(trx, o, input);
    });
    return this.#finishStarted(started);
  }

  /** The order behind a payment-page token (for the pages), presented. */
  async orderByToken(token: string): Promise<{ order: PresentedOrder; row: repo.LockedOrder } | null> {
    const o = await repo.findOrderByToken(this.#db.db, token);
    if (!o) return null;
    return { order: this.#present(o, await repo.transactionsOf(this.#db.db, o.id)), row: o };
  }

  async #finishStarted(started: Started): Promise<OrderResult> {
    if (started.kind === 'done') {
      if (started.result.failed) throw badRequest(started.result.failed);
      return started.result;
    }
    if (started.kind === '3ds') {
      const o = await repo.findOrder(this.#db.db, started.orderId);
      return { order: this.#present(o!, await repo.transactionsOf(this.#db.db, started.orderId)), merchantId: o!.merchant_id, redirect: started.url, failed: null };
    }
    const result = await this.#call(started.connector, started.op, started.request);
    return this.#settle(started.orderId, started.txId, result, { safe: started.safe });
  }

  async #call(connector: Connector, op: ProcessorOperation, request: PaymentRequest | FollowUpRequest | ApmPaymentRequest): Promise<ProcessorResult> {
    switch (op) {
      case 'authorize':
        return connector.authorize(request as PaymentRequest);
      case 'partialAuthorize':
        return connector.partialAuthorize(request as PaymentRequest);
      case 'preauthorize':
        return connector.preauthorize(request as PaymentRequest);
      case 'payout':
        return connector.payout(request as PaymentRequest);
      case 'capture':
        return connector.capture(request as FollowUpRequest);
      case 'cancel':
        return connector.cancel(request as FollowUpRequest);
      case 'refund':
        return connector.refund(request as FollowUpRequest);
      case 'apmPayment':
        if (!connector.apmPayment) throw new Error(`connector ${connector.name} has no APM payments`);
        return connector.apmPayment(request as ApmPaymentRequest);
      default:
        throw new Error(`not a money operation: ${op}`);
    }
  }

  /** Step 1 of a payment, in the transaction that locks the order. */
  async #startPayment(trx: Tx, o: repo.LockedOrder, input: PayInput): Promise<Started> {
    const now = this.#now(o);
    if (this.#isDue(o, now)) {
      const { presented } = await this.#expire(trx, o, now);
      return { kind: 'done', result: { order: presented, merchantId: o.merchant_id, redirect: null, failed: 'The order has expired' } };
    }
    if (o.status === 'PENDING_PROCESSOR_RESPONSE') throw conflict('A payment of this order is in progress');
    if (!canOrder(o.status, 'PAYMENT_STARTED')) throw badRequest(`The order is ${o.status} and cannot be paid`);
    if (o.operative === 'PAYOUT' || o.operative === 'TRANSFER') throw badRequest(`A ${o.operative} order is paid out with POST /payment/payout`);
    const connector = this.deps.processors.forService(o.service_type, o.env);
    const owner = { merchantId: o.merchant_id, env: o.env };

    let card: CardData;
    let sourceId: string | null = null;
    let sourceJson: string | null = null;
    const spec = input.card;
    if (spec.kind === 'source') {
      const loaded = await this.deps.sources.loadCardForPayment(trx, owner, spec.sourceUuid);
      if (o.customer_ext_id !== null && loaded.customerExtId !== o.customer_ext_id) {
        throw badRequest("The card does not belong to the order's customer");
      }
      card = { pan: loaded.pan, expiryMonth: loaded.expMonth, expiryYear: loaded.expYear, cvv: input.cvv ?? null, holder: loaded.holder };
      sourceId = loaded.sourceId;
      sourceJson = JSON.stringify(presentSource(loaded.row));
    } else {
      const checked = this.deps.sources.checkCard({ holder: spec.holder, pan: spec.pan, expMonth: spec.expMonth, expYear: spec.expYear, at: now });
      card = { pan: checked.card.pan, expiryMonth: checked.expMonth, expiryYear: checked.expYear, cvv: input.cvv ?? null, holder: checked.holder };
      if (spec.store && o.customer_ext_id !== null) {
        const row = await this.deps.sources.storeCard(trx, owner, {
          customerExtId: o.customer_ext_id,
          holder: spec.holder,
          pan: spec.pan,
          expMonth: spec.expMonth,
          expYear: spec.expYear,
          additional: spec.additional ?? null,
          origin: spec.origin,
          isSaved: o.save_card,
          at: now,
        });
        sourceId = row.id;
        sourceJson = JSON.stringify(presentSource(row));
      }
    }

    const needs3ds = input.channel === 'ECOMMERCE' && (o.secure || !!input.force3ds) && !input.threeds && !input.dpan;
    const keep = spec.kind === 'card' && !sourceId && !!input.keepCardFor3ds && input.channel === 'ECOMMERCE';
    if (needs3ds && !sourceId && !keep) throw badRequest('A secure payment needs a stored card to complete 3DS');
    const { txOperative, op } = paymentOperation(o.operative);
    const txId = randomUUID();
    const realNow = this.p.clock.now();
    await repo.insertTransaction(trx, {
      id: txId,
      order_id: o.id,
      merchant_id: o.merchant_id,
      operative: txOperative,
      processor_operation: op,
      amount: Number(o.amount),
      status: 'PENDING',
      error: 'NONE',
      auth_code: '',
      processor_id: null,
      source_id: sourceId,
      source_json: sourceJson,
      antifraud: null,
      device: null,
      error_details: null,
      customer_ip: input.customerIp ?? null,
      awaiting_3ds: needs3ds,
      metadata: null,
      created_at: now,
      updated_at: now,
      started_at: realNow,
    });
    if (keep) {
      await keptCards.keepCard(trx, this.p.vault, {
        txId, orderId: o.id, realNow,
        card: { pan: card.pan, expMonth: card.expiryMonth, expYear: card.expiryYear, holder: card.holder ?? '' },
      });
    }
    const common = { source_id: sourceId ?? o.source_id, ip: input.customerIp ?? o.ip };
    if (needs3ds) {
      await this.#transition(trx, o, 'THREEDS_REQUIRED', { ...common, threeds_data: challengeThreedsRecord('PENDING') }, now, { present: false });
      return { kind: '3ds', orderId: o.id, url: orderUrls(this.p.config.publicUrl, o.env, o.token)['3ds_tokenized'] };
    }
    const threedsRecord = input.threeds ? threedsRecordOf(input.threeds, 'EXTERNAL', o.secure) : undefined;
    await this.#transition(trx, o, 'PAYMENT_STARTED', threedsRecord ? { ...common, threeds_data: threedsRecord } : common, now, { present: false });
    return {
      kind: 'call',
      orderId: o.id,
      txId,
      op,
      connector,
      safe: !!input.threeds && ['Y', 'A'].includes(input.threeds.transStatus),
      request: {
        reference: txId,
        terminal: { serviceType: o.service_type, terminalId: null },
        now,
        amount: Number(o.amount),
        currency: o.currency,
        card,
        threeds: input.threeds ?? null,
        dpan: input.dpan ?? null,
        channel: input.channel,
        customerIp: input.customerIp ?? null,
        cofTxnid: o.cof_txnid,
        dynamicDescriptor: o.dynamic_descriptor,
      },
    };
  }

  /**
   * Completes a payment waiting for 3DS (the tokenized page calls this after the challenge): the
   * cardholder is authenticated with the processor's 3DS server, then the payment is authorized.
   */
  async completeAfter3ds(token: string, opts: { challenge?: 'APPROVED' | 'FAILED' | null } = {}): Promise<OrderResult> {
    const prep = await this.#db.transaction(async (trx) => {
      const o = await repo.lockOrderByToken(trx, token);
      if (!o) throw notFound('The order was not found');
      const now = this.#now(o);
      if (this.#isDue(o, now)) {
        const { presented } = await this.#expire(trx, o, now);
        return { expired: presented, o } as const;
      }
      if (o.status !== 'PENDING_3DS_RESPONSE') throw badRequest(`The order is ${o.status}: it is not waiting for 3DS`);
      const tx = await repo.awaiting3dsTransaction(trx, o.id);
      if (!tx) throw badRequest('The order has no payment waiting for 3DS');
      // the stored card, or the card the hosted page keeps for the challenge (no customer)
      const card = tx.source_id
        ? await this.deps.sources.loadCardForPayment(trx, { merchantId: o.merchant_id, env: o.env }, tx.source_id)
        : await keptCards.keptCard(trx, this.p.vault, tx.id);
      if (!card) throw badRequest('The card of this payment is no longer available: the 3DS challenge timed out');
      return { o, tx, card, now } as const;
    });
    if ('expired' in prep) throw new ApiError(400, 'The order has expired');
    const { o, tx, card, now } = prep;
    const connector = this.deps.processors.forService(o.service_type, o.env);
    const cardData: CardData = { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: null, holder: card.holder };
    const auth = await connector.authenticate({ reference: `${tx.id}:3ds`, terminal: { serviceType: o.service_type, terminalId: null }, now, amount: Number(o.amount), currency: o.currency, card: cardData, challenge: opts.challenge ?? null });
    if (auth.outcome === 'UNKNOWN') throw unavailable('The 3DS server did not answer; try again');
    const record = threedsRecordOf(auth.threeds, 'CHALLENGE', true);
    if (auth.outcome === 'FAILED') {
      return this.#settle(o.id, tx.id, { outcome: 'FAILED', error: 'AUTHENTICATION_FAILED', details: auth.details }, { threedsData: record });
    }
    const { op } = paymentOperation(o.operative);
    await this.#db.transaction(async (trx) => {
      const locked = await repo.lockOrder(trx, o.id);
      if (!locked || locked.status !== 'PENDING_3DS_RESPONSE') throw conflict('The order changed while 3DS was completed');
      await repo.updateTransaction(trx, tx.id, { awaiting_3ds: false, started_at: this.p.clock.now(), updated_at: this.#now(locked) });
      await this.#transition(trx, locked, 'THREEDS_COMPLETED', { threeds_data: record, safe: true }, this.#now(locked), { present: false });
    });
    const result = await this.#call(connector, op, {
      reference: tx.id,
      terminal: { serviceType: o.service_type, terminalId: null },
      now,
      amount: Number(o.amount),
      currency: o.currency,
      card: cardData,
      threeds: auth.threeds,
      dpan: null,
      channel: 'ECOMMERCE',
      customerIp: tx.customer_ip,
    });
    return this.#settle(o.id, tx.id, result, { safe: true });
  }

  /** B15: credit funds to a stored card (source_uuid, or the customer's last card with a successful payment). */
  async payout(ctx: RequestContext, input: { order_uuid: string; source_uuid?: string | null; card_uuid?: string | null; customer_ip?: string | null; apm?: string | null }): Promise<OrderResult> {
    if (input.apm) throw badRequest(`apm ${input.apm} does not support payouts on this service`);
    const started = await this.#db.transaction(async (trx): Promise<Started> => {
      const o = await this.#lockOwned(trx, ctx, input.order_uuid);
      const now = this.#now(o);
      if (this.#isDue(o, now)) {
        const { presented } = await this.#expire(trx, o, now);
        return { kind: 'done', result: { order: presented, merchantId: o.merchant_id, redirect: null, failed: 'The order has expired' } };
      }
      if (o.operative !== 'PAYOUT' && o.operative !== 'TRANSFER') throw badRequest(`Only PAYOUT and TRANSFER orders are paid out; this order is ${o.operative}`);
      if (o.status === 'PENDING_PROCESSOR_RESPONSE') throw conflict('A payout of this order is in progress');
      if (!canOrder(o.status, 'PAYMENT_STARTED')) throw badRequest(`The order is ${o.status} and cannot be paid out`);
      const connector = this.deps.processors.forService(o.service_type, o.env);
      const owner = { merchantId: o.merchant_id, env: o.env };
      const sourceUuid = input.source_uuid ?? input.card_uuid ?? o.source_id;
      let card;
      if (sourceUuid) {
        card = await this.deps.sources.loadCardForPayment(trx, owner, sourceUuid);
        if (card.row.last_paid_at === null) throw badRequest('A payout needs a card with at least one earlier successful payment');
      } else {
        if (!o.customer_ext_id) throw badRequest('source_uuid is required (the order has no customer)');
        card = await this.deps.sources.lastSuccessfullyUsedCard(trx, owner, o.customer_ext_id);
        if (!card) throw badRequest(`The customer ${o.customer_ext_id} has no card with a successful payment`);
      }
      const txId = randomUUID();
      const { txOperative, op } = paymentOperation(o.operative);
      await repo.insertTransaction(trx, {
        id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: txOperative, processor_operation: op,
        amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
        source_id: card.sourceId, source_json: JSON.stringify(presentSource(card.row)), antifraud: null, device: null,
        error_details: null, customer_ip: input.customer_ip ?? null, awaiting_3ds: false, metadata: null,
        created_at: now, updated_at: now, started_at: this.p.clock.now(),
      });
      await this.#transition(trx, o, 'PAYMENT_STARTED', { source_id: card.sourceId }, now, { present: false });
      return {
        kind: 'call', orderId: o.id, txId, op, connector, safe: false,
        request: {
          reference: txId, terminal: { serviceType: o.service_type, terminalId: null }, now, amount: Number(o.amount), currency: o.currency,
          card: { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: null, holder: card.holder }, channel: 'MIT',
        },
      };
    });
    return this.#finishStarted(started);
  }

  // ---- for the customer pages: APM payments (Bizum) and 3DS challenges that time out -------------------

  /**
   * Pays an order by its token with an alternative payment method (the Bizum page, api.md B5): the
   * processor asks the customer (for Bizum, in their bank's app) and answers. The same three steps as a
   * card payment; the transaction's source is a small APM record (masked phone), not a card.
   */
  async payApmByToken(token: string, input: { apm: ApmMethod; phone: string; customerIp?: string | null }): Promise<OrderResult> {
    const started = await this.#db.transaction(async (trx): Promise<Started> => {
      const o = await repo.lockOrderByToken(trx, token);
      if (!o) throw notFound('The order was not found');
      const now = this.#now(o);
      if (this.#isDue(o, now)) {
        const { presented } = await this.#expire(trx, o, now);
        return { kind: 'done', result: { order: presented, merchantId: o.merchant_id, redirect: null, failed: 'The order has expired' } };
      }
      if (o.status === 'PENDING_PROCESSOR_RESPONSE') throw conflict('A payment of this order is in progress');
      if (!canOrder(o.status, 'PAYMENT_STARTED')) throw badRequest(`The order is ${o.status} and cannot be paid`);
      if (o.operative !== 'AUTHORIZATION') throw badRequest(`${input.apm} pays AUTHORIZATION orders only; this order is ${o.operative}`);
      const connector = this.deps.processors.forService(o.service_type, o.env);
      if (!connector.apmPayment) throw badRequest(`${input.apm} is not available on services of type ${o.service_type}`);
      const txId = randomUUID();
      await repo.insertTransaction(trx, {
        id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: 'AUTHORIZATION', processor_operation: 'apmPayment',
        amount: Number(o.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
        source_id: null, source_json: JSON.stringify({ object: input.apm, type: input.apm.toLowerCase(), phone: `******${input.phone.slice(-3)}` }),
        antifraud: null, device: null, error_details: null, customer_ip: input.customerIp ?? null, awaiting_3ds: false, metadata: null,
        created_at: now, updated_at: now, started_at: this.p.clock.now(),
      });
      await this.#transition(trx, o, 'PAYMENT_STARTED', { ip: input.customerIp ?? o.ip }, now);
      return {
        kind: 'call', orderId: o.id, txId, op: 'apmPayment', connector, safe: false,
        request: { reference: txId, terminal: { serviceType: o.service_type, terminalId: null }, now, amount: Number(o.amount), currency: o.currency, apm: input.apm, phone: input.phone },
      };
    });
    return this.#finishStarted(started);
  }

  /** The last four digits of the card whose payment waits for 3DS (shown on the challenge page), or null. */
  async pending3dsCardLast4(orderId: string): Promise<string | null> {
    const db = this.#db.db;
    const tx = await repo.awaiting3dsTransaction(db, orderId);
    if (!tx) return null;
    if (tx.source_json) {
      const last4 = (JSON.parse(tx.source_json) as { last4?: unknown }).last4;
      if (typeof last4 === 'string') return last4;
    }
    const kept = await keptCards.keptCard(db, this.p.vault, tx.id);
    return kept ? kept.pan.reveal().slice(-4) : null;
  }

  /**
   * Challenges whose kept card (hosted page, no customer) has timed out: the cardholder did not finish
   * 3DS in time, so the payment fails (AUTHENTICATION_FAILED) and the order can be paid again. Returns
   * how many were settled. Run by the pages' sweep.
   */
  async expireKeptCardChallenges(limit = 200): Promise<number> {
    const due = await keptCards.expiredSessions(this.#db.db, this.p.clock.now(), limit);
    let settled = 0;
    for (const s of due) {
      const tx = await repo.findTransaction(this.#db.db, s.transaction_id);
      if (tx && tx.status === 'PENDING' && tx.awaiting_3ds) {
        const record = challengeThreedsRecord('U');
        await this.#settle(s.order_id, tx.id, { outcome: 'FAILED', error: 'AUTHENTICATION_FAILED', details: 'The cardholder did not complete 3DS in time' }, { threedsData: record });
        settled++;
      }
      await this.#db.transaction((trx) => keptCards.dropCard(trx, s.transaction_id));
    }
    return settled;
  }

  // ---- settle -----------------------------------------------------------------------------------------

  /**
   * Step 3: settles a PENDING transaction and its order in one transaction. Idempotent: a transaction
   * already settled (by the reconciler, or a second caller) is left as it is.
   */
  async #settle(orderId: string, txId: string, result: ProcessorResult | Settlement, opts: { safe?: boolean; threedsData?: unknown } = {}): Promise<OrderResult> {
    return this.#db.transaction(async (trx) => {
      const locked = await repo.lockOrderWithTx(trx, orderId, txId);
      if (!locked) throw new Error(`settle: order ${orderId} or transaction ${txId} is missing`);
      const { order: o, tx, retry } = locked;
      const base = { merchantId: o.merchant_id, redirect: null, failed: null };
      if (tx.status !== 'PENDING' || result.outcome === 'UNKNOWN' || (tx.awaiting_3ds && result.outcome !== 'VOIDED' && result.outcome !== 'FAILED')) {
        return { ...base, order: this.#present(o, await repo.transactionsOf(trx, o.id)) };
      }
      const now = this.#now(o);
      switch (tx.operative) {
        case 'AUTHORIZATION':
        case 'DEFERRED':
        case 'PAYOUT':
        case 'TRANSFER':
          return this.#settlePayment(trx, o, tx, result as Settlement, now, opts);
        case 'CONFIRMATION':
        case 'CANCELLATION':
        case 'REFUND':
          return this.#settleFollowUp(trx, o, tx, retry, result as Settlement, now);
      }
    });
  }

  async #settlePayment(trx: Tx, o: repo.LockedOrder, tx: repo.SettlingTx, r: Settlement, now: Date, opts: { safe?: boolean; threedsData?: unknown }): Promise<OrderResult> {
    const base = { merchantId: o.merchant_id, redirect: null as string | null, failed: null };
    const extra: Partial<repo.OrderRow> = {};
    if (opts.threedsData !== undefined) extra.threeds_data = opts.threedsData;
    switch (r.outcome) {
      case 'APPROVED': {
        await this.#settleTx(trx, tx, 'APPROVED', { auth_code: r.authorization, processor_id: r.processorId, amount: r.amount }, now);
        const deferred = tx.operative === 'DEFERRED';
        if (tx.source_id) await this.deps.sources.markValidated(trx, tx.source_id, now, o.service_id);
        const { presented } = await this.#transition(trx, o, deferred ? 'DEFERRED_APPROVED' : 'PAYMENT_APPROVED', {
          ...extra,
          authorized: r.amount,
          captured: deferred ? 0 : r.amount,
          safe: opts.safe ?? o.safe,
        }, now);
        return { ...base, order: presented };
      }
      case 'DECLINED': {
        await this.#settleTx(trx, tx, 'DECLINED', { error: r.error, error_details: r.details, processor_id: r.processorId }, now);
        return { ...base, order: (await this.#transition(trx, o, declineEvent(r.error), extra, now)).presented };
      }
      case 'FAILED': {
        const declined = r.error === 'AUTHENTICATION_FAILED';
        await this.#settleTx(trx, tx, declined ? 'DECLINED' : 'FAILED', { error: r.error, error_details: r.details }, now);
        return { ...base, order: (await this.#transition(trx, o, declined ? 'PAYMENT_DECLINED' : 'PAYMENT_FAILED', extra, now)).presented };
      }
      case 'VOIDED': {
        await this.#settleTx(trx, tx, 'VOIDED', { error_details: r.details }, now);
        return { ...base, order: this.#present(o, await repo.transactionsOf(trx, o.id)) };
      }
      case 'CHALLENGE': {
        await repo.updateTransaction(trx, tx.id, { awaiting_3ds: true, updated_at: now });
        const { presented } = await this.#transition(trx, o, 'THREEDS_REQUIRED', { threeds_data: challengeThreedsRecord('PENDING') }, now);
        return { ...base, order: presented, redirect: orderUrls(this.p.config.publicUrl, o.env, o.token)['3ds_tokenized'] };
      }
    }
  }

  async #settleFollowUp(trx: Tx, o: repo.LockedOrder, tx: repo.SettlingTx, state: RetryState, r: Settlement, now: Date): Promise<OrderResult> {
    const op = tx.operative as RetryOperation;
    const base = { merchantId: o.merchant_id, redirect: null, failed: null };
    const amount = Number(tx.amount);
    if (r.outcome === 'APPROVED') {
      await this.#settleTx(trx, tx, 'APPROVED', { auth_code: r.authorization, processor_id: r.processorId }, now);
      // a success matters to the retry rules only after failures
      if (state.failures > 0) await repo.saveRetryState(trx, o.id, op, afterSuccess(state, now));
      let done;
      if (op === 'REFUND') {
        const refunded = Number(o.refunded) + amount;
        done = await this.#transition(trx, o, refundEventFor({ captured: Number(o.captured) }, refunded), { refunded, refund_reserved: Number(o.refund_reserved) - amount }, now);
      } else if (op === 'CONFIRMATION') {
        done = await this.#transition(trx, o, 'CONFIRMED', { captured: amount, busy_tx_id: null }, now);
      } else {
        done = await this.#transition(trx, o, 'CANCELLED', { busy_tx_id: null }, now);
      }
      return { ...base, order: done.presented };
    }
    // The processor refused or failed: the transaction settles, the order keeps its status, the
    // reservation is released, and the failure counts for the retry rules.
    const error = r.outcome === 'DECLINED' || r.outcome === 'FAILED' ? r.error : 'PROCESSOR_ERROR';
    const details = 'details' in r ? r.details : 'failed';
    await this.#settleTx(trx, tx, r.outcome === 'DECLINED' ? 'DECLINED' : 'FAILED', { error, error_details: details }, now);
    await repo.saveRetryState(trx, o.id, op, afterFailure(state, now));
    const release: Partial<repo.OrderRow> = op === 'REFUND' ? { refund_reserved: Number(o.refund_reserved) - amount } : { busy_tx_id: null };
    await repo.updateOrder(trx, o.id, o.status, { ...release, updated_at: now });
    const next = { ...o, ...release, updated_at: now };
    return { ...base, order: this.#present(next, await repo.transactionsOf(trx, o.id)), failed: `${FAILED_OPERATION[op]}: ${details}` };
  }

  // ---- B8 / B9 / B12 ------------------------------------------------------------------------------------

  /** Step 1 of a confirmation, cancellation or refund: checks, retry rules, PENDING transaction, reservation. */
  async #startFollowUp(ctx: RequestContext, orderId: string, op: RetryOperation, decide: (o: repo.LockedOrder) => number, extra?: { extraData?: unknown }) {
    return this.#db.transaction(async (trx) => {
      const o = await repo.lockOrderForFollowUp(trx, orderId, ctx.merchant.id, op);
      if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
      const now = this.#now(o);
      const amount = decide(o);
      if (op !== 'REFUND' && o.busy_tx_id) throw conflict('Another confirmation or cancellation of this order is in progress');
      const wait = retryWaitSeconds(o.retry, now, o.m_timezone);
      if (wait > 0) throw tooManyRequests(`${op} of this order failed recently; the retry rules allow the next attempt in ${wait} s`, wait);
      const original = o.payment;
      if (!original) throw badRequest('The order has no approved payment');
      const connector = this.deps.processors.forService(o.service_type, o.env);
      const txId = randomUUID();
      const processorOp: ProcessorOperation = op === 'REFUND' ? 'refund' : op === 'CONFIRMATION' ? 'capture' : 'cancel';
      await repo.insertTransaction(trx, {
        id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: op as TxOperative, processor_operation: processorOp,
        amount, status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
        source_id: original.source_id, source_json: original.source_json, antifraud: null, device: null, error_details: null,
        customer_ip: null, awaiting_3ds: false, metadata: extra?.extraData ? { extra_data: extra.extraData } : null,
        created_at: now, updated_at: now, started_at: this.p.clock.now(),
      });
      if (op === 'REFUND') await repo.updateOrder(trx, o.id, o.status, { refund_reserved: Number(o.refund_reserved) + amount, updated_at: now });
      else await repo.updateOrder(trx, o.id, o.status, { busy_tx_id: txId, updated_at: now });
      const request: FollowUpRequest = {
        reference: txId, terminal: { serviceType: o.service_type, terminalId: null }, now, amount, currency: o.currency,
        original: { reference: original.id, processorId: original.processor_id, authorization: original.auth_code },
      };
      return { orderId: o.id, txId, processorOp, connector, request };
    });
  }

  async #followUp(ctx: RequestContext, orderId: string, op: RetryOperation, decide: (o: repo.LockedOrder) => number, extra?: { extraData?: unknown }): Promise<OrderResult> {
    const s = await this.#startFollowUp(ctx, orderId, op, decide, extra);
    const result = await this.#call(s.connector, s.processorOp, s.request);
    return this.#settle(s.orderId, s.txId, result);
  }

  /** B9: captures the held amount (or part of it, where the service supports it). */
  async confirm(ctx: RequestContext, input: { order_uuid: string; amount?: number | null }): Promise<OrderResult> {
    return this.#followUp(ctx, input.order_uuid, 'CONFIRMATION', (o) =>
      unwrap(checkConfirmation(amountsOf(o), input.amount, this.deps.processors.supportsPartialCapture(o.service_type))),
    );
  }

  /** B8: releases the held amount. */
  async cancel(ctx: RequestContext, input: { order_uuid: string }): Promise<OrderResult> {
    return this.#followUp(ctx, input.order_uuid, 'CANCELLATION', (o) => unwrap(checkCancellation(amountsOf(o))));
  }

  /** B12: full or partial refund; marketplace refunds checked. */
  async refund(ctx: RequestContext, input: { order_uuid: string; amount?: number | null; extra_data?: Record<string, unknown> | null }): Promise<OrderResult> {
    const marketplace = input.extra_data?.marketplace_refunds;
    return this.#followUp(
      ctx,
      input.order_uuid,
      'REFUND',
      (o) => {
        const amount = unwrap(checkRefund(amountsOf(o), input.amount));
        const problem = checkMarketplaceRefunds(marketplace, amount);
        if (problem) throw badRequest(problem);
        return amount;
      },
      marketplace ? { extraData: { marketplace_refunds: marketplace } } : undefined,
    );
  }

  // ---- background ---------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register(EXPIRE_QUEUE, async () => {
      await this.expireDue();
    });
    this.p.jobs.every(EXPIRE_QUEUE, this.p.config.sweepEveryMs);
    this.p.jobs.register(RECONCILE_QUEUE, async () => {
      await this.reconcile();
    });
    this.p.jobs.every(RECONCILE_QUEUE, this.p.config.sweepEveryMs);
  }

  /**
   * Expires every open order whose time has come on its merchant's clock, in batches. One recurring job
   * does this for all orders (no job per order); reads and payments also expire a due order on the spot.
   */
  async expireDue(batch = 200): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.#db.transaction(async (trx) => {
        const ids = await repo.lockDueOrders(trx, OPEN_STATUSES, this.p.clock.now(), batch);
        for (const id of ids) {
          const o = await repo.lockOrder(trx, id);
          if (o && this.#isDue(o, this.#now(o))) await this.#expire(trx, o, this.#now(o));
        }
        return ids.length;
      });
      total += n;
      if (n < batch) return total;
    }
  }

  /**
   * Settles transactions left PENDING by a crash or a processor timeout. With autorecover_transactions
   * the processor is asked (lookup); otherwise, or when the processor has no record, the transaction is
   * ERROR (TIMEOUT).
   */
  async reconcile(opts: { olderThanMs?: number } = {}): Promise<number> {
    const before = new Date(this.p.clock.now().getTime() - (opts.olderThanMs ?? this.p.config.reconcileAfterMs));
    const stale = await repo.stalePendingTransactions(this.#db.db, before, 500);
    let settled = 0;
    for (const s of stale) {
      const o = await repo.findOrder(this.#db.db, s.order_id);
      const tx = await repo.findTransaction(this.#db.db, s.id);
      if (!o || !tx || tx.status !== 'PENDING') continue;
      let result: Settlement | null;
      if (o.m_autorecover) {
        const connector = this.deps.processors.forService(o.service_type, o.env);
        const found = await connector.lookup({ reference: tx.id, operation: tx.processor_operation as ProcessorOperation, terminal: { serviceType: o.service_type, terminalId: null } });
        if (found.found === true) result = found.result;
        else if (found.found === false) result = { outcome: 'FAILED', error: 'TIMEOUT', details: 'The processor has no record of the operation: it did not happen' };
        else {
          const ageMs = this.p.clock.now().getTime() - tx.started_at.getTime();
          result = ageMs > 86_400_000 ? { outcome: 'FAILED', error: 'TIMEOUT', details: 'The processor could not be asked for a day' } : null;
        }
      } else {
        result = { outcome: 'FAILED', error: 'TIMEOUT', details: 'No answer from the processor; not recovered (autorecover_transactions is off)' };
      }
      if (!result) continue;
      await this.#settle(o.id, tx.id, result);
      settled++;
      this.p.logger.info({ transaction: tx.id, outcome: result.outcome }, 'reconciled a pending transaction');
    }
    return settled;
  }
}

// ---- input helpers (pure) ----------------------------------------------------------------------------------

function unwrap(c: { ok: number } | { error: string }): number {
  if ('error' in c) throw badRequest(c.error);
  return c.ok;
}

function amountsOf(o: repo.LockedOrder) {
  return {
    status: o.status as OrderStatus,
    operative: o.operative,
    amount: Number(o.amount),
    authorized: Number(o.authorized),
    captured: Number(o.captured),
    refunded: Number(o.refunded),
    refund_reserved: Number(o.refund_reserved),
  };
}

function checkUrl(name: string, v: string | null | undefined): void {
  if (v === undefined || v === null || v === '') return;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw badRequest(`${name} must be an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${name} must be an absolute http(s) URL`);
}

/** Rules of B1 beyond the schema. */
export function checkOrderInput(input: NewOrder): void {
  if (input.expires_in !== undefined && input.expires_in !== null && (input.expires_in < 600 || input.expires_in > 31_536_000)) {
    throw badRequest('expires_in must be from 600 to 31536000 seconds');
  }
  checkUrl('url_post', input.url_post);
  checkUrl('url_ok', input.url_ok);
  checkUrl('url_ko', input.url_ko);
  if (input.source_uuid && input.card_uuid && input.source_uuid !== input.card_uuid) throw badRequest('source_uuid and card_uuid differ');
}

/** extra_data as stored and echoed: `checkout` and `cof` (null when absent), never `{}`. */
function normaliseExtraData(extra: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!extra) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) out[k] = nullIfEmpty(v);
  return nullIfEmpty(out);
}

function externalThreeds(t: { version?: number | string; trans_status?: string; eci?: number | string; cavv?: string; ds_trans_id?: string }): ThreeDSResult {
  if (!t.trans_status) throw badRequest('threeds_data.trans_status is required');
  return {
    version: t.version === undefined ? '2' : String(t.version),
    transStatus: t.trans_status,
    eci: t.eci === undefined ? null : String(t.eci),
    cavv: t.cavv ?? null,
    dsTransId: t.ds_trans_id ?? null,
  };
}

function threedsRecordOf(t: ThreeDSResult, flow: string, scaRequested: boolean) {
  return { version: t.version, flow, sca_requested: scaRequested, status: t.transStatus, eci: t.eci, exemption: null };
}
