/**
 * Examples of the services records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const TERMINAL_UUID = '6c8e0a2c-4e6a-4c8e-8a2c-4e6a8c0e2a4c';

export const SERVICE_EXAMPLE = {
  uuid: '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40',
  name: 'Web shop EUR',
  type: 'REDSYSPSD2',
  enabled: true,
  terminal: TERMINAL_UUID,
  created: '2026-03-14T10:21:07+0100',
  dcc_allowed: false,
  dcc_mode: null,
  dynamic_descriptor: null,
  referential_integrity: null,
  mcc: '5411',
  status: 'ACTIVE',
  bizum_enabled: true,
};

export const TERMINAL_EXAMPLE = {
  uuid: TERMINAL_UUID,
  client_uuid: 'c0a8012e-5d6f-4a7b-8c9d-0e1f2a3b4c5d',
  client_name: 'Ultramarinos Lucía',
  type: 'REDSYSPSD2',
  code: '999008881',
  currency_code: 'EUR',
  dcc_allowed: false,
  is_cof_disabled_by_default: false,
  description: 'Web shop EUR terminal',
  created: '2026-03-14T10:21:07+0100',
  acquirer: 'Banco Ejemplo',
  credentials: { key_secure: '****7f3a', key_not_secure: '****1c9e', terminal_secure: '****0001', terminal_not_secure: '****0002' },
};

export const CREATE_SERVICE_REQUEST = { signature, name: 'Web shop EUR', type: 'REDSYSPSD2', terminal_uuid: TERMINAL_UUID, mcc: '5411', bizum_enabled: true };
export const UPDATE_SERVICE_REQUEST = { signature, terminal_uuid: TERMINAL_UUID, enabled: true };
export const CREATE_TERMINAL_REQUEST = {
  signature,
  currency_code: 'EUR',
  type: 'REDSYSPSD2',
  description: 'Web shop EUR terminal',
  code: '999008881',
  acquirer: 'Banco Ejemplo',
  credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'qwertyasdf0123456789', terminal_secure: '1', terminal_not_secure: '2' },
};

export const APPROVAL_RULE_EXAMPLE = { bin_from: '400000', bin_to: '499999', approve_rate: 0.6 };
export const SANDBOX_BEHAVIOUR_EXAMPLE = {
  service_uuid: '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40',
  approval: [APPROVAL_RULE_EXAMPLE],
  soft_decline: 'DENIED',
  outage: 'none',
  latency_ms: 0,
  updated: '2026-03-14T10:21:07+0100',
};
export const PUT_SANDBOX_BEHAVIOUR_REQUEST = { signature, approval: [APPROVAL_RULE_EXAMPLE], soft_decline: 'DENIED', outage: 'none', latency_ms: 0 };
export const DELETE_SANDBOX_BEHAVIOUR_REQUEST = { signature };
