/** The Redsys connector as the gateway knows it (kit/declaration.ts): REDSYS-family services. */
import { declareConnector } from '../kit/declaration.js';
import { REDSYS_CREDENTIAL_KEYS, redsysTerminalOf, redsysTerminalProblems } from './credentials.js';
import type { RedsysTerminal } from './mapping.js';
import { REDSYS_PRODUCTION_URL, REDSYS_TEST_URL, RedsysConnector } from './redsys.connector.js';

export const REDSYS = declareConnector<RedsysTerminal>({
  name: 'redsys',
  label: 'Redsys',
  serviceTypes: ['REDSYSPSD2'],
  url: { env: 'PAYGATE_REDSYS_URL', production: REDSYS_PRODUCTION_URL, test: REDSYS_TEST_URL, help: 'base URL of Redsys for REDSYS-family services; the test environment is' },
  credentials: { ...REDSYS_CREDENTIAL_KEYS, problems: redsysTerminalProblems, open: redsysTerminalOf },
  // signed form notifications (Bizum's result; card payments' results too)
  notifications: { via: 'form' },
  create: (deps) => new RedsysConnector(deps),
  // the test environment's cards of `paygate connector certify`
  certification: { cards: { approved: '4548812049400004', declined: { pan: '5485009949201879', error: 'DENIED' }, challenge: '4918019199883839' }, source: "Redsys's test environment (going-live-redsys.md lists the cards its simulator answers as the test environment does)" },
  simulator: {
    description: 'run the Redsys simulator (its REST, 3-D Secure, Bizum and query services) for demos: point PAYGATE_REDSYS_URL at the URL it prints',
    port: 9443,
    options: [
      { flags: '--merchant-code <fuc>', description: 'the merchant code (FUC) it knows', default: '999008881' },
      { flags: '--key <base64>', description: "the terminals' key (Redsys's public test key by default)", default: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7' },
      { flags: '--terminals <list>', description: 'terminal numbers, comma-separated (secure, non-secure)', default: '001,002' },
    ],
    load: async () => (await import('./simulator/index.js')).simulator,
  },
});
