/**
 * Examples of the sources records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

export const SOURCE_UUID = 'a4e1c9d7-2f3b-4c6a-8d5e-0b7f9a1c3e52';
const SERVICE_UUID = '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40';

export const SOURCE_EXAMPLE = {
  object: 'CARD',
  par: null,
  uuid: SOURCE_UUID,
  type: '',
  token: '2b7e151628aed2a6abf7158809cf4f3c762e7160',
  brand: 'VISA',
  country: '',
  holder: 'Lucía Martín',
  bin: 454881,
  last4: '0004',
  is_saved: true,
  expire_month: '12',
  expire_year: '29',
  additional: null,
  bank: '',
  prepaid: '',
  validation_date: '2026-03-14T09:21:08.412Z',
  creation_date: '2026-03-14T09:21:07.953Z',
  brand_description: 'Visa',
  origin: 'API',
  cof: { is_available: true },
};

export const CUSTOMER_EXAMPLE = { external_id: 'customer-1', token: '0e5f3a1b9c7d2e4f6a8b0c1d3e5f7a9b1c2d4e6f' };

export const VERIFICATION_EXAMPLE = {
  uuid: 'f3a9c1e5-7b2d-4f8a-9c0e-1d3b5f7a9c21',
  source_uuid: SOURCE_UUID,
  status: 'DONE',
  result: 'MATCH',
  created: '2026-03-14T10:25:40+0100',
};

const card = {
  card_holder: 'Lucía Martín',
  card_pan: '4548812049400004',
  card_expiry_month: '12',
  card_expiry_year: '29',
  customer_ext_id: 'customer-1',
};

export const STORE_CARD_REQUEST = { signature, ...card, additional: 'personal card', validate: true, service: SERVICE_UUID, card_cvv: '123' };
export const STORE_CARDS_REQUEST = {
  signature,
  cards: [card, { card_holder: 'Lucía Martín', card_pan: '5590337536718399', card_expiry_month: '06', card_expiry_year: '30', customer_ext_id: 'customer-1' }],
};
export const REVALIDATE_REQUEST = { signature, source_uuid: SOURCE_UUID, customer_ext_id: 'customer-1', service: SERVICE_UUID, card_cvv: '123' };
export const STORE_BANK_REQUEST = { signature, customer_ext_id: 'customer-1', account_holder: 'Lucía Martín', iban: 'ES9121000418450200051332', additional: 'main account' };
export const ADDITIONAL_REQUEST = { signature, source_uuid: SOURCE_UUID, additional: 'company card' };
export const OWNER_REQUEST = { signature, old_external_id: 'customer-1', new_external_id: 'customer-2' };
export const DELETE_REQUEST = { signature, source_uuid: SOURCE_UUID, customer_external_id: 'customer-1' };
export const VERIFY_HOLDER_REQUEST = { signature, source_uuid: SOURCE_UUID, service: SERVICE_UUID, holder: { first_name: 'Lucía', last_name: 'Martín' } };
