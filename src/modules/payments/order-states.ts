/**
 * The order and transaction lifecycles (api.md "States and transitions", decisions §4) as one pure
 * transition table each (design.md principle 5). Nothing else decides a status: the service asks
 * `orderTransition` / `txTransition` for the next status and the repository writes exactly that,
 * guarded by the status it was read in.
 */

export const ORDER_STATUSES = [
  'CREATED',
  'PENDING_3DS_RESPONSE',
  'AUTHENTICATION_REQUIRED',
  'PENDING_PROCESSOR_RESPONSE',
  'PENDING_CONFIRMATION',
  'SUCCESS',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'CANCELLED',
  'REFUSED',
  'ERROR',
  'FRAUD',
  'BLACKLISTED',
  'EXPIRED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_EVENTS = [
  /** A payment attempt starts: a PENDING transaction is written, the processor is about to be called. */
  'PAYMENT_STARTED',
  /** A payment or pre-authorization is sent to a physical device (api.md). */
  'DEVICE_PAYMENT_SENT',
  /** Strong customer authentication is needed before paying (secure order, soft decline, antifraud). */
  'THREEDS_REQUIRED',
  /** The cardholder finished 3DS successfully: the processor is about to be called. */
  'THREEDS_COMPLETED',
  /** A card-present operation needs SCA on the terminal (api.md). */
  'SCA_REQUIRED',
  /** The terminal sends the payment again with the SCA asked for (PIN, chip): the processor is about to be called. */
  'SCA_RETRIED',
  /** The customer cancelled on the device, or the merchant cancelled the operation, before a card was charged. */
  'DEVICE_PAYMENT_CANCELLED',
  /** The device did not read a usable card before the operation's deadline (offline, walked away, unusable card). */
  'DEVICE_PAYMENT_ABANDONED',
  /** The processor approved a charge (AUTHORIZATION, PARTIAL_AUTHORIZATION, PAYOUT, TRANSFER). */
  'PAYMENT_APPROVED',
  /** The processor approved a hold (DEFERRED). */
  'DEFERRED_APPROVED',
  /** The processor or issuer declined the payment, or 3DS failed. */
  'PAYMENT_DECLINED',
  /** Declined as fraud. */
  'PAYMENT_FRAUD',
  /** Declined by a security list. */
  'PAYMENT_BLACKLISTED',
  /** The processor failed, or the attempt was found never to have happened. */
  'PAYMENT_FAILED',
  /** The held amount was captured. */
  'CONFIRMED',
  /** The hold was released. */
  'CANCELLED',
  /** A refund left part of the captured amount. */
  'REFUNDED_PARTIALLY',
  /** Refunds reached the captured amount. */
  'REFUNDED_FULLY',
  /** C1, or `expires_in` elapsed, while the order could still be paid. */
  'EXPIRED',
] as const;
export type OrderEvent = (typeof ORDER_EVENTS)[number];

export interface OrderTransition {
  to: OrderStatus;
  /** `paid` after the transition; undefined leaves it. */
  paid?: boolean;
  /** A notification goes to url_post (a final state of a payment operation). */
  notify: boolean;
}

/**
 * Statuses in which an order holds its `reference` (paid, being paid or held): a new order with the same
 * reference is 409 while one of the merchant's orders is in one of these. The unique index
 * `orders_merchant_reference_held` (migration 0960) lists the same statuses.
 */
export const REFERENCE_HOLDING: readonly OrderStatus[] = [
  'PENDING_3DS_RESPONSE',
  'AUTHENTICATION_REQUIRED',
  'PENDING_PROCESSOR_RESPONSE',
  'PENDING_CONFIRMATION',
  'SUCCESS',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
];

/** Statuses in which a customer can still pay the order (hosted page, direct payment). */
export const PAYABLE: readonly OrderStatus[] = ['CREATED', 'REFUSED', 'ERROR'];

const T = (to: OrderStatus, notify: boolean, paid?: boolean): OrderTransition => ({ to, notify, paid });

