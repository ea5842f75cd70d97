/**
 * Examples of the customers records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const ACCOUNT_UUID = '2d4f6a8c-0e1b-4c3d-9e5f-7a9b1c3d5e7f';
const ADDRESS_UUID = '9a7b5c3d-1e2f-4a6b-8c0d-2e4f6a8b0c1d';

export const CUSTOMER_EXAMPLE = { external_id: 'customer-1', token: '0e5f3a1b9c7d2e4f6a8b0c1d3e5f7a9b1c2d4e6f' };
export const ACCOUNT_EXAMPLE = { uuid: ACCOUNT_UUID, account_number: 'ES9121000418450200051332', account_type: 'SAVING_ACCOUNT' };
export const ADDRESS_EXAMPLE = {
  uuid: ADDRESS_UUID,
  address1: 'Calle Mayor 12',
  address2: '3º B',
  address3: null,
  city: 'Madrid',
  country: 'ESP',
  default: true,
  state_code: 'M',
  type: 'BILLING',
  zip_code: '28013',
};
export const PHONE_EXAMPLE = { number: '612345678', prefix: '+34' };
export const PROFILE_EXAMPLE = {
  first_name: 'Lucía',
  last_name: 'Martín',
  cardholder_name: 'Lucía Martín',
  document_identification_issuer_type: 'STATE_GOVERNMENT',
  document_identification_type: 'NATIONAL_IDENTITY_DOCUMENT',
  document_identification_number: '12345678Z',
  email: 'lucia@example.com',
  phone: PHONE_EXAMPLE,
  work_phone: null,
  home_phone: null,
  mobile_phone: PHONE_EXAMPLE,
  birthdate: '1990-05-17',
  source_of_funds: 'salary',
  occupation: 'engineer',
  social_security_number: '****6789',
  created_at: '2026-03-14T09:21:07.953Z',
  updated_at: '2026-03-14T09:21:07.953Z',
};

export const CREATE_CUSTOMER_REQUEST = { signature, customer_ext_id: 'customer-1' };
export const CREATE_ACCOUNT_REQUEST = { signature, external_id: 'customer-1', account_type: 'SAVING_ACCOUNT', account_number: 'ES9121000418450200051332' };
export const UPDATE_ACCOUNT_REQUEST = { ...CREATE_ACCOUNT_REQUEST, uuid: ACCOUNT_UUID };
export const DELETE_ACCOUNT_REQUEST = { signature, uuid: ACCOUNT_UUID };
export const CREATE_ADDRESS_REQUEST = {
  signature,
  external_id: 'customer-1',
  address1: 'Calle Mayor 12',
  address2: '3º B',
  city: 'Madrid',
  country: 'ESP',
  default: true,
  state_code: 'M',
  type: 'BILLING',
  zip_code: '28013',
};
export const UPDATE_ADDRESS_REQUEST = { signature, uuid: ADDRESS_UUID, address2: '4º A', zip_code: '28012' };
export const DELETE_ADDRESS_REQUEST = { signature, uuid: ADDRESS_UUID };
export const PROFILE_REQUEST = {
  signature,
  external_id: 'customer-1',
  first_name: 'Lucía',
  last_name: 'Martín',
  cardholder_name: 'Lucía Martín',
  document_identification_issuer_type: 'STATE_GOVERNMENT',
  document_identification_type: 'NATIONAL_IDENTITY_DOCUMENT',
  document_identification_number: '12345678Z',
  email: 'lucia@example.com',
  mobile_phone: PHONE_EXAMPLE,
  birthdate: '1990-05-17',
};
