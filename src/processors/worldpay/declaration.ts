/** The Worldpay connector as the gateway knows it (kit/declaration.ts): WORLDPAY services, Worldpay Access. */
import { declareConnector } from '../kit/declaration.js';
import { WORLDPAY_PRODUCTION_URL, WORLDPAY_TRY_URL, WorldpayConnector } from './worldpay.connector.js';
import { WORLDPAY_CREDENTIAL_KEYS, worldpayTerminalOf, worldpayTerminalProblems, type WorldpayTerminal } from './credentials.js';

export const WORLDPAY = declareConnector<WorldpayTerminal>({
  name: 'worldpay',
  label: 'Worldpay',
  serviceTypes: ['WORLDPAY'],
  url: { env: 'PAYGATE_WORLDPAY_URL', production: WORLDPAY_PRODUCTION_URL, test: WORLDPAY_TRY_URL, help: 'base URL of Worldpay Access for WORLDPAY services; the Try (test) environment is' },
  credentials: { ...WORLDPAY_CREDENTIAL_KEYS, problems: (_code, c) => worldpayTerminalProblems(c), open: (_code, c) => worldpayTerminalOf(c) },
  // JSON events signed with Event-Signature
  notifications: { via: 'webhook', headers: /^event-signature$/ },
  create: (deps) => new WorldpayConnector(deps),
  // the Try environment's cards of `paygate connector certify` (its declines follow the card holder's
  // name, REFUSED...: the decline step is the simulator's card; going-live-worldpay.md)
  certification: { cards: { approved: '4444333322221111', declined: { pan: '4444333322221111', error: 'DENIED' }, challenge: '4000000000001091' }, holders: { declined: 'REFUSED' }, source: "Worldpay's Try environment test cards (going-live-worldpay.md)" },
  simulator: {
    description: 'run the Worldpay simulator (Access Payments API, Payment Queries, 3-D Secure challenge page, signed events) for demos: point PAYGATE_WORLDPAY_URL at the URL it prints',
    port: 9446,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
