/**
 * What every payment operation shares: the dependencies, the merchant clock of an order, how an order is
 * presented and hashed, and the few steps every money path takes (lock an order of the caller, apply an
 * order event from the transition table, settle a transaction, expire an order).
 *
 * Internal to the payments module: other modules use the public interface of index.ts.
 */
import type { RawBuilder } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { okEnvelope } from '../../platform/http/envelope.js';
import { toWireJsonAround } from '../../platform/http/json.js';
import type { Platform } from '../../platform/index.js';
import type { Secret } from '../../platform/security/secret.js';
import type {
  ApmInfo,
  ApmPaymentRequest,
  ApmPayoutRequest,
  Connector,
  DpanData,
  PaymentRequest,
  ProcessorOperation,
  SettledResult,
  TerminalAction,
  TerminalRead,
  ThreeDSResult,
  TxError,
} from '../../processors/index.js';
import type { ProcessorRegistry } from '../../processors/index.js';
import type { EventsService } from '../events/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { ServiceWithTerminal } from '../services/index.js';
import type { SourcesService } from '../sources/index.js';
import { canOrder, orderTransition, txTransition, type OrderEvent, type TxEvent } from './order-states.js';
import { hashedPart, presentOrder, validationHash, type Operative } from './payments.domain.js';
import * as repo from './payments.repo.js';
import * as keptCards from './threeds-cards.repo.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export type PresentedOrder = ReturnType<typeof presentOrder>;

/** An order-bearing answer: the order, and where the customer must go when 3DS is needed. */
export interface OrderResult {
  order: PresentedOrder;
  merchantId: string;
  /** 303: the URL the customer must be sent to (3DS). */
  redirect: string | null;
  /** 402: the processor refused a confirmation, cancellation or refund. */
  failed: string | null;
  /** Cascading: the attempt the settle started on the next service, for the runner to call (never answered). */
  next?: { txId: string; serviceId: string; serviceType: string; env: Env };
}

