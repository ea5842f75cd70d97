/**
 * Payment methods besides cards: the APMs of the API by kind (redirect, push, voucher), which a service
 * offers, B13 PUSH payments, and the sandbox APM provider's endpoint. The only file other modules import.
 *
 *   const paymentMethods = new PaymentMethodsService(p, { payments, services });
 *   paymentMethods.offered(serviceId)      // the APMs of a service (the pages offer them)
 */
export { PaymentMethodsService } from './payment-methods.service.js';
export type { PushInput } from './payment-methods.service.js';
export { paymentMethodsRoutes } from './payment-methods.routes.js';
export { offeredApms, chooseApm } from './payment-methods.domain.js';
export { APM_CATALOGUE, APM_KINDS, APM_VALUES, SANDBOX_PUSH_PHONES, apmInfo, parsePushPhone } from '../../processors/index.js';
export type { ApmInfo, ApmKind, VoucherFormat } from '../../processors/index.js';
