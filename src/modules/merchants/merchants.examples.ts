/**
 * Examples of the merchants records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const CHILD_UUID = '4b6d8f0a-2c4e-4f6a-8b0c-2d4e6f8a0b1c';

export const MERCHANT_EXAMPLE = {
  uuid: CHILD_UUID,
  created: '2026-03-14T10:21:07+0100',
  name: 'Ultramarinos Lucía',
  email: 'payments@ultramarinos.example',
  timezone: 'Europe/Madrid',
  autorecover_transactions: false,
  resend_failed_notifications: true,
  is_pci: false,
  is_deleted: false,
  category: 'E_COMMERCE',
  mcc: '5411',
  address: 'Calle Mayor 12, 28013 Madrid',
  phone_number: '+34612345678',
  api_key: '3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e',
  signature: '7c1e9a3f5b8d2c4e6a0f1b3d5e7a9c8b',
  services: null,
};

export const DASHBOARD_USER_EXAMPLE = {
  uuid: '8e0a2c4e-6a8c-4e0a-9c2e-4a6c8e0a2c4e',
  client_production: null,
  client_sandbox: CHILD_UUID,
  created: '2026-03-14T10:21:07+0100',
  username: 'lucia.martin',
  email: 'lucia@ultramarinos.example',
  language: 'ES',
  group: 'MANAGER',
  status: 'ACTIVE',
};

export const CREATE_MERCHANT_REQUEST = {
  signature,
  name: 'Ultramarinos Lucía',
  email: 'payments@ultramarinos.example',
  timezone: 'Europe/Madrid',
  resend_failed_notifications: true,
  category: 'E_COMMERCE',
  mcc: '5411',
};
export const PROMOTE_REQUEST = { signature };
export const CREATE_USER_REQUEST = {
  signature,
  email: 'lucia@ultramarinos.example',
  username: 'lucia.martin',
  language: 'ES',
  environment: 'SANDBOX',
  send_email_with_credentials: false,
  group: 'MANAGER',
};
export const TEST_CLOCK_REQUEST = { signature, advance_seconds: 86400 };
export const RESET_TEST_CLOCK_REQUEST = { signature };
