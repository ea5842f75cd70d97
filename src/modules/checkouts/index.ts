/**
 * Checkout configurations (decisions §10): the only file other modules import.
 *
 *   const merged = await m.checkouts.forOrder({ merchantId, env }, order.extra_data);  // or null
 *   methodsServiceCanTake({ type, bizumEnabled, redsysFamily }, operative)              // what a page may offer
 */
export { CheckoutsService } from './checkouts.service.js';
export type { CheckoutsDeps } from './checkouts.service.js';
export { checkoutsRoutes } from './checkouts.routes.js';
export { CHECKOUT_METHODS, NO_WALLETS, methodName, methodsServiceCanTake, presentCheckout } from './checkouts.domain.js';
export type { CheckoutMethod, ServiceCapabilities, WalletAvailability } from './checkouts.domain.js';
