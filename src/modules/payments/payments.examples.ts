/**
 * Examples of the payments records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';
import { SOURCE_EXAMPLE as CARD_SOURCE_EXAMPLE } from '../sources/index.js';

export const ORDER_UUID = '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34';
export const SERVICE_UUID = '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40';
export const SOURCE_UUID = CARD_SOURCE_EXAMPLE.uuid;
const TX_UUID = 'e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20';
const TOKEN = '6f1c2b9e8d7a4c3b2a1f0e9d8c7b6a5f4e3d2c1b';

export const TRANSACTION_EXAMPLE = {
  uuid: TX_UUID,
  created: '2026-03-14T10:21:08+0100',
  created_from_client_timezone: '2026-03-14T10:21:08+0100',
  operative: 'AUTHORIZATION',
  amount: 1050,
  authorization: '482913',
  processor_id: 'sim_01HQ7Z3K5V8N2M4P6R9T',
  status: 'SUCCESS',
  error: 'NONE',
  source: CARD_SOURCE_EXAMPLE,
  antifraud: null,
  device: null,
  error_details: null,
  dcc: null,
};

/** A conversion the cardholder accepted: 10.50 EUR paid as 11.79 USD. */
export const DCC_EXAMPLE = {
  offered: true,
  accepted: true,
  cardholder_currency: '840',
  cardholder_amount: 1179,
  rate: '1.122975',
  markup: '3.50',
  source: 'SANDBOX',
  timestamp: '2026-03-14T09:21:08.120Z',
};

export const POS_EXAMPLE = {
  device_id: '3f6a1c2e-9b7d-4e5f-8a1b-2c3d4e5f6a7b',
  tid: '40213377',
  mid: '999008881',
  stan: '000123',
  rrn: '604218377215',
  card_reading_method: 'NFC',
  entry_mode: '07',
};

const urls = (token: string) => ({
  payment_card: `http://127.0.0.1:8080/v1/sandbox/payment/process/${token}`,
  bizum: `http://127.0.0.1:8080/v1/sandbox/payment/bizum/${token}`,
  '3ds_tokenized': `http://127.0.0.1:8080/v1/sandbox/payment/tokenized/${token}`,
});

export const ORDER_EXAMPLE = {
  uuid: ORDER_UUID,
  created: '2026-03-14T10:21:07+0100',
  created_from_client_timezone: '2026-03-14T10:21:07+0100',
  amount: 1050,
  currency: '978',
  paid: true,
  status: 'SUCCESS',
  safe: false,
  refunded: 0,
  additional: 'cart 8812',
  service: 'PAYGATE',
  service_uuid: SERVICE_UUID,
  customer: 'customer-1',
  cof_txnid: null,
  transactions: [TRANSACTION_EXAMPLE],
  token: TOKEN,
  ip: null,
  urls: urls(TOKEN),
  reference: 'order-42',
  dynamic_descriptor: null,
  threeds_data: null,
  dcc: null,
};

export const NEW_ORDER_EXAMPLE = { ...ORDER_EXAMPLE, paid: false, status: 'CREATED', transactions: [] };

export const CLIENT_EXAMPLE = { uuid: 'c0a8012e-5d6f-4a7b-8c9d-0e1f2a3b4c5d' };
export const VALIDATION_HASH_EXAMPLE = 'd2a84f4b8b650937ec8f73cd8be2c74add5a911ba64df27458ed8229da804a26';

export const LIST_TRANSACTION_EXAMPLE = {
  ...TRANSACTION_EXAMPLE,
  order_uuid: ORDER_UUID,
  client_uuid: CLIENT_EXAMPLE.uuid,
  currency: '978',
  service: 'PAYGATE',
  service_uuid: SERVICE_UUID,
  reference: 'order-42',
  customer: 'customer-1',
  order_status: 'SUCCESS',
  updated: '2026-03-14T09:21:08.412Z',
  metadata: { erp_id: 'INV-2026-0042' },
};

// ---- requests ------------------------------------------------------------------------------------------

export const CREATE_ORDER_REQUEST = {
  signature,
  amount: 1050,
  operative: 'AUTHORIZATION',
  secure: false,
  service: SERVICE_UUID,
  description: 'Order 42',
  customer_ext_id: 'customer-1',
  additional: 'cart 8812',
  reference: 'order-42',
  url_post: 'https://shop.example/paygate/notify',
  url_ok: 'https://shop.example/checkout/ok',
  url_ko: 'https://shop.example/checkout/ko',
  expires_in: 3600,
};

export const DIRECT_REQUEST = { signature, order_uuid: ORDER_UUID, card_uuid: SOURCE_UUID, customer_ip: '203.0.113.10' };

export const SINGLE_STEP_REQUEST = {
  signature,
  amount: 1050,
  operative: 'AUTHORIZATION',
  secure: false,
  service: SERVICE_UUID,
  description: 'Order 42',
  customer_ext_id: 'customer-1',
  card_holder: 'Lucía Martín',
  card_pan: '4548812049400004',
  card_expiry_month: '12',
  card_expiry_year: '29',
  card_cvv: '123',
  customer_ip: '203.0.113.10',
  url_post: 'https://shop.example/paygate/notify',
};

export const MOTO_REQUEST = { signature, order_uuid: ORDER_UUID, method: 'PHONE', source_uuid: SOURCE_UUID };
export const CONFIRMATION_REQUEST = { signature, order_uuid: ORDER_UUID, amount: 1050 };
export const CANCELLATION_REQUEST = { signature, order_uuid: ORDER_UUID };
export const REFUND_REQUEST = { signature, order_uuid: ORDER_UUID, amount: 500 };
export const PAYOUT_REQUEST = { signature, order_uuid: ORDER_UUID, source_uuid: SOURCE_UUID };
export const EXPIRE_REQUEST = { signature };
export const METADATA_REQUEST = { signature, metadata: { erp_id: 'INV-2026-0042', channel: 'web' } };

/** A Multibanco voucher (B13). */
export const VOUCHER_EXAMPLE = { format: 'ENTITY_REFERENCE', entity: '21312', reference: '123456789', amount: 1250, currency: 'EUR', expires_at: '2026-11-26T10:00:00.000Z' };
