/**
 * Pure rules of payments: operatives, amounts (decisions §4), the retry rules of api.md Limits
 * (decisions §8), the Order and Transaction records of api.md, and validation_hash (decisions §7).
 * No IO: unit-tested without a database.
 */
import { toWireJson } from '../../platform/http/json.js';
import { formatContractDate, startOfNextDay } from '../../platform/time/format.js';
import type { ProcessorOperation } from '../../processors/index.js';
import type { OrderStatus, TxStatus } from './order-states.js';

export const OPERATIVES = ['AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED', 'PAYOUT', 'TRANSFER'] as const;
export type Operative = (typeof OPERATIVES)[number];

export const TX_OPERATIVES = ['AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'CANCELLATION', 'REFUND', 'PAYOUT', 'TRANSFER'] as const;
export type TxOperative = (typeof TX_OPERATIVES)[number];

/** The 3-D Secure protocol version of the flows the gateway starts (`threeds_data.version`). */
export const THREEDS_VERSION = '2.2.0';

/**
 * `threeds_data` of an order whose 3DS challenge has started (status `PENDING`) or was never finished
 * (`U`): `version` is a string from the start (decisions §10), never null.
 */
export function challengeThreedsRecord(status: 'PENDING' | 'U') {
  return { version: THREEDS_VERSION, flow: 'CHALLENGE', sca_requested: true, status, eci: null, exemption: null };
}

export const EXPIRES_IN_MIN = 600;
export const EXPIRES_IN_MAX = 31_536_000;
export const EXPIRES_IN_DEFAULT = 600;
export const METADATA_MAX_PAIRS = 20;
export const LIST_LIMIT_MAX = 10_000;

/** The transaction operative and connector operation of a payment on an order of `operative`. */
export function paymentOperation(operative: Operative): { txOperative: TxOperative; op: ProcessorOperation } {
  switch (operative) {
    case 'AUTHORIZATION':
      return { txOperative: 'AUTHORIZATION', op: 'authorize' };
    case 'PARTIAL_AUTHORIZATION':
      return { txOperative: 'AUTHORIZATION', op: 'partialAuthorize' };
    case 'DEFERRED':
      return { txOperative: 'DEFERRED', op: 'preauthorize' };
    case 'PAYOUT':
      return { txOperative: 'PAYOUT', op: 'payout' };
    case 'TRANSFER':
      return { txOperative: 'TRANSFER', op: 'payout' };
  }
}

// ---- amounts (decisions §4) -------------------------------------------------------------------------

export type Check<T> = { ok: T } | { error: string };

export interface OrderAmounts {
  status: OrderStatus;
  operative: Operative;
  amount: number;
  authorized: number;
  captured: number;
  refunded: number;
  refund_reserved: number;
}

function amountProblem(value: unknown, field = 'amount'): string | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return `${field} must be an integer number of minor units`;
  if (value < 0) return `${field} must not be negative`;
  if (value === 0) return `${field} must be greater than 0`;
  return null;
}

/** What is left to refund: captured, less refunded and refunds in flight. */
export const refundable = (o: OrderAmounts) => o.captured - o.refunded - o.refund_reserved;

/** B12: the amount to refund (omitted/null: everything left), or why not. */
export function checkRefund(o: OrderAmounts, requested: number | null | undefined): Check<number> {
  if (o.operative === 'PAYOUT' || o.operative === 'TRANSFER') return { error: `A ${o.operative} order cannot be refunded` };
  if (o.status === 'PENDING_CONFIRMATION') return { error: 'The DEFERRED order is not confirmed: cancel it instead of refunding' };
  if (o.status !== 'SUCCESS' && o.status !== 'PARTIALLY_REFUNDED') return { error: `The order is ${o.status}: only a paid order can be refunded` };
  const left = refundable(o);
  if (requested !== undefined && requested !== null) {
    const p = amountProblem(requested);
    if (p) return { error: p };
  }
  if (left <= 0) return { error: o.refund_reserved > 0 ? 'Nothing left to refund (refunds are in progress)' : 'The order is already fully refunded' };
  const amount = requested ?? left;
  if (amount > left) return { error: `amount ${amount} is more than the refundable remainder ${left}` };
  return { ok: amount };
}

