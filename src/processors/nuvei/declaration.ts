/** The Nuvei connector as the gateway knows it (kit/declaration.ts): NUVEI services, Nuvei REST API 1.0. */
import { declareConnector } from '../kit/declaration.js';
import { NUVEI_PRODUCTION_URL, NUVEI_TEST_URL, NuveiConnector } from './nuvei.connector.js';
import { NUVEI_CREDENTIAL_KEYS, nuveiTerminalOf, nuveiTerminalProblems, type NuveiTerminal } from './credentials.js';

export const NUVEI = declareConnector<NuveiTerminal>({
  name: 'nuvei',
  label: 'Nuvei',
  serviceTypes: ['NUVEI'],
  url: { env: 'PAYGATE_NUVEI_URL', production: NUVEI_PRODUCTION_URL, test: NUVEI_TEST_URL, help: 'base URL of the Nuvei REST API 1.0 for NUVEI services; the integration (test) environment is' },
  credentials: { ...NUVEI_CREDENTIAL_KEYS, problems: (_code, c) => nuveiTerminalProblems(c), open: (_code, c) => nuveiTerminalOf(c) },
  // DMNs: form fields posted to the notificationUrl each payment names, signed with advanceResponseChecksum
  notifications: { via: 'form' },
  create: (deps) => new NuveiConnector(deps),
  // the integration environment's test cards of `paygate connector certify` (going-live-nuvei.md)
  certification: { cards: { approved: '4000027891380961', declined: { pan: '5333463046218753', error: 'DENIED' }, challenge: '4000020951595032' }, holders: { approved: 'FL-BRW1', declined: 'Jane Smith', challenge: 'CL-BRW1' }, source: "Nuvei's integration environment test cards (going-live-nuvei.md)" },
  simulator: {
    description: 'run the Nuvei simulator (REST API 1.0: session tokens, payments, settle, void, refund, transaction details, 3-D Secure challenge page, DMNs) for demos: point PAYGATE_NUVEI_URL at the URL it prints',
    port: 9452,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
