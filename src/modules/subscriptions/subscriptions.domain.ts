/**
 * Pure rules of recurring billing: interval arithmetic on the merchant's wall clock (anchored months),
 * the retry schedule of failed charges, the order id of a charge, and how records are presented.
 */
import { createHash } from 'node:crypto';
import { formatContractDate, zonedTimeToUtc } from '../../platform/time/format.js';

export const INTERVAL_TYPES = ['DAILY', 'WEEKLY', 'MONTHLY', 'ANNUAL'] as const;
export type IntervalType = (typeof INTERVAL_TYPES)[number];

/** `YEARLY` is the spelling some clients send for `ANNUAL`. */
export function intervalType(v: string): IntervalType | null {
  const u = v.toUpperCase();
  if (u === 'YEARLY') return 'ANNUAL';
  return (INTERVAL_TYPES as readonly string[]).includes(u) ? (u as IntervalType) : null;
}

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
}

function wall(date: Date, tz: string): Wall {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(formatContractDate(date, tz))!;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  return { y, mo, d, h, mi, s, ms: date.getTime() % 1000 < 0 ? 0 : date.getTime() % 1000 };
}

const daysInMonth = (y: number, mo: number) => new Date(Date.UTC(y, mo, 0)).getUTCDate();

/**
 * `anchor` moved `count` × `type` forward on the wall clock of `tz`. Months and years keep the anchor's
 * day, clamped to the month's length (31 Jan + 1 month = 28/29 Feb; + 2 months = 31 Mar), and the
 * anchor's time of day.
 */
export function addInterval(anchor: Date, count: number, type: IntervalType, tz: string): Date {
  if (count === 0) return anchor;
  const w = wall(anchor, tz);
  let { y, mo, d } = w;
  if (type === 'DAILY' || type === 'WEEKLY') {
    const t = new Date(Date.UTC(y, mo - 1, d + count * (type === 'WEEKLY' ? 7 : 1)));
    y = t.getUTCFullYear();
    mo = t.getUTCMonth() + 1;
    d = t.getUTCDate();
  } else {
    const months = type === 'MONTHLY' ? count : count * 12;
    const total = y * 12 + (mo - 1) + months;
    y = Math.floor(total / 12);
    mo = (total % 12) + 1;
    d = Math.min(w.d, daysInMonth(y, mo));
  }
  return new Date(zonedTimeToUtc(y, mo, d, w.h, w.mi, tz).getTime() + w.s * 1000 + w.ms);
}

/** When payment number `n` (1-based) is due: the first charge date plus (n − 1) intervals. */
export function chargeDate(first: Date, n: number, interval: number, type: IntervalType, tz: string): Date {
  return addInterval(first, (n - 1) * interval, type, tz);
}

/** Days after a payment's due date at which its retries run: 1, 3 and 5 days, then every 7 days. */
export function retryOffsetDays(retry: number): number {
  if (retry <= 0) return 0;
  if (retry <= 3) return [1, 3, 5][retry - 1];
  return 5 + 7 * (retry - 3);
}

/** When attempt `attempt` (2 and up) of a payment due at `due` runs (merchant clock). */
export function retryDate(due: Date, attempt: number, tz: string): Date {
  return addInterval(due, retryOffsetDays(attempt - 1), 'DAILY', tz);
}

/**
 * The uuid of the order of one charge: derived from (subscription, payment number, attempt), so a
 * retried or raced job finds the order the first run created instead of making a second one.
 */
export function chargeOrderId(subscriptionId: string, paymentNumber: number, attempt: number): string {
  const h = createHash('sha256').update(`paygate-subscription-charge:${subscriptionId.toLowerCase()}:${paymentNumber}:${attempt}`).digest('hex');
  // RFC 4122 layout, version 5 style (name-based), variant 10
  const v = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${v}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `initial_date` of a subscription: `YYYY-MM-DD` (a day in the merchant's timezone) or an ISO 8601
 * date-time. Null when malformed.
 */
export function parseInitialDate(v: string, tz: string): { at: Date; day: string } | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (d) {
    const [y, mo, day] = d.slice(1).map(Number);
    if (mo < 1 || mo > 12 || day < 1 || day > daysInMonth(y, mo)) return null;
    return { at: zonedTimeToUtc(y, mo, day, 0, 0, tz), day: v };
  }
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(v)) return null;
  const t = Date.parse(v.replace(' ', 'T'));
  if (!Number.isFinite(t)) return null;
  const at = new Date(t);
  return { at, day: localDay(at, tz) };
}