/** After a refund of the captured amount: full or partial. */
export function refundEventFor(o: { captured: number }, refundedAfter: number): 'REFUNDED_FULLY' | 'REFUNDED_PARTIALLY' {
  return refundedAfter >= o.captured ? 'REFUNDED_FULLY' : 'REFUNDED_PARTIALLY';
}

/** B9: the amount to capture (omitted/null: the whole hold), or why not. */
export function checkConfirmation(o: OrderAmounts, requested: number | null | undefined, partialAllowed: boolean): Check<number> {
  if (o.operative !== 'DEFERRED') return { error: `Only DEFERRED orders are confirmed; this order is ${o.operative}` };
  if (o.status !== 'PENDING_CONFIRMATION') return { error: `The order is ${o.status}: only a DEFERRED order holding funds (PENDING_CONFIRMATION) can be confirmed` };
  if (requested === undefined || requested === null) return { ok: o.authorized };
  const p = amountProblem(requested);
  if (p) return { error: p };
  if (requested > o.authorized) return { error: `amount ${requested} is more than the held amount ${o.authorized}` };
  if (requested < o.authorized && !partialAllowed) return { error: 'This service does not support partial confirmation: omit amount to confirm the full amount' };
  return { ok: requested };
}

/** B8: only a DEFERRED order holding funds can be cancelled. */
export function checkCancellation(o: OrderAmounts): Check<number> {
  if (o.operative !== 'DEFERRED') return { error: `Only DEFERRED orders are cancelled; this order is ${o.operative}` };
  if (o.status !== 'PENDING_CONFIRMATION') return { error: `The order is ${o.status}: only a DEFERRED order holding funds (PENDING_CONFIRMATION) can be cancelled` };
  return { ok: o.authorized };
}

export interface MarketplaceRefund {
  merchant_location_id: number;
  amount: number;
  description: string;
  net_amount: number;
}

/**
 * `extra_data.marketplace_refunds`: every entry well formed, and the refunding merchant's entry (the
 * first one, by convention of the reference API) carries the outer amount.
 */
export function checkMarketplaceRefunds(list: unknown, outerAmount: number): string | null {
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list) || list.length === 0) return 'extra_data.marketplace_refunds must be a non-empty array';
  for (const [i, e] of list.entries()) {
    if (typeof e !== 'object' || e === null) return `extra_data.marketplace_refunds[${i}] must be an object`;
    const r = e as Record<string, unknown>;
    if (typeof r.merchant_location_id !== 'number' || !Number.isSafeInteger(r.merchant_location_id)) return `extra_data.marketplace_refunds[${i}].merchant_location_id must be an integer`;
    for (const f of ['amount', 'net_amount'] as const) {
      if (typeof r[f] !== 'number' || !Number.isSafeInteger(r[f]) || (r[f] as number) < 0) return `extra_data.marketplace_refunds[${i}].${f} must be an integer >= 0`;
    }
    if (typeof r.description !== 'string') return `extra_data.marketplace_refunds[${i}].description must be a string`;
    if ((r.net_amount as number) > (r.amount as number)) return `extra_data.marketplace_refunds[${i}].net_amount must not exceed its amount`;
  }
  const first = list[0] as MarketplaceRefund;
  if (first.amount !== outerAmount) {
    return `extra_data.marketplace_refunds[0].amount (${first.amount}) must equal the refund amount (${outerAmount})`;
  }
  return null;
}

// ---- retry rules (api.md Limits, decisions §8) -------------------------------------------------------

export const RETRY_OPERATIONS = ['CANCELLATION', 'CONFIRMATION', 'REFUND'] as const;
export type RetryOperation = (typeof RETRY_OPERATIONS)[number];

export interface RetryState {
  failures: number;
  lastFailureAt: Date | null;
  lastSuccessAt: Date | null;
}

export const NO_RETRY_STATE: RetryState = { failures: 0, lastFailureAt: null, lastSuccessAt: null };
export const RETRY_WAIT_MS = 60_000;
export const RETRY_DAILY_AFTER = 3;

