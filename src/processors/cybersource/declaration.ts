/** The CyberSource connector as the gateway knows it (kit/declaration.ts): CYBERSOURCE services. */
import { declareConnector } from '../kit/declaration.js';
import { CYBERSOURCE_PRODUCTION_URL, CYBERSOURCE_TEST_URL, CybersourceConnector } from './cybersource.connector.js';
import { CYBERSOURCE_CREDENTIAL_KEYS, cybersourceTerminalOf, cybersourceTerminalProblems, type CybersourceTerminal } from './credentials.js';

export const CYBERSOURCE = declareConnector<CybersourceTerminal>({
  name: 'cybersource',
  label: 'CyberSource',
  serviceTypes: ['CYBERSOURCE'],
  url: { env: 'PAYGATE_CYBERSOURCE_URL', production: CYBERSOURCE_PRODUCTION_URL, test: CYBERSOURCE_TEST_URL, help: 'base URL of CyberSource\'s REST API for CYBERSOURCE services; the test environment is' },
  credentials: { ...CYBERSOURCE_CREDENTIAL_KEYS, problems: (_code, c) => cybersourceTerminalProblems(c), open: (_code, c) => cybersourceTerminalOf(c) },
  // payments are decided in their answers, refunds in the settlement batch; the transaction search finds
  // lost answers and decided refunds
  notifications: null,
  create: (deps) => new CybersourceConnector(deps),
  // the test environment's cards of `paygate connector certify`
  certification: {
    cards: { approved: '4111111111111111', declined: { pan: '4111111111111112', error: 'INVALID_CARD' }, challenge: '4000000000002503' },
    source: "CyberSource's test cards and Payer Authentication test cases (going-live-cybersource.md)",
  },
  simulator: {
    description: 'run the CyberSource simulator (REST API with HTTP Signature, Payer Authentication ACS, transaction search) for demos: point PAYGATE_CYBERSOURCE_URL at the URL it prints',
    port: 9447,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