/** The order table: event → from status → transition. Anything not listed is illegal. */
export const ORDER_TABLE: Readonly<Record<OrderEvent, Partial<Record<OrderStatus, OrderTransition>>>> = {
  PAYMENT_STARTED: {
    CREATED: T('PENDING_PROCESSOR_RESPONSE', false),
    REFUSED: T('PENDING_PROCESSOR_RESPONSE', false),
    ERROR: T('PENDING_PROCESSOR_RESPONSE', false),
  },
  DEVICE_PAYMENT_SENT: {
    CREATED: T('PENDING_PROCESSOR_RESPONSE', false),
    REFUSED: T('PENDING_PROCESSOR_RESPONSE', false),
    ERROR: T('PENDING_PROCESSOR_RESPONSE', false),
  },
  THREEDS_REQUIRED: {
    CREATED: T('PENDING_3DS_RESPONSE', false),
    REFUSED: T('PENDING_3DS_RESPONSE', false),
    ERROR: T('PENDING_3DS_RESPONSE', false),
    PENDING_PROCESSOR_RESPONSE: T('PENDING_3DS_RESPONSE', false),
  },
  THREEDS_COMPLETED: {
    PENDING_3DS_RESPONSE: T('PENDING_PROCESSOR_RESPONSE', false),
  },
  SCA_REQUIRED: {
    CREATED: T('AUTHENTICATION_REQUIRED', false),
    REFUSED: T('AUTHENTICATION_REQUIRED', false),
    ERROR: T('AUTHENTICATION_REQUIRED', false),
    PENDING_PROCESSOR_RESPONSE: T('AUTHENTICATION_REQUIRED', false),
  },
  SCA_RETRIED: {
    AUTHENTICATION_REQUIRED: T('PENDING_PROCESSOR_RESPONSE', false),
  },
  DEVICE_PAYMENT_CANCELLED: {
    PENDING_PROCESSOR_RESPONSE: T('CANCELLED', true, false),
    AUTHENTICATION_REQUIRED: T('CANCELLED', true, false),
  },
  DEVICE_PAYMENT_ABANDONED: {
    PENDING_PROCESSOR_RESPONSE: T('EXPIRED', true, false),
    AUTHENTICATION_REQUIRED: T('EXPIRED', true, false),
  },
  PAYMENT_APPROVED: {
    PENDING_PROCESSOR_RESPONSE: T('SUCCESS', true, true),
  },
  DEFERRED_APPROVED: {
    PENDING_PROCESSOR_RESPONSE: T('PENDING_CONFIRMATION', true, false),
  },
  PAYMENT_DECLINED: {
    PENDING_PROCESSOR_RESPONSE: T('REFUSED', true, false),
    PENDING_3DS_RESPONSE: T('REFUSED', true, false),
    AUTHENTICATION_REQUIRED: T('REFUSED', true, false),
  },
  PAYMENT_FRAUD: {
    PENDING_PROCESSOR_RESPONSE: T('FRAUD', true, false),
    PENDING_3DS_RESPONSE: T('FRAUD', true, false),
  },
  PAYMENT_BLACKLISTED: {
    PENDING_PROCESSOR_RESPONSE: T('BLACKLISTED', true, false),
    PENDING_3DS_RESPONSE: T('BLACKLISTED', true, false),
  },
  PAYMENT_FAILED: {
    PENDING_PROCESSOR_RESPONSE: T('ERROR', true, false),
    PENDING_3DS_RESPONSE: T('ERROR', true, false),
  },
  CONFIRMED: {
    PENDING_CONFIRMATION: T('SUCCESS', true, true),
  },
  CANCELLED: {
    PENDING_CONFIRMATION: T('CANCELLED', true, false),
  },
  REFUNDED_PARTIALLY: {
    SUCCESS: T('PARTIALLY_REFUNDED', true, true),
    PARTIALLY_REFUNDED: T('PARTIALLY_REFUNDED', true, true),
  },
  REFUNDED_FULLY: {
    SUCCESS: T('REFUNDED', true),
    PARTIALLY_REFUNDED: T('REFUNDED', true),
  },
  EXPIRED: {
    CREATED: T('EXPIRED', true, false),
    REFUSED: T('EXPIRED', true, false),
    ERROR: T('EXPIRED', true, false),
    PENDING_3DS_RESPONSE: T('EXPIRED', true, false),
    AUTHENTICATION_REQUIRED: T('EXPIRED', true, false),
  },
};

export class IllegalTransition extends Error {
  constructor(
    readonly machine: 'order' | 'transaction',
    readonly from: string,
    readonly event: string,
  ) {
    super(`${machine} in status ${from} does not accept ${event}`);
    this.name = 'IllegalTransition';
  }
}

/** The transition of an order on `event`; throws IllegalTransition when the table has none. */
export function orderTransition(from: OrderStatus, event: OrderEvent): OrderTransition {
  const t = ORDER_TABLE[event][from];
  if (!t) throw new IllegalTransition('order', from, event);
  return t;
}

export function canOrder(from: OrderStatus, event: OrderEvent): boolean {
  return ORDER_TABLE[event][from] !== undefined;
}

/** The statuses an event applies to (used by bulk sweeps, e.g. expiry). */
export function fromStatuses(event: OrderEvent): OrderStatus[] {
  return Object.keys(ORDER_TABLE[event]) as OrderStatus[];
}

// ---- transactions ------------------------------------------------------------------------------------

export const TX_STATUSES = ['PENDING', 'SUCCESS', 'REFUSED', 'ERROR', 'CANCELLED'] as const;
export type TxStatus = (typeof TX_STATUSES)[number];

export const TX_EVENTS = ['APPROVED', 'DECLINED', 'FAILED', 'VOIDED'] as const;
export type TxEvent = (typeof TX_EVENTS)[number];

/** A transaction is written PENDING and settles exactly once. */
export const TX_TABLE: Readonly<Record<TxEvent, Partial<Record<TxStatus, TxStatus>>>> = {
  APPROVED: { PENDING: 'SUCCESS' },
  DECLINED: { PENDING: 'REFUSED' },
  FAILED: { PENDING: 'ERROR' },
  /** Abandoned before the processor decided (3DS never completed, order expired). */
  VOIDED: { PENDING: 'CANCELLED' },
};

export function txTransition(from: TxStatus, event: TxEvent): TxStatus {
  const to = TX_TABLE[event][from];
  if (!to) throw new IllegalTransition('transaction', from, event);
  return to;
}

/** The order event that a declined payment causes, by transaction error. */
export function declineEvent(error: string): OrderEvent {
  if (error === 'FRAUD_SUSPECTED') return 'PAYMENT_FRAUD';
  if (error === 'BLACKLISTED') return 'PAYMENT_BLACKLISTED';
  return 'PAYMENT_DECLINED';
}
