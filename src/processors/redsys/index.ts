export { RedsysConnector, REDSYS_PRODUCTION_URL, REDSYS_TEST_URL } from './redsys.connector.js';
export type { RedsysConnectorOptions } from './redsys.connector.js';
export { redsysTerminalOf, redsysTerminalProblems, terminalNumber, validKey, REDSYS_CREDENTIAL_KEYS } from './credentials.js';
export type { RedsysTerminal } from './mapping.js';
export { SIGNATURE_VERSIONS } from './signature.js';
export type { SignatureVersion } from './signature.js';
