/** The PayPal connector as the gateway knows it (kit/declaration.ts): PAYPAL services and the PAYPAL APM. */
import { declareConnector } from '../kit/declaration.js';
import { PAYPAL_CREDENTIAL_KEYS, paypalTerminalOf, paypalTerminalProblems, type PaypalTerminal } from './credentials.js';
import { PAYPAL_PRODUCTION_URL, PAYPAL_SANDBOX_URL, PaypalConnector } from './paypal.connector.js';

export const PAYPAL = declareConnector<PaypalTerminal>({
  name: 'paypal',
  label: 'PayPal',
  serviceTypes: ['PAYPAL'],
  url: { env: 'PAYGATE_PAYPAL_URL', production: PAYPAL_PRODUCTION_URL, test: PAYPAL_SANDBOX_URL, help: 'base URL of PayPal\'s REST API for PAYPAL services; the sandbox is' },
  credentials: { ...PAYPAL_CREDENTIAL_KEYS, problems: (_code, c) => paypalTerminalProblems(c), open: (_code, c) => paypalTerminalOf(c) },
  // JSON webhooks with PayPal's transmission headers, verified through PayPal's verification call
  notifications: { via: 'webhook', headers: /^paypal-[a-z-]{1,40}$/ },
  create: (deps) => new PaypalConnector(deps),
  // the test environment's cards of `paygate connector certify`
  certification: { cards: { approved: '4111111111111111', declined: { pan: '4000000000000002', error: 'DENIED' }, challenge: '4000002760003184' }, source: "PayPal's sandbox test cards (going-live-paypal.md)" },
  simulator: {
    description: 'run the PayPal simulator (OAuth, Orders v2, Payments v2, the buyer\'s approval page, webhooks and their verification) for demos: point PAYGATE_PAYPAL_URL at the URL it prints',
    port: 9445,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
