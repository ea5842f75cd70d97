export { ClearhausConnector, CLEARHAUS_PRODUCTION_URL, CLEARHAUS_TEST_URL } from './clearhaus.connector.js';
export type { ClearhausConnectorOptions } from './clearhaus.connector.js';
export { clearhausTerminalOf, clearhausTerminalProblems, CLEARHAUS_CREDENTIAL_KEYS } from './credentials.js';
export type { ClearhausTerminal } from './credentials.js';