/**
 * The earliest instant (merchant clock) another attempt is allowed, or null when it is allowed now:
 *  1. after a failed attempt, 1 minute from that failure;
 *  2. after a successful attempt, no wait;
 *  3./4. from the third failure in total on, each failure closes the operation until 00:00 of the next
 *     day in the merchant's timezone (so one failed attempt per day).
 */
export function retryAllowedAt(s: RetryState, timezone: string): Date | null {
  if (!s.lastFailureAt) return null;
  if (s.lastSuccessAt && s.lastSuccessAt.getTime() >= s.lastFailureAt.getTime()) return null;
  if (s.failures >= RETRY_DAILY_AFTER) return startOfNextDay(s.lastFailureAt, timezone);
  return new Date(s.lastFailureAt.getTime() + RETRY_WAIT_MS);
}

/** Seconds to wait at `now`, or 0 when an attempt is allowed. */
export function retryWaitSeconds(s: RetryState, now: Date, timezone: string): number {
  const at = retryAllowedAt(s, timezone);
  if (!at || at.getTime() <= now.getTime()) return 0;
  return Math.ceil((at.getTime() - now.getTime()) / 1000);
}

export function afterFailure(s: RetryState, now: Date): RetryState {
  return { failures: s.failures + 1, lastFailureAt: now, lastSuccessAt: s.lastSuccessAt };
}

export function afterSuccess(s: RetryState, now: Date): RetryState {
  return { ...s, lastSuccessAt: now };
}

// ---- records of api.md ------------------------------------------------------------------------------

export interface OrderView {
  id: string;
  created_at: Date;
  amount: number;
  currency_number: string;
  paid: boolean;
  status: string;
  safe: boolean;
  refunded: number;
  additional: string | null;
  service_type: string;
  service_id: string;
  /** The service the order named, when routing sent an attempt elsewhere (migration 1141). */
  entry_service_id?: string | null;
  entry_service_type?: string | null;
  customer_ext_id: string | null;
  cof_txnid: string | null;
  token: string;
  ip: string | null;
  reference: string | null;
  dynamic_descriptor: string | null;
  threeds_data: unknown;
  env: 'sandbox' | 'production';
  /** What the order's disputes mean for it (null until its first dispute; bigint columns may come as text). */
  dispute_disputed?: number | string | null;
  dispute_lost?: number | string | null;
  dispute_won?: number | string | null;
}

/**
 * `disputes` of an order once it has had a dispute (absent before: an order without disputes is presented
 * as it always was): the amounts its disputes have taken and not decided yet, lost, and won back.
 */
export function presentOrderDisputes(o: Pick<OrderView, 'dispute_disputed' | 'dispute_lost' | 'dispute_won'>): { disputes?: { disputed: number; lost: number; won: number } } {
  if (o.dispute_disputed == null && o.dispute_lost == null && o.dispute_won == null) return {};
  return { disputes: { disputed: Number(o.dispute_disputed ?? 0), lost: Number(o.dispute_lost ?? 0), won: Number(o.dispute_won ?? 0) } };
}

export interface TransactionView {
  id: string;
  created_at: Date;
  operative: string;
  amount: number;
  auth_code: string;
  processor_id: string | null;
  status: string;
  error: string;
  source_json: string | null;
  antifraud: unknown;
  device: unknown;
  error_details: string | null;
  /** The conversion offered with the payment (migration 0820), or null. */
  dcc?: unknown;
  /** Card-present: where the card was read. */
  pos?: unknown;
  /** Card-present: the terminal action the issuer asked for. */
  payment_data?: unknown;
  /** Routing: which service took the attempt and why (migration 1141), or null. */
  routing?: unknown;
}

export interface Zones {
  /** Server timezone (`created`). */
  server: string;
  /** Merchant timezone (`created_from_client_timezone`). */
  merchant: string;
}

/** Payment-page URLs of an order (config.publicUrl + /v1[/sandbox]/payment/...). */
export function orderUrls(publicUrl: string, env: 'sandbox' | 'production', token: string) {
  const base = `${publicUrl}/v1${env === 'sandbox' ? '/sandbox' : ''}/payment`;
  return {
    payment_card: `${base}/process/${token}`,
    bizum: `${base}/bizum/${token}`,
    '3ds_tokenized': `${base}/tokenized/${token}`,
  };
}

