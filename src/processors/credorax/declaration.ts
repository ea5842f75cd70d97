/** The Credorax connector as the gateway knows it (kit/declaration.ts): CREDORAX services. */
import { declareConnector } from '../kit/declaration.js';
import { CREDORAX_PRODUCTION_URL, CREDORAX_TEST_URL, CredoraxConnector } from './credorax.connector.js';
import { CREDORAX_CREDENTIAL_KEYS, credoraxTerminalOf, credoraxTerminalProblems, type CredoraxTerminal } from './credentials.js';

export const CREDORAX = declareConnector<CredoraxTerminal>({
  name: 'credorax',
  label: 'Credorax',
  serviceTypes: ['CREDORAX'],
  url: { env: 'PAYGATE_CREDORAX_URL', production: CREDORAX_PRODUCTION_URL, test: CREDORAX_TEST_URL, help: 'the gateway URL Credorax (Finaro) assigned to the merchant for CREDORAX services (the default is its pattern, to be replaced); the test environment is' },
  credentials: { ...CREDORAX_CREDENTIAL_KEYS, problems: (_code, c) => credoraxTerminalProblems(c), open: (_code, c) => credoraxTerminalOf(c) },
  // payments, captures, voids and refunds are decided in their answers
  notifications: null,
  create: (deps) => new CredoraxConnector(deps),
  // the test environment's cards of `paygate connector certify`
  certification: {
    cards: { approved: '4018810000100036', declined: { pan: '4548812049400004', error: 'DENIED' }, challenge: '4018810000150015' },
    source: "Finaro's (Credorax) sandbox cards as Paylands' integration guide lists them (going-live-credorax.md)",
  },
  simulator: {
    description: 'run the Credorax simulator (Source payment gateway: signed form posts, 3-D Secure challenge) for demos: point PAYGATE_CREDORAX_URL at the URL it prints',
    port: 9449,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
