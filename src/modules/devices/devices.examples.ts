/** Examples of the devices API (shown in the API reference and checked against the schemas). */
import { EXAMPLE_SIGNATURE } from '../../platform/http/schemas.js';

export const signature = EXAMPLE_SIGNATURE;
export const ORDER_UUID = '7c0f2b8e-3a41-4d6b-9f0e-2a5c7d9e1b34';

export const DEVICE = {
  id: '3f6a1c2e-9b7d-4e5f-8a1b-2c3d4e5f6a7b',
  identifier: 'PAX-A920-0001',
  service_uuid: '5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10',
  terminal_id: '40213377',
  mid: '999008881',
  active: true,
  configured: true,
  communication: { type: 'SOCKET', status: 'ONLINE' },
  merchant: { uuid: '0f8e2d1c-4b3a-4c5d-8e7f-9a0b1c2d3e4f' },
  properties: { name: 'Counter 1', model: 'A920', system_name: 'Android', system_version: '10', release: '1.4.2', hardware: 'rev B' },
  status: { battery_level: 87, connection_type: 'WIFI', connection_quality: 'GOOD', charging: false, build_version: '1.4.2', pending_transactions: 0 },
  created_at: '2026-03-14T09:21:07.000Z',
  updated_at: '2026-03-14T09:25:41.312Z',
};

export const OPERATION = {
  uuid: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  device_id: DEVICE.id,
  kind: 'PAYMENT',
  order_uuid: ORDER_UUID,
  amount: 1500,
  currency: 'EUR',
  status: 'QUEUED',
  terminal_action: null,
  error: null,
  card: null,
  deadline_at: '2026-03-14T09:27:41.312Z',
  created_at: '2026-03-14T09:25:41.312Z',
  updated_at: '2026-03-14T09:25:41.312Z',
};

export const REGISTER_REQUEST = {
  signature,
  service: DEVICE.service_uuid,
  identifier: 'PAX-A920-0001',
  communication_type: 'SOCKET',
  properties: { name: 'Counter 1', model: 'A920' },
};

export const SEND_REQUEST = {
  signature,
  device: DEVICE.id,
  amount: 1500,
  description: 'Table 4',
  customer_ext_id: 'cust-1',
  url_post: 'https://shop.example.com/paygate/notify',
  reference: 'T4-0042',
};

export const POS = { device_id: DEVICE.id, tid: DEVICE.terminal_id, mid: DEVICE.mid, stan: '000123', rrn: '604218377215', card_reading_method: 'ICC', entry_mode: '05' };

export const CARD_PRESENT_REQUEST = {
  card: { pan: '4548810000000003', expiration_date: '2912' },
  amount: 1500,
  currency: 'EUR',
  mid: DEVICE.mid,
  stan: '000123',
  card_reading_method: 'ICC',
  card_sequence_number: '001',
  pin: { block: '0412AC89ABCDEF67', format: 0 },
  device: { serial_number: 'PAX-A920-0001', model: 'A920' },
  sca: null,
};
