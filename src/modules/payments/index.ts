export { PaymentsService, EXPIRE_QUEUE, RECONCILE_QUEUE } from './payments.service.js';
export type { OrderResult, PresentedOrder, PayInput, CardSpec, NewOrder } from './payments.service.js';
export { paymentsRoutes, answer as answerOrder } from './payments.routes.js';
export { ORDER_STATUSES, TX_STATUSES, PAYABLE, orderTransition, canOrder } from './order-states.js';
export type { OrderStatus, TxStatus, OrderEvent } from './order-states.js';
export { presentOrder, validationHash, hashedPart, orderUrls } from './payments.domain.js';
