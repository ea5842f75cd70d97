/**
 * The subscription lifecycle and the subscription payment lifecycle as pure transition tables
 * (design.md principle 5). The service asks these for the next status; nothing else decides one.
 *
 *   CREATED --charge paid--> PAID --charge failed, attempts left--> UNPAID --charge paid--> PAID
 *      any live state --last charge paid--> FINISHED
 *      any live state --failed at the attempts limit, or cancelled--> CANCELLED
 */

export const SUBSCRIPTION_STATUSES = ['CREATED', 'PAID', 'UNPAID', 'CANCELLED', 'FINISHED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const SUBSCRIPTION_EVENTS = [
  /** A charge was paid and more are due. */
  'CHARGE_PAID',
  /** The charge of the last payment (`total_payment_number`) was paid. */
  'LAST_CHARGE_PAID',
  /** A charge failed and another attempt is scheduled. */
  'CHARGE_FAILED',
  /** A charge failed and `payment_attempts_limit` consecutive attempts have now failed. */
  'ATTEMPTS_EXHAUSTED',
  /** The merchant cancelled the subscription. */
  'CANCEL',
] as const;
export type SubscriptionEvent = (typeof SUBSCRIPTION_EVENTS)[number];

const LIVE: readonly SubscriptionStatus[] = ['CREATED', 'PAID', 'UNPAID'];

function fromLive(to: SubscriptionStatus): Partial<Record<SubscriptionStatus, SubscriptionStatus>> {
  return Object.fromEntries(LIVE.map((s) => [s, to]));
}

export const SUBSCRIPTION_TABLE: Readonly<Record<SubscriptionEvent, Partial<Record<SubscriptionStatus, SubscriptionStatus>>>> = {
  CHARGE_PAID: fromLive('PAID'),
  LAST_CHARGE_PAID: fromLive('FINISHED'),
  CHARGE_FAILED: fromLive('UNPAID'),
  ATTEMPTS_EXHAUSTED: fromLive('CANCELLED'),
  CANCEL: fromLive('CANCELLED'),
};

export class IllegalSubscriptionTransition extends Error {
  constructor(
    readonly from: string,
    readonly event: string,
  ) {
    super(`A subscription that is ${from} cannot take ${event}`);
    this.name = 'IllegalSubscriptionTransition';
  }
}

/** The status after `event`; throws on a transition the table does not have. */
export function subscriptionTransition(from: SubscriptionStatus, event: SubscriptionEvent): SubscriptionStatus {
  const to = SUBSCRIPTION_TABLE[event][from];
  if (!to) throw new IllegalSubscriptionTransition(from, event);
  return to;
}

export function canSubscription(from: SubscriptionStatus, event: SubscriptionEvent): boolean {
  return SUBSCRIPTION_TABLE[event][from] !== undefined;
}

/** A subscription charges (and can be cancelled) only in a live state; `active` is this. */
export function isActive(status: SubscriptionStatus): boolean {
  return LIVE.includes(status);
}

// ---- subscription payments --------------------------------------------------------------------------

export const PAYMENT_STATUSES = ['CREATED', 'PAID', 'FAILED', 'FAILED_NOTIFICATION'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_EVENTS = [
  /** The order of the charge was paid. */
  'APPROVED',
  /** The processor declined the charge (or it failed there). */
  'DECLINED',
  /** The charge could not be made at all: unknown or unusable service or card. */
  'NOT_CHARGEABLE',
] as const;
export type PaymentEvent = (typeof PAYMENT_EVENTS)[number];

export const PAYMENT_TABLE: Readonly<Record<PaymentEvent, Partial<Record<PaymentStatus, PaymentStatus>>>> = {
  APPROVED: { CREATED: 'PAID' },
  DECLINED: { CREATED: 'FAILED' },
  NOT_CHARGEABLE: { CREATED: 'FAILED_NOTIFICATION' },
};

export function paymentTransition(from: PaymentStatus, event: PaymentEvent): PaymentStatus {
  const to = PAYMENT_TABLE[event][from];
  if (!to) throw new IllegalSubscriptionTransition(`payment ${from}`, event);
  return to;
}

/**
 * What happens to the subscription after a payment reached `outcome`: the event to apply, given the
 * payment number, its attempt, the limits of the subscription.
 */
export function afterCharge(
  outcome: 'PAID' | 'FAILED' | 'FAILED_NOTIFICATION',
  s: { paymentNumber: number; attempt: number; totalPaymentNumber: number | null; attemptsLimit: number },
): SubscriptionEvent {
  if (outcome === 'PAID') return s.totalPaymentNumber !== null && s.paymentNumber >= s.totalPaymentNumber ? 'LAST_CHARGE_PAID' : 'CHARGE_PAID';
  return s.attempt >= s.attemptsLimit ? 'ATTEMPTS_EXHAUSTED' : 'CHARGE_FAILED';
}
