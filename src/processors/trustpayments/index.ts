export { TrustpaymentsConnector, TRUSTPAYMENTS_PRODUCTION_URL, TRUSTPAYMENTS_TEST_URL } from './trustpayments.connector.js';
export type { TrustpaymentsConnectorOptions } from './trustpayments.connector.js';
export { trustpaymentsTerminalOf, trustpaymentsTerminalProblems, TRUSTPAYMENTS_CREDENTIAL_KEYS } from './credentials.js';
export type { TrustpaymentsTerminal } from './credentials.js';
