export { CredoraxConnector, CREDORAX_PRODUCTION_URL, CREDORAX_TEST_URL } from './credorax.connector.js';
export type { CredoraxConnectorOptions } from './credorax.connector.js';
export { credoraxTerminalOf, credoraxTerminalProblems, CREDORAX_CREDENTIAL_KEYS } from './credentials.js';
export type { CredoraxTerminal } from './credentials.js';
