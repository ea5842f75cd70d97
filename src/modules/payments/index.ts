/**
 * The payments module's public interface. Other modules use `Payments` (create an order, pay it with a
 * card or stored source, confirm, cancel, refund, read) and the types and pure helpers below; nothing
 * else of this module.
 */
export { PaymentsService, EXPIRE_QUEUE, RECONCILE_QUEUE } from './payments.service.js';
export type { Payments, OrderResult, PresentedOrder, PayInput, CardSpec, NewOrder, CreatedOrder, CreateOptions, ApmRecord, ApmStarted, StartApmInput, WalletPayment, DccChoice, CardPresentRead, DeviceWaitInput, AbandonInput, OrderFilters, OrderSearchRow, Overview, OverviewQuery, OverviewFigures, OverviewDay, OverviewPeriod, DisputeMoney } from './payments.service.js';
export { OVERVIEW_PERIODS, OVERVIEW_MAX_DAYS } from './payments.service.js';
export { paymentsRoutes, answer as answerOrder } from './payments.routes.js';
export { callbacksRoutes } from './callbacks.routes.js';
export type { CallbackPages } from './callbacks.routes.js';
export { ORDER_STATUSES, TX_STATUSES, PAYABLE, orderTransition, canOrder } from './order-states.js';
export type { OrderStatus, TxStatus, OrderEvent } from './order-states.js';
export type { RiskCheck, RiskEvaluator, RiskVerdict } from './core.js';
export { presentOrder, validationHash, hashedPart, orderUrls, OPERATIVES } from './payments.domain.js';
export type { Operative, DccRecord } from './payments.domain.js';
export { Order as OrderSchema, OrderResponse as OrderResponseSchema, RedirectResponse as RedirectResponseSchema } from './payments.schemas.js';
export { orderFields, ApmVoucherSchema, DccSchema } from './payments.schemas.js';
export { moneyMovementsSql } from './settlement-read.js';
export type { MoneyMovementFilter, MoneyMovementRow } from './settlement-read.js';
export { paymentHistory } from './history.repo.js';
export type { PaymentHistoryFilter, PaymentHistoryRow } from './history.repo.js';