/** A new order (B1, B3 and the orders other modules create). */
export interface NewOrder {
  amount: number;
  operative: Operative;
  secure: boolean;
  description: string;
  customer_ext_id?: string | number | null;
  service?: string | null;
  currency?: string | number | null;
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

/** A card given in the request (B3, B11) or a stored one (B10, B11, pages, recurring charges). */
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

/** How an order is paid with a card. */
export interface PayInput {
  /**
   * ECOMMERCE: the customer is there (3DS may apply); MOTO: mail or phone order; MIT: merchant-initiated
   * (recurring, batch); CARD_PRESENT: read by a physical device (the chip or PIN authenticated the cardholder).
   */
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT' | 'CARD_PRESENT';
  /** MIT: what kind of merchant-initiated payment (a subscription's charge is RECURRING); absent: UNSCHEDULED. */
  mit?: 'RECURRING' | 'UNSCHEDULED' | 'INSTALMENT' | null;
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
  /**
   * The card came out of a wallet token (B14, operations/wallet.ts). With `dpan` (the wallet's
   * cryptogram: the device authenticated the cardholder) the payment is authenticated: `safe`, and
   * `threeds_data` records the wallet and the ECI. The transaction's source names the wallet.
   */
  wallet?: WalletUse | null;
  /**
   * Runs in the transaction of step 1 once the order is known to be payable, before anything is
   * written: a wallet token is recorded as used there, so a replayed token (which throws) changes nothing.
   */
  claim?: ((trx: Tx, order: { id: string; merchantId: string; env: Env }) => Promise<void>) | null;
  /**
   * Hosted page: the currency conversion offered to the cardholder and their choice (operations/dcc.ts).
   * The order is still charged and credited in its own currency; the choice is recorded and sent to the
   * processor with the payment.
   */
  dcc?: DccChoice | null;
  /** CARD_PRESENT: what the terminal read (see CardPresentRead). */
  cardPresent?: CardPresentRead | null;
}

/** The conversion offered to the cardholder and their choice (made by the hosted page). */
export interface DccChoice {
  accepted: boolean;
  /** The card's currency, ISO 4217 alpha-3. */
  cardholderCurrency: string;
  /** Minor units of the card's currency. */
  cardholderAmount: number;
  rate: string;
  markup: string;
  source: string;
  /** When the cardholder chose (merchant clock). */
  at: Date;
}

/** The wallet a card came from (B14). */
export interface WalletUse {
  wallet: 'GOOGLE_PAY' | 'APPLE_PAY';
  /** B14 `flow`: the payment was made in an app or on the web. */
  flow: 'APP' | 'WEB';
}

/**
 * A card read by a physical device. An order sent to the device (PENDING_PROCESSOR_RESPONSE, waiting for
 * it) is charged through the transaction that waited; `scaRetry` continues an order in
 * AUTHENTICATION_REQUIRED (the terminal sends the payment again with the PIN, or the card inserted).
 */
export interface CardPresentRead extends TerminalRead {
  /** The transaction's `pos`: where the card was read (device_id, tid, mid, stan, rrn, card_reading_method, entry_mode). */
  pos: Record<string, string | null>;
  scaRetry?: boolean;
}

/**
 * What a risk evaluator (security lists and antifraud) is told about a card payment, in the transaction
 * that starts it, before the processor is called. The payments module defines it; a risk module
 * implements it (dependency inversion: payments knows nothing of lists or rules).
 */
export interface RiskCheck {
  merchantId: string;
  env: Env;
  serviceId: string;
  orderId: string;
  amount: number;
  /** ISO 4217 alpha-3. */
  currency: string;
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT' | 'CARD_PRESENT';
  card: {
    /** The vault's keyed fingerprint of the card number (the one sources keep for "same card"). */
    fingerprint: string;
    /** The first 8 digits. */
    iin: string;
    last4: string;
    /** Issuing country (ISO 3166 alpha-2) when known. */
    country: string | null;
    /** The stored card, when the payment uses one. */
    sourceId: string | null;
  };
  customerExtId: string | null;
  customerIp: string | null;
  /** The merchant's time. */
  now: Date;
}

/** `antifraud` of a transaction. */
export interface AntifraudRecord {
  evaluation: 'ACCEPT' | 'CHALLENGE' | 'REJECT';
  score: number;
  risk_score: number;
  fraud_score: number;
  triggered_rules: string[];
}

/**
 * What the payment does: PROCEED, CHALLENGE the cardholder (3-D Secure), or be refused without calling
 * the processor (BLACKLISTED, FRAUD). `exemption`: the exemption from strong customer authentication the
 * payment qualifies for when only the order's `secure` flag asks for 3-D Secure.
 */
export interface RiskVerdict {
  action: 'PROCEED' | 'CHALLENGE' | 'BLACKLISTED' | 'FRAUD';
  antifraud: AntifraudRecord | null;
  exemption: 'LOW_VALUE' | 'WHITELISTED' | null;
}

export interface RiskEvaluator {
  evaluate(trx: Tx, check: RiskCheck): Promise<RiskVerdict>;
  /**
   * The verdict when it needs no database (nothing to evaluate for this merchant and service), else
   * null. Lets the payment's fast path skip the transaction; `evaluate` must give the same answer.
   */
  quickVerdict?(check: RiskCheck): RiskVerdict | null;
}

/** What routing knows of a card payment before the call (docs/routing.md). */
export interface RoutingFacts {
  merchantId: string;
  env: 'sandbox' | 'production';
  /** The service the order names (the entry point). */
  entryServiceId: string;
  orderId: string;
  amount: number;
  currency: string;
  /** The card's first 8 digits (never more). */
  bin: string;
  channel: PayInput['channel'];
  customerCountry: string | null;
  metadata: Record<string, unknown> | null;
}

/** One attempt routing plans: the service (and its type), the rule that chose it and why. */
export interface RoutedAttempt {
  serviceId: string;
  serviceType: string;
  rule: string | null;
  reason: string;
}

/**
 * Routing and cascading (the routing module, through the app). `route` answers the attempts in order
 * (the first is tried first, the others are the fallbacks after a retriable decline), or null when no
 * routing profile applies (the order's own service alone). `cascadeAllowed` is the retry table: may a
 * failed attempt be tried on the next service (never when money may have moved). `record` feeds the
 * health figures and the circuit breaker.
 */
export interface PaymentRouter {
  /** `db`: the step's transaction when it holds one. */
  route(facts: RoutingFacts, db?: Executor): Promise<{ attempts: RoutedAttempt[]; rule: string | null } | null>;
  cascadeAllowed(failure: { error: string; notSent: boolean }): boolean;
  record(serviceId: string, outcome: 'APPROVED' | 'DECLINED' | 'ERROR' | 'TIMEOUT', ms: number): void;
}

/** Where step 1 of a payment left it. */
export type Started =
  | { kind: 'done'; result: OrderResult }
  /** 3DS needed: `tryFrictionless` first asks the 3DS server (AReq), with the exemption when there is one. */
  | { kind: '3ds'; orderId: string; url: string; tryFrictionless?: boolean; exemption?: 'LOW_VALUE' | 'WHITELISTED' | null }
  | { kind: 'call'; orderId: string; txId: string; op: ProcessorOperation; request: PaymentRequest | ApmPaymentRequest | ApmPayoutRequest; connector: Connector; safe: boolean };

/** What settles a PENDING transaction besides a processor's answer. */
export type Settlement =
  | SettledResult
  | { outcome: 'FAILED'; error: Extract<TxError, 'TIMEOUT' | 'PROCESSOR_ERROR' | 'AUTHENTICATION_FAILED'>; details: string }
  | { outcome: 'CHALLENGE'; details: string; terminalAction?: TerminalAction }
  | { outcome: 'VOIDED'; details: string };

export interface PaymentsDeps {
  merchants: MerchantsService;
  sources: SourcesService;
  processors: ProcessorRegistry;
  events: EventsService;
  /** Security lists and antifraud, evaluated before every card payment (optional). */
  risk?: RiskEvaluator;
  /** Routing profiles and cascading (optional: without it every payment goes to the order's service). */
  routing?: PaymentRouter;
  /**
   * The APMs a service offers (the payment-methods module knows; B15 payouts with an APM ask it).
   * Without it, services offer no APM payouts.
   */
  apms?: { offered(serviceId: string): Promise<readonly ApmInfo[]> };
}

export class PaymentsCore {
  /** Services by id and default services by merchant and currency, for PAYGATE_CACHE_TTL_MS (a disabled service stops within that). */
  readonly services: TtlCache<ServiceWithTerminal | null>;
  /** Opened key signatures (validation_hash of every order-bearing response). */
  readonly #signatures = new TtlCache<Secret<string>>(60_000);
  /** Group commit of B1 orders. */
  readonly orderInserts: repo.OrderInsertBatcher;

