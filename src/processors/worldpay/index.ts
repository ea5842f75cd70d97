export { WorldpayConnector, WORLDPAY_PRODUCTION_URL, WORLDPAY_TRY_URL } from './worldpay.connector.js';
export type { WorldpayConnectorOptions } from './worldpay.connector.js';
export { worldpayTerminalOf, worldpayTerminalProblems, WORLDPAY_CREDENTIAL_KEYS } from './credentials.js';
export type { WorldpayTerminal } from './credentials.js';
