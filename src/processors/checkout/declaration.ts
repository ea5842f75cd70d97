/** The Checkout.com connector as the gateway knows it (kit/declaration.ts): CHECKOUT services. */
import { declareConnector } from '../kit/declaration.js';
import { CHECKOUT_PRODUCTION_URL, CHECKOUT_SANDBOX_URL, CheckoutConnector } from './checkout.connector.js';
import { CHECKOUT_CREDENTIAL_KEYS, checkoutTerminalOf, checkoutTerminalProblems, type CheckoutTerminal } from './credentials.js';

export const CHECKOUT = declareConnector<CheckoutTerminal>({
  name: 'checkout',
  label: 'Checkout.com',
  serviceTypes: ['CHECKOUT'],
  url: { env: 'PAYGATE_CHECKOUT_URL', production: CHECKOUT_PRODUCTION_URL, test: CHECKOUT_SANDBOX_URL, help: 'base URL of Checkout.com\'s API for CHECKOUT services; the sandbox is' },
  credentials: { ...CHECKOUT_CREDENTIAL_KEYS, problems: (_code, c) => checkoutTerminalProblems(c), open: (_code, c) => checkoutTerminalOf(c) },
  // JSON webhooks signed with Cko-Signature
  notifications: { via: 'webhook', headers: /^cko-[a-z-]{1,40}$/ },
  create: (deps) => new CheckoutConnector(deps),
  // the test environment's cards of `paygate connector certify`
  certification: { cards: { approved: '4242424242424242', declined: { pan: '4000000000000002', error: 'DENIED' }, challenge: '4543474002249996' }, source: "Checkout.com's sandbox test cards (going-live-checkout.md)" },
  simulator: {
    description: 'run the Checkout.com simulator (Payments API, 3-D Secure page, signed webhooks) for demos: point PAYGATE_CHECKOUT_URL at the URL it prints',
    port: 9444,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
