/**
 * Examples of the dispute records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const DISPUTE_UUID = '6a2e9c41-3f7b-4d2a-8e5c-9b1d7f3a2c60';
const ORDER_UUID = '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34';
const TX_UUID = 'e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20';

export const DISPUTE_CSV_EXAMPLE = [
  'DISPUTE_ID,TRANSACTION,REASON_CODE,CATEGORY,AMOUNT,CURRENCY,STAGE,STATUS,EVIDENCE_DUE',
  `RS-2026-000187,${TX_UUID},10.4,FRAUD,1050,EUR,CHARGEBACK,NEEDS_RESPONSE,2026-03-28`,
  '',
].join('\n');

export const CREATE_DISPUTE_EXAMPLE = {
  signature,
  order_uuid: ORDER_UUID,
  reason_code: '13.1',
  category: 'PRODUCT_NOT_RECEIVED',
  amount: 1050,
  stage: 'CHARGEBACK',
  evidence_due_at: '2026-03-28T23:59:59+01:00',
  acquirer: 'REDSYS',
  provider_id: 'RS-2026-000187',
};

export const SIMULATE_DISPUTE_EXAMPLE = { signature, order_uuid: ORDER_UUID, reason_code: '10.4', category: 'FRAUD', outcome: 'LOST' };

export const EVIDENCE_EXAMPLE = {
  signature,
  fields: {
    product_description: 'Two tickets for the 14 March concert, sent by e-mail',
    shipping_tracking_number: '1Z999AA10123456784',
  },
  documents: [{ filename: 'delivery-receipt.pdf', data: 'JVBERi0xLjQKJcfsj6IK', field: 'proof_of_delivery' }],
};

export const ACTION_EXAMPLE = { signature };

export const IMPORT_EXAMPLE = { signature, data: Buffer.from(DISPUTE_CSV_EXAMPLE).toString('base64'), filename: 'redsys-disputes-2026-03-14.csv', acquirer: 'REDSYS' };

export const SETTINGS_EXAMPLE = { signature, notification_url: 'https://shop.example.com/paygate/disputes', reminder_days: 3 };

export const DISPUTE_EXAMPLE = {
  uuid: DISPUTE_UUID,
  order_uuid: ORDER_UUID,
  transaction_uuid: TX_UUID,
  source: 'MANUAL',
  acquirer: 'REDSYS',
  provider_id: 'RS-2026-000187',
  reason_code: '13.1',
  category: 'PRODUCT_NOT_RECEIVED',
  amount: 1050,
  currency: 'EUR',
  stage: 'CHARGEBACK',
  status: 'NEEDS_RESPONSE',
  evidence_due_at: '2026-03-28T22:59:59.000Z',
  submitted_at: null,
  resolved_at: null,
  created_at: '2026-03-14T09:21:07.000Z',
  updated_at: '2026-03-14T09:21:07.000Z',
  money: { disputed: 1050, lost: 0, won: 0 },
  evidence_fields: ['product_description', 'customer_communication', 'refund_policy', 'terms_and_conditions', 'additional_information', 'shipping_address', 'shipping_carrier', 'shipping_tracking_number', 'shipping_date', 'proof_of_delivery'],
  actions: ['SUBMIT', 'ACCEPT'],
};

export const EVIDENCE_ITEM_EXAMPLE = { uuid: '0b4c6d8e-1f2a-4b3c-9d4e-5f6a7b8c9d0e', kind: 'DOCUMENT', name: 'delivery-receipt.pdf', text: null, content_type: 'application/pdf', size: 48211, field: 'proof_of_delivery', created_at: '2026-03-15T10:02:44.000Z' };

export const HISTORY_EXAMPLE = { at: '2026-03-14T09:21:07.000Z', actor: 'api:5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10', event: 'CREATE', from_status: null, to_status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', detail: 'CHARGEBACK 13.1 (PRODUCT_NOT_RECEIVED) of 1050 EUR' };

export const ORDER_TOTALS_EXAMPLE = { order_uuid: ORDER_UUID, currency: 'EUR', disputes: 1, disputed: 1050, lost: 0, won: 0 };
