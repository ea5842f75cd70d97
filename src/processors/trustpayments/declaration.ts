/** The Trust Payments connector as the gateway knows it (kit/declaration.ts): TRUSTPAYMENTS services, the Webservices API. */
import { declareConnector } from '../kit/declaration.js';
import { TRUSTPAYMENTS_PRODUCTION_URL, TRUSTPAYMENTS_TEST_URL, TrustpaymentsConnector } from './trustpayments.connector.js';
import { TRUSTPAYMENTS_CREDENTIAL_KEYS, trustpaymentsTerminalOf, trustpaymentsTerminalProblems, type TrustpaymentsTerminal } from './credentials.js';

export const TRUSTPAYMENTS = declareConnector<TrustpaymentsTerminal>({
  name: 'trustpayments',
  label: 'Trust Payments',
  serviceTypes: ['TRUSTPAYMENTS'],
  url: { env: 'PAYGATE_TRUSTPAYMENTS_URL', production: TRUSTPAYMENTS_PRODUCTION_URL, test: TRUSTPAYMENTS_TEST_URL, help: 'base URL of Trust Payments\' Webservices API for TRUSTPAYMENTS services (a test_ site reference routes to the test bank); the test environment is' },
  credentials: { ...TRUSTPAYMENTS_CREDENTIAL_KEYS, problems: (_code, c) => trustpaymentsTerminalProblems(c), open: (_code, c) => trustpaymentsTerminalOf(c) },
  // operations are decided in their answer; URL notifications are not read
  notifications: null,
  create: (deps) => new TrustpaymentsConnector(deps),
  // the test bank's cards of `paygate connector certify` (Trust Payments' Webservices library tests:
  // 4111111111111111 authorized, 4242424242424242 declined 70000); no challenge card: its documentation
  // sends e-commerce 3-D Secure to the JavaScript Library, and how its standalone 3DS API's challenge
  // result reaches the AUTH is not in the references this connector follows (going-live-trustpayments.md)
  certification: { cards: { approved: '4111111111111111', declined: { pan: '4242424242424242', error: 'DENIED' } }, source: "Trust Payments' test bank (going-live-trustpayments.md)" },
  simulator: {
    description: 'run the Trust Payments simulator (Webservices API: AUTH, ACCOUNTCHECK, TRANSACTIONUPDATE, REFUND, TRANSACTIONQUERY) for demos: point PAYGATE_TRUSTPAYMENTS_URL at the URL it prints',
    port: 9458,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
