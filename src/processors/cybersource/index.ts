export { CybersourceConnector, CYBERSOURCE_PRODUCTION_URL, CYBERSOURCE_TEST_URL } from './cybersource.connector.js';
export type { CybersourceConnectorOptions } from './cybersource.connector.js';
export { cybersourceTerminalOf, cybersourceTerminalProblems, CYBERSOURCE_CREDENTIAL_KEYS } from './credentials.js';
export type { CybersourceTerminal } from './credentials.js';
