export { CheckoutConnector, CHECKOUT_PRODUCTION_URL, CHECKOUT_SANDBOX_URL } from './checkout.connector.js';
export type { CheckoutConnectorOptions } from './checkout.connector.js';
export { checkoutTerminalOf, checkoutTerminalProblems, CHECKOUT_CREDENTIAL_KEYS } from './credentials.js';
export type { CheckoutTerminal } from './credentials.js';
