export { PaypalConnector, PAYPAL_PRODUCTION_URL, PAYPAL_SANDBOX_URL } from './paypal.connector.js';
export type { PaypalConnectorOptions } from './paypal.connector.js';
export { paypalTerminalOf, paypalTerminalProblems, PAYPAL_CREDENTIAL_KEYS } from './credentials.js';
export type { PaypalTerminal } from './credentials.js';
