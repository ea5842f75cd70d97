/**
 * The SIBS connector as the gateway would know it (kit/declaration.ts): SIBS services, SIBS Gateway SPG
 * API v2. Not in the list of production connectors (connectors.ts) yet: the conformance scenarios it does
 * not pass come first (docs/going-live-sibs.md): SIBS's 3-D Secure actions (a Partial purchase's
 * actionResponse) are not performed, so no payment reaches authentication; merchant-initiated payments
 * (their request is not in SIBS's public reference); the issuers' decline reasons (SIBS publishes none);
 * a purchase never received, which SIBS's status does not tell from one in progress.
 */
import { declareConnector } from '../kit/declaration.js';
import { SIBS_PRODUCTION_URL, SIBS_TEST_URL, SibsConnector } from './sibs.connector.js';
import { SIBS_CREDENTIAL_KEYS, sibsTerminalOf, sibsTerminalProblems, type SibsTerminal } from './credentials.js';

export const SIBS = declareConnector<SibsTerminal>({
  name: 'sibs',
  label: 'SIBS',
  serviceTypes: ['SIBS'],
  url: { env: 'PAYGATE_SIBS_URL', production: SIBS_PRODUCTION_URL, test: SIBS_TEST_URL, help: 'base URL of SIBS Gateway\'s SPG API v2 for SIBS services; the test environment is' },
  credentials: { ...SIBS_CREDENTIAL_KEYS, problems: (_code, c) => sibsTerminalProblems(c), open: (_code, c) => sibsTerminalOf(c) },
  // encrypted notifications: AES-256-GCM, the IV and tag in these headers
  notifications: { via: 'webhook', headers: /^x-(initialization-vector|authentication-tag)$/ },
  create: (deps) => new SibsConnector(deps),
  simulator: {
    description: 'run the SIBS simulator (SPG API v2: checkout, card and MB WAY purchase, Multibanco references, encrypted notifications) for demos: point PAYGATE_SIBS_URL at the URL it prints with /api/v2',
    port: 9454,
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
