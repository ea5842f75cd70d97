/**
 * Examples of the routing records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const PROFILE_UUID = '2d7f4c1a-8b3e-4a6d-9c5f-1e2a3b4c5d6e';
const ENTRY = '5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10';
const REDSYS = '7c2e9a41-6b5d-4e3f-8a1b-0d9c8e7f6a52';
const CHECKOUT = '9e4d2b7a-1c3f-4a5e-b6d8-2f1e0a9b8c73';
const ORDER = '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34';

export const RULES_EXAMPLE = [
  {
    name: 'spanish-debit-to-redsys',
    conditions: [
      { type: 'issuer_country', values: ['ES'] },
      { type: 'card_type', values: ['DEBIT'] },
    ],
    action: { type: 'service', service_uuid: REDSYS, fallbacks: [CHECKOUT] },
  },
  {
    name: 'amex-and-large-eur',
    conditions: [
      { type: 'currency', values: ['EUR'] },
      { type: 'amount', min: 50000 },
    ],
    action: { type: 'split', splits: [{ service_uuid: REDSYS, weight: 70 }, { service_uuid: CHECKOUT, weight: 30 }], fallbacks: [ENTRY] },
  },
];

export const CREATE_PROFILE_EXAMPLE = { signature, service_uuid: ENTRY, name: 'EU cards', status: 'ACTIVE', max_attempts: 3, rules: RULES_EXAMPLE };
export const REPLACE_PROFILE_EXAMPLE = { ...CREATE_PROFILE_EXAMPLE, max_attempts: 2 };

export const PROFILE_EXAMPLE = {
  uuid: PROFILE_UUID,
  service_uuid: ENTRY,
  name: 'EU cards',
  status: 'ACTIVE',
  max_attempts: 3,
  version: 1,
  rules: RULES_EXAMPLE,
  created_at: '2026-03-14T09:21:07.000Z',
  updated_at: '2026-03-14T09:21:07.000Z',
};

export const TEST_PAYMENT_EXAMPLE = { signature, bin: '45488120', amount: 2500, currency: 'EUR', channel: 'ECOMMERCE', customer_country: 'ES', metadata: { tier: 'gold' }, order_uuid: ORDER };

export const DECISION_EXAMPLE = {
  profile_uuid: PROFILE_UUID,
  profile_version: 1,
  profile_status: 'ACTIVE',
  order_uuid: ORDER,
  facts: { bin: '45488120', last4: null, brand: 'VISA', issuer_country: 'ES', card_type: 'DEBIT', bin_source: 'SANDBOX', amount: 2500, currency: 'EUR', customer_country: 'ES', channel: 'ECOMMERCE', metadata: { tier: 'gold' } },
  rule: 'spanish-debit-to-redsys',
  attempts: [
    { service_uuid: REDSYS, rule: 'spanish-debit-to-redsys', reason: 'rule "spanish-debit-to-redsys": its service' },
    { service_uuid: CHECKOUT, rule: 'spanish-debit-to-redsys', reason: 'rule "spanish-debit-to-redsys": fallback 1' },
  ],
  skipped: [],
};

export const HEALTH_EXAMPLE = {
  service_uuid: REDSYS,
  service_name: 'Redsys EUR',
  state: 'CLOSED',
  opened_at: null,
  attempts: 120,
  approval_rate: 0.9083,
  decline_rate: 0.075,
  error_rate: 0.0083,
  timeout_rate: 0.0083,
  latency_p50_ms: 412,
  latency_p95_ms: 1180,
  window_attempts: 50,
  window_bad_rate: 0.02,
};

export const FEES_REQUEST_EXAMPLE = {
  signature,
  merchant_country: 'ES',
  fees: [
    { card_type: 'DEBIT', region: 'DOMESTIC', percent_bp: 20, fixed: 5 },
    { card_type: 'ANY', region: 'INTRA_EEA', percent_bp: 90, fixed: 10 },
    { card_type: 'ANY', region: 'ANY', percent_bp: 180, fixed: 20 },
  ],
};

export const FEES_EXAMPLE = {
  service_uuid: REDSYS,
  merchant_country: 'ES',
  fees: FEES_REQUEST_EXAMPLE.fees,
  updated_at: '2026-03-14T09:25:41.000Z',
};

export const REPLAY_REQUEST_EXAMPLE = { signature, days: 30, currency: 'EUR', min_observations: 5 };

const rateSources = (bin: number, brand: number, service: number, overall: number) => ({ bin, brand, service, overall });

export const REPLAY_EXAMPLE = {
  profile_uuid: PROFILE_UUID,
  profile_version: 1,
  draft: false,
  from: '2026-02-12T10:00:00.000Z',
  to: '2026-03-14T10:00:00.000Z',
  days: 30,
  currency: 'EUR',
  min_observations: 5,
  payments: 1000,
  other_currencies: 0,
  capped: false,
  cap: 200000,
  services: [
    {
      service_uuid: ENTRY,
      service_name: 'Shop EUR',
      replayed: { payments: 600, amount: 2550000, expected_approvals: 528, expected_approval_rate: 0.88, expected_fees: 20808, unpriced: 0, rate_sources: rateSources(540, 60, 0, 0) },
      actual: { payments: 1000, amount: 4250000, approvals: 880, approval_rate: 0.88, fees: 33880, unpriced: 0 },
    },
    {
      service_uuid: REDSYS,
      service_name: 'Redsys EUR',
      replayed: { payments: 400, amount: 1700000, expected_approvals: 372, expected_approval_rate: 0.93, expected_fees: 9486, unpriced: 0, rate_sources: rateSources(0, 0, 400, 0) },
      actual: { payments: 0, amount: 0, approvals: 0, approval_rate: null, fees: 0, unpriced: 0 },
    },
  ],
  totals: {
    replayed: { payments: 1000, amount: 4250000, expected_approvals: 900, expected_approval_rate: 0.9, expected_fees: 30294, unpriced: 0, rate_sources: rateSources(540, 60, 400, 0) },
    actual: { payments: 1000, amount: 4250000, approvals: 880, approval_rate: 0.88, fees: 33880, unpriced: 0 },
    difference: { approvals: 20, approval_rate: 0.02, fees: -3586 },
  },
};