/** The calendar day (YYYY-MM-DD) of `date` in `tz`. */
export function localDay(date: Date, tz: string): string {
  return formatContractDate(date, tz).slice(0, 10);
}

// ---- presentation -------------------------------------------------------------------------------------

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export interface CompanyRecord {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface ProductRecord {
  id: string;
  env: 'sandbox' | 'production';
  external_id: string;
  name: string;
  notification_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface PlanRecord {
  id: string;
  external_id: string;
  name: string;
  amount: number | string;
  interval: number;
  interval_type: string;
  interval_offset: number | null;
  interval_offset_type: string | null;
  trial_available: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionRecord {
  id: string;
  status: string;
  active: boolean;
  customer_ext_id: string;
  additional_data: unknown;
  amount: number | string;
  total_payment_number: number | null;
  payment_attempts_limit: number;
  first_charge_date: Date;
  next_charge_date: Date | null;
  total_payment_charged: number;
  created_at: Date;
  updated_at: Date;
}

export interface PaymentRecord {
  id: string;
  subscription_id: string;
  payment_number: number;
  attempt: number;
  amount: number | string;
  currency: string | null;
  status: string;
  payment_date: Date;
  order_id: string | null;
  transaction_id: string | null;
  source_uuid: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export function presentCompany(c: CompanyRecord) {
  return { uuid: c.id, external_id: c.id, name: c.name, created_at: iso(c.created_at)!, updated_at: iso(c.updated_at)! };
}

export function presentProduct(p: ProductRecord) {
  return {
    external_id: p.external_id,
    name: p.name,
    sandbox: p.env === 'sandbox',
    notification_url: p.notification_url,
    created_at: iso(p.created_at)!,
    updated_at: iso(p.updated_at)!,
  };
}

export function presentPlan(p: PlanRecord, product: ProductRecord) {
  return {
    external_id: p.external_id,
    name: p.name,
    amount: Number(p.amount),
    interval: p.interval,
    interval_type: p.interval_type,
    interval_offset: p.interval_offset,
    interval_offset_type: p.interval_offset_type,
    trial_available: p.trial_available,
    product: presentProduct(product),
    created_at: iso(p.created_at)!,
    updated_at: iso(p.updated_at)!,
  };
}

export function paymentDetails(p: PaymentRecord): string | null {
  if (!p.order_id) return p.error ? JSON.stringify({ order_uuid: null, source_uuid: p.source_uuid, transaction_uuid: null, error: p.error }) : null;
  return JSON.stringify({ order_uuid: p.order_id, source_uuid: p.source_uuid, transaction_uuid: p.transaction_id });
}

export function presentPayment(p: PaymentRecord) {
  return {
    id: p.id,
    amount: Number(p.amount),
    currency: p.currency,
    attempt: p.attempt,
    payment_number: p.payment_number,
    status: p.status,
    payment_date: iso(p.payment_date)!,
    payment_details: paymentDetails(p),
    created_at: iso(p.created_at)!,
    updated_at: iso(p.updated_at)!,
  };
}

export function presentSubscription(s: SubscriptionRecord, plan: ReturnType<typeof presentPlan>, payments: PaymentRecord[]) {
  return {
    id: s.id,
    active: s.active,
    status: s.status,
    customer: s.customer_ext_id,
    additional_data: s.additional_data === null || s.additional_data === undefined ? null : JSON.stringify(s.additional_data),
    amount: Number(s.amount),
    total_payment_number: s.total_payment_number,
    payment_attempts_limit: s.payment_attempts_limit,
    total_payment_charged: s.total_payment_charged,
    first_charge_date: iso(s.first_charge_date)!,
    next_charge_date: iso(s.next_charge_date),
    created_at: iso(s.created_at)!,
    updated_at: iso(s.updated_at)!,
    plan,
    payments: payments.map(presentPayment),
  };
}

/**
 * The payment result of a subscribe and the body of a subscription payment notification: the payment
 * with the external ids of its plan, product and customer and the company's uuid.
 */
export function paymentResult(
  p: PaymentRecord,
  ctx: { subscriptionId: string; plan: string; product: string; customer: string; company: string },
) {
  return {
    payment_id: p.id,
    subscription: ctx.subscriptionId,
    plan: ctx.plan,
    product: ctx.product,
    customer: ctx.customer,
    company: ctx.company,
    status: p.status,
    payment_date: iso(p.payment_date)!,
    payment_number: p.payment_number,
    attempt: p.attempt,
    amount: Number(p.amount),
    currency: p.currency,
  };
}
