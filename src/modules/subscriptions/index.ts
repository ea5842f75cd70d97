/**
 * Recurring billing (companies, products, plans, subscriptions and their charges): the only file other
 * modules import.
 */
export { SubscriptionsService } from './subscriptions.service.js';
export { CHARGE_QUEUE, SUBSCRIPTION_PAYMENT_EVENT, ChargeInProgress } from './subscriptions.billing.js';
export type { SubscriptionsDeps, ChargeRef } from './subscriptions.billing.js';
export { subscriptionsRoutes } from './subscriptions.routes.js';
export { SUBSCRIPTION_STATUSES, PAYMENT_STATUSES, subscriptionTransition, paymentTransition, afterCharge } from './subscription-states.js';
export type { SubscriptionStatus, PaymentStatus, SubscriptionEvent } from './subscription-states.js';
export { addInterval, chargeDate, retryDate, retryOffsetDays, chargeOrderId } from './subscriptions.domain.js';
