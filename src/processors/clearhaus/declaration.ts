/** The Clearhaus connector as the gateway knows it (kit/declaration.ts): CLEARHAUS services, Clearhaus's Gateway API. */
import { declareConnector } from '../kit/declaration.js';
import { CLEARHAUS_PRODUCTION_URL, CLEARHAUS_TEST_URL, ClearhausConnector } from './clearhaus.connector.js';
import { CLEARHAUS_CREDENTIAL_KEYS, clearhausTerminalOf, clearhausTerminalProblems, type ClearhausTerminal } from './credentials.js';

export const CLEARHAUS = declareConnector<ClearhausTerminal>({
  name: 'clearhaus',
  label: 'Clearhaus',
  serviceTypes: ['CLEARHAUS'],
  url: { env: 'PAYGATE_CLEARHAUS_URL', production: CLEARHAUS_PRODUCTION_URL, test: CLEARHAUS_TEST_URL, help: 'base URL of Clearhaus\'s Gateway API for CLEARHAUS services (live accounts); test accounts use' },
  credentials: { ...CLEARHAUS_CREDENTIAL_KEYS, problems: (_code, c) => clearhausTerminalProblems(c), open: (_code, c) => clearhausTerminalOf(c) },
  // transactions are decided in their answer; Clearhaus sends nothing the gateway reads
  notifications: null,
  create: (deps) => new ClearhausConnector(deps),
  // the test environment's cards of `paygate connector certify` (Clearhaus's "Test card numbers"):
  // 4111111111111111 is a special test PAN (approved); a PAN starting 420000 and ending 0000 takes a
  // status code as its amount, and any other amount (certify's 1000) gives 40110 Invalid card number.
  // No challenge card: Clearhaus runs no 3-D Secure (going-live-clearhaus.md)
  certification: { cards: { approved: '4111111111111111', declined: { pan: '4200000000000000', error: 'INVALID_CARD' } }, source: 'Clearhaus\'s test card numbers (going-live-clearhaus.md)' },
  simulator: {
    description: 'run the Clearhaus simulator (Gateway API: authorizations, captures, voids, refunds, account) for demos: point PAYGATE_CLEARHAUS_URL at the URL it prints',
    port: 9459,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