  constructor(
    readonly p: Platform,
    readonly deps: PaymentsDeps,
  ) {
    this.services = new TtlCache(p.config.cacheTtlMs);
    this.orderInserts = new repo.OrderInsertBatcher(() => p.database.db);
    // a service disabled (or a key revoked) in any process drops these at once
    p.invalidation?.onInvalidate(() => {
      this.services.clear();
      this.#signatures.clear();
    });
  }

  get db() {
    return this.p.database;
  }

  /** Now on the order's merchant clock. */
  now(o: { env: Env; m_offset: number }): Date {
    return new Date(this.p.clock.now().getTime() + (o.env === 'sandbox' ? Number(o.m_offset) : 0));
  }

  zones(o: { m_timezone: string }) {
    return { server: this.p.config.timezone, merchant: o.m_timezone };
  }

  present(o: repo.LockedOrder, txs: repo.TxRow[]): PresentedOrder {
    return presentOrder(o, txs, this.zones(o), this.p.config.publicUrl);
  }

  /** Envelope fields of an order-bearing response, hashed with the caller's signature. */
  respond(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }, extra?: { extra_data: unknown }) {
    const client = { uuid: r.merchantId };
    return { order: r.order, client, ...(extra ?? {}), validation_hash: this.#hashed(ctx, { order: r.order, client, ...(extra ?? {}) }).hash };
  }

  /** The hashed part of an answer as sent (wire JSON) and its validation_hash with the caller's signature. */
  #hashed(ctx: RequestContext, part: Parameters<typeof hashedPart>[0]): { serialized: string; hash: string } {
    const serialized = hashedPart(part);
    return { serialized, hash: validationHash(serialized, this.signature(ctx).reveal()) };
  }

  /**
   * The whole 200 answer of `respond`'s fields as wire JSON, the hashed part serialized once (for the
   * hash and for the body): what the reply serializer would send for `ok(ctx, respond(ctx, r))`.
   */
  respondWire(ctx: RequestContext, r: { order: PresentedOrder; merchantId: string }): string {
    const { serialized, hash } = this.#hashed(ctx, { order: r.order, client: { uuid: r.merchantId } });
    return toWireJsonAround(okEnvelope({ now: ctx.clock.now(), timezone: ctx.timezone }, {}), serialized, { validation_hash: hash });
  }

