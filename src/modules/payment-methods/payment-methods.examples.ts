/** Examples of the payment-methods API (shown in the API reference; a test validates them). */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const ORDER_UUID = '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34';
const SERVICE_UUID = '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40';

export const PUSH_REQUEST = { signature, order_uuid: ORDER_UUID, apm: 'MBWAY', phone: '912000000' };
export const PUSH_EXTRA_DATA = {
  apm: { apm: 'MULTIBANCO', kind: 'voucher', pending: true, voucher: { format: 'ENTITY_REFERENCE', entity: '21312', reference: '123456789', amount: 1250, currency: 'EUR', expires_at: '2026-11-26T10:00:00.000Z' }, expires_at: '2026-11-26T10:00:00.000Z' },
};
export const APM_EXAMPLE = { apm: 'MULTIBANCO', kind: 'voucher', label: 'Multibanco', countries: ['PT'], voucher_format: 'ENTITY_REFERENCE', payouts: false };
export const SET_APMS_REQUEST = { signature, apms: ['IDEAL', 'MBWAY', 'MULTIBANCO'] };
export const SERVICE_APMS_EXAMPLE = { service_uuid: SERVICE_UUID, apms: [APM_EXAMPLE] };
export const SANDBOX_PAY_REQUEST = { signature, result: 'PAID' };
