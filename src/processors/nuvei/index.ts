export { NuveiConnector, NUVEI_PRODUCTION_URL, NUVEI_TEST_URL } from './nuvei.connector.js';
export type { NuveiConnectorOptions } from './nuvei.connector.js';
export { nuveiTerminalOf, nuveiTerminalProblems, NUVEI_CREDENTIAL_KEYS } from './credentials.js';
export type { NuveiTerminal } from './credentials.js';