  signature(ctx: RequestContext): Secret<string> {
    return this.#signatures.get(ctx.keyId) ?? this.#signatures.set(ctx.keyId, ctx.signature());
  }

  async lockOwned(trx: Executor, ctx: RequestContext, orderId: string): Promise<repo.LockedOrder> {
    const o = await repo.lockOrder(trx, orderId, ctx.merchant.id);
    if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    return o;
  }

  /**
   * Applies an order event: status from the table, extra columns, notification when the table says so.
   * Returns the order as it is now, presented.
   */
  async transition(
    trx: Tx,
    o: repo.LockedOrder,
    event: OrderEvent,
    set: Partial<repo.OrderRow> = {},
    now = this.now(o),
    opts: { present?: boolean } = {},
  ): Promise<{ order: repo.LockedOrder; presented: PresentedOrder }> {
    const t = orderTransition(o.status, event);
    const next: repo.LockedOrder = { ...o, ...set, status: t.to, paid: t.paid ?? o.paid, updated_at: now };
    await repo.updateOrder(trx, o.id, o.status, { ...set, status: t.to, paid: next.paid, updated_at: now });
    const notify = t.notify && !!o.url_post;
    // The order is presented (one more query) only when a notification or the caller needs it.
    if (!notify && opts.present === false) return { order: next, presented: null as unknown as PresentedOrder };
    const txs = await repo.transactionsOf(trx, o.id);
    const presented = this.present(next, txs);
    if (notify) await this.notify(trx, o, presented, now);
    return { order: next, presented };
  }

  /** Enqueues the order's notification (url_post) in `trx`. */
  async notify(trx: Tx, o: repo.LockedOrder, presented: PresentedOrder, now: Date): Promise<void> {
    await this.deps.events.enqueueNotification(trx, this.#notification(o, presented, now));
  }

  /**
   * `notify` as statements to run inside the caller's statement, guarded by `when` (events'
   * notificationSql). Call `p.jobs.poke()` once the statement ran.
   */
  notificationSql(o: repo.LockedOrder, presented: PresentedOrder, now: Date, when: RawBuilder<unknown>): RawBuilder<unknown>[] {
    return this.deps.events.notificationSql(this.#notification(o, presented, now), when);
  }

  #notification(o: repo.LockedOrder, presented: PresentedOrder, now: Date) {
    return {
      merchantId: o.merchant_id,
      env: o.env,
      orderId: o.id,
      keyId: o.key_id,
      url: o.url_post!,
      payload: hashedPart({ order: presented, client: { uuid: o.merchant_id } }),
      retries: o.m_resend,
      at: now,
    };
  }

  async settleTx(trx: Tx, tx: Pick<repo.TxRow, 'id' | 'status'>, event: TxEvent, set: Partial<repo.TxRow>, now: Date): Promise<void> {
    const status = txTransition(tx.status, event);
    await repo.settleTransaction(trx, tx.id, { ...set, status, awaiting_3ds: false, updated_at: now } as never);
    // a card kept for a 3DS challenge goes as soon as its transaction settles
    await keptCards.dropCard(trx, tx.id);
  }

  /** Expires an open order in `trx` (C1, the sweep, and the lazy check on read and pay). */
  async expire(trx: Tx, o: repo.LockedOrder, now: Date) {
    const waiting = await repo.awaiting3dsTransaction(trx, o.id);
    if (waiting) await this.settleTx(trx, waiting, 'VOIDED', { error_details: 'The order expired before 3DS was completed' }, now);
    return this.transition(trx, o, 'EXPIRED', {}, now);
  }

  isDue(o: repo.LockedOrder, now: Date): boolean {
    return canOrder(o.status, 'EXPIRED') && o.expires_at.getTime() <= now.getTime();
  }

  /**
   * The start of every payment-like step on a locked order: when its time has come it is expired on the
   * spot and the caller answers with it (`failed`: the order has expired).
   */
  async expiredOnTheSpot(trx: Tx, o: repo.LockedOrder, now: Date): Promise<Started | null> {
    if (!this.isDue(o, now)) return null;
    const { presented } = await this.expire(trx, o, now);
    return { kind: 'done', result: { order: presented, merchantId: o.merchant_id, redirect: null, failed: 'The order has expired' } };
  }
}