/** `{}` never goes out inside order/client/extra_data: empty objects become null. */
export function nullIfEmpty<T>(v: T): T | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0) return null;
  return v;
}

function presentThreeds(t: unknown) {
  if (!t || typeof t !== 'object') return null;
  const x = t as Record<string, unknown>;
  return {
    // strings, as the contract has them (only eci and exemption may be null); a wallet record written
    // before its version was set reads as the version the gateway records (decisions, B14)
    version: typeof x.version === 'string' ? x.version : x.version === undefined || x.version === null ? THREEDS_VERSION : String(x.version),
    flow: (x.flow as string | undefined) ?? '',
    sca_requested: x.sca_requested === true,
    status: (x.status as string | undefined) ?? '',
    eci: (x.eci as string | null | undefined) ?? null,
    exemption: (x.exemption as string | null | undefined) ?? null,
  };
}

function presentAntifraud(a: unknown) {
  if (!a || typeof a !== 'object') return null;
  const x = a as Record<string, unknown>;
  return {
    evaluation: String(x.evaluation ?? ''),
    score: Number(x.score ?? 0),
    risk_score: Number(x.risk_score ?? 0),
    fraud_score: Number(x.fraud_score ?? 0),
    triggered_rules: Array.isArray(x.triggered_rules) ? x.triggered_rules : [],
  };
}

function presentDevice(d: unknown) {
  if (!d || typeof d !== 'object') return null;
  const x = d as Record<string, unknown>;
  return { fingerprint: String(x.fingerprint ?? ''), user_agent: String(x.user_agent ?? '') };
}

/**
 * `dcc` of an order and of its payment transactions: the dynamic currency conversion offered to the
 * cardholder on the hosted page and their choice; null when none was offered.
 */
export interface DccRecord {
  offered: boolean;
  accepted: boolean;
  /** ISO 4217 numeric code of the card's currency, like the order's `currency`. */
  cardholder_currency: string;
  /** Minor units of the card's currency: what the cardholder pays when `accepted`. */
  cardholder_amount: number;
  /** Applied rate (1 unit of the order's currency in the card's currency, margin included), a decimal string. */
  rate: string;
  /** Margin over the reference rate, in percent, a decimal string. */
  markup: string;
  /** Who quoted the rate (SANDBOX in the sandbox). */
  source: string;
  /** When the cardholder chose (ISO 8601 UTC, merchant clock). */
  timestamp: string;
}

export function presentDcc(d: unknown): DccRecord | null {
  if (!d || typeof d !== 'object') return null;
  const x = d as Record<string, unknown>;
  return {
    offered: x.offered !== false,
    accepted: x.accepted === true,
    cardholder_currency: String(x.cardholder_currency ?? ''),
    cardholder_amount: Number(x.cardholder_amount ?? 0),
    rate: String(x.rate ?? ''),
    markup: String(x.markup ?? ''),
    source: String(x.source ?? ''),
    timestamp: String(x.timestamp ?? ''),
  };
}

/** The payment attempts of an order (what `order.dcc` follows): authorizations and pre-authorizations. */
const PAYMENT_OPERATIVES = new Set(['AUTHORIZATION', 'DEFERRED']);

/** The Transaction record of api.md, keys in its order. */
export function presentTransaction(t: TransactionView, zones: Zones) {
  return {
    uuid: t.id,
    created: formatContractDate(t.created_at, zones.server),
    created_from_client_timezone: formatContractDate(t.created_at, zones.merchant),
    operative: t.operative,
    amount: Number(t.amount),
    authorization: t.auth_code,
    processor_id: t.processor_id,
    status: t.status,
    error: t.error,
    source: t.source_json ? nullIfEmpty(JSON.parse(t.source_json)) : null,
    antifraud: presentAntifraud(t.antifraud),
    device: presentDevice(t.device),
    error_details: t.error_details,
    dcc: presentDcc(t.dcc),
    // card-present transactions only (api.md: "present when paid on a physical device")
    ...(isObject(t.pos) ? { pos: presentPos(t.pos) } : {}),
    ...(isObject(t.payment_data) ? { payment_data: { terminal_action: (t.payment_data.terminal_action as string | undefined) ?? null } } : {}),
    // routed attempts only (ours: docs/routing.md)
    ...(isObject(t.routing) ? { routing: presentRouting(t.routing) } : {}),
  };
}

/** How routing chose a transaction's service (the record plan-payment.ts writes). */
export function presentRouting(r: Record<string, unknown>) {
  return {
    service_uuid: String(r.service_uuid ?? ''),
    service: String(r.service ?? ''),
    rule: typeof r.rule === 'string' ? r.rule : null,
    reason: String(r.reason ?? ''),
    attempt: Number(r.attempt ?? 1),
  };
}

/** A transaction as C3 lists it: the Transaction record with its order's key fields. */
export interface ListedTxView extends TransactionView {
  order_id: string;
  merchant_id: string;
  updated_at: Date;
  metadata: unknown;
  o_currency_number: string;
  o_service_id: string;
  o_service_type: string;
  o_reference: string | null;
  o_customer_ext_id: string | null;
  o_status: string;
}

/**
 * A C3 list entry (schema `ListedTransaction`). The list route gets its entries built as JSON by the
 * database (list.repo.ts `listTransactionsJson`); this is the same record as an object, which a test
 * holds the database's form to.
 */
export function presentListedTransaction(t: ListedTxView, zones: Zones) {
  return {
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
  };
}

/** A transaction's `pos`, its fields in a fixed order (stored as jsonb, which keeps no key order). */
function presentPos(p: Record<string, unknown>) {
  const str = (v: unknown) => (v === undefined || v === null ? null : String(v));
  return {
    device_id: String(p.device_id ?? ''),
    tid: String(p.tid ?? ''),
    mid: String(p.mid ?? ''),
    stan: str(p.stan),
    rrn: str(p.rrn),
    card_reading_method: str(p.card_reading_method),
    entry_mode: str(p.entry_mode),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
}

/** The Order record of api.md, keys in its order. */
export function presentOrder(o: OrderView, txs: TransactionView[], zones: Zones, publicUrl: string) {
  return {
    uuid: o.id,
    created: formatContractDate(o.created_at, zones.server),
    created_from_client_timezone: formatContractDate(o.created_at, zones.merchant),
    amount: Number(o.amount),
    currency: o.currency_number,
    paid: o.paid,
    status: o.status,
    safe: o.safe,
    refunded: Number(o.refunded),
    additional: o.additional,
    // the service the order named (routing may have sent its payment to another: see its transactions)
    service: o.entry_service_type ?? o.service_type,
    service_uuid: o.entry_service_id ?? o.service_id,
    customer: o.customer_ext_id,
    cof_txnid: o.cof_txnid,
    transactions: txs.map((t) => presentTransaction(t, zones)),
    token: o.token,
    ip: o.ip,
    urls: orderUrls(publicUrl, o.env, o.token),
    reference: o.reference,
    dynamic_descriptor: o.dynamic_descriptor,
    threeds_data: presentThreeds(o.threeds_data),
    // the conversion of the latest payment attempt (a later attempt without one clears it)
    dcc: presentDcc(lastPayment(txs)?.dcc),
    ...presentOrderDisputes(o),
  };
}

function lastPayment(txs: TransactionView[]): TransactionView | undefined {
  for (let i = txs.length - 1; i >= 0; i--) if (PAYMENT_OPERATIVES.has(txs[i].operative)) return txs[i];
  return undefined;
}

// ---- validation_hash (decisions §7) --------------------------------------------------------------------

/** The serialized `{"order":…,"client":…[,"extra_data":…]}` that validation_hash covers. */
export function hashedPart(fields: { order: unknown; client: unknown; extra_data?: unknown }): string {
  const obj: Record<string, unknown> = { order: fields.order, client: fields.client };
  if (fields.extra_data !== undefined) obj.extra_data = fields.extra_data;
  return toWireJson(obj);
}

export { validationHash, signatureHeader } from '../events/index.js';

/** Status groups the service needs. */
export const FINAL_TX: readonly TxStatus[] = ['SUCCESS', 'REFUSED', 'ERROR', 'CANCELLED'];
