import { Bool, ExtId as ExtIdOf, Maybe, Nullable, OptionalText, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { ACCOUNT_TYPES, ADDRESS_LINE_MAX, ADDRESS_TYPES, DOCUMENT_ISSUER_TYPES, DOCUMENT_TYPES } from './customers.domain.js';
import * as EX from './customers.examples.js';

/** customer_ext_id / external_id: a string, or a number kept as a string. */
export const ExtId = ExtIdOf();

export const Customer = Type.Object(
  { external_id: Type.String({ description: 'your identifier of the customer' }), token: Type.String({ description: 'the customer token of the embedded card form' }) },
  { title: 'Customer', description: 'A customer, keyed by your external identifier', examples: [EX.CUSTOMER_EXAMPLE] },
);

export const CustomerAccount = Type.Object(
  {
    uuid: Uuid,
    account_number: Type.String({ description: 'for CARD_NUMBER only the BIN and last 4 are shown' }),
    account_type: Type.String({ description: `one of ${ACCOUNT_TYPES.join(', ')}` }),
  },
  { title: 'CustomerAccount', description: 'A bank or payment account of a customer', examples: [EX.ACCOUNT_EXAMPLE] },
);

const Line = Type.String({ minLength: 1, maxLength: ADDRESS_LINE_MAX });
const OptLine = OptionalText(ADDRESS_LINE_MAX);

export const CustomerAddress = Type.Object(
  {
    uuid: Uuid,
    address1: Type.String(),
    address2: Nullable(Type.String()),
    address3: Nullable(Type.String()),
    city: Type.String(),
    country: Type.String({ description: 'ISO 3166 alpha-3' }),
    default: Type.Boolean(),
    state_code: Type.String(),
    type: Type.String({ description: 'OTHER, BILLING or SHIPPING' }),
    zip_code: Type.String(),
  },
  { title: 'CustomerAddress', description: 'An address of a customer', examples: [EX.ADDRESS_EXAMPLE] },
);

export const Phone = Type.Object(
  {
    number: Type.String({ minLength: 1, maxLength: 32 }),
    prefix: Maybe(Type.String({ maxLength: 8 }), { description: 'country calling code, e.g. +34 or 34; may be null or absent; echoed as sent' }),
  },
  { title: 'PhoneInput', description: 'A phone number: `prefix`, or a `number` starting with +', examples: [EX.PHONE_EXAMPLE] },
);

const PhoneOut = Nullable(Type.Object({ number: Type.String({ description: 'as sent' }), prefix: Nullable(Type.String({ description: 'as sent; null when it was not given' })) }, { title: 'Phone', description: 'A phone number as sent', examples: [EX.PHONE_EXAMPLE] }));

export const CustomerProfile = Type.Object(
  {
    first_name: Type.String(),
    last_name: Type.String(),
    cardholder_name: Nullable(Type.String()),
    document_identification_issuer_type: Nullable(Type.String()),
    document_identification_type: Nullable(Type.String()),
    document_identification_number: Nullable(Type.String()),
    email: Nullable(Type.String()),
    phone: PhoneOut,
    work_phone: PhoneOut,
    home_phone: PhoneOut,
    mobile_phone: PhoneOut,
    birthdate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
    source_of_funds: Nullable(Type.String()),
    occupation: Nullable(Type.String()),
    social_security_number: Nullable(Type.String({ description: 'masked: only the last 4 characters are shown' })),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'CustomerProfile', description: 'Who the customer is', examples: [EX.PROFILE_EXAMPLE] },
);

// ---- requests ----------------------------------------------------------------------------------------

export const CreateCustomerBody = signedBody({ customer_ext_id: ExtId }, { examples: [EX.CREATE_CUSTOMER_REQUEST] });
export const RevokeTokenBody = signedBody({ customer_ext_id: ExtId }, { examples: [EX.CREATE_CUSTOMER_REQUEST] });
export const CustomerQuery = Type.Object({ customer_ext_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });

export const CreateAccountBody = signedBody({
  external_id: ExtId,
  account_type: Type.Enum([...ACCOUNT_TYPES]),
  account_number: Type.String({ minLength: 1, maxLength: 64 }),
}, { examples: [EX.CREATE_ACCOUNT_REQUEST] });
export const UpdateAccountBody = signedBody({
  uuid: Uuid,
  external_id: ExtId,
  account_type: Type.Enum([...ACCOUNT_TYPES]),
  account_number: Type.String({ minLength: 1, maxLength: 64 }),
}, { examples: [EX.UPDATE_ACCOUNT_REQUEST] });
export const UuidBody = signedBody({ uuid: Uuid }, { examples: [EX.DELETE_ACCOUNT_REQUEST] });
export const UuidParams = Type.Object({ uuid: Uuid });

export const CreateAddressBody = signedBody({
  external_id: ExtId,
  address1: Line,
  address2: OptLine,
  address3: OptLine,
  city: Type.String({ minLength: 1, maxLength: 100 }),
  country: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 3166 alpha-3' }),
  default: Bool(),
  state_code: Type.String({ minLength: 1, maxLength: 50 }),
  type: Type.Enum([...ADDRESS_TYPES]),
  zip_code: Type.String({ minLength: 1, maxLength: 20 }),
}, { title: 'CreateAddressRequest', examples: [EX.CREATE_ADDRESS_REQUEST] });
export const UpdateAddressBody = signedBody({
  uuid: Uuid,
  external_id: Type.Optional(ExtId),
  address1: Type.Optional(Line),
  address2: OptLine,
  address3: OptLine,
  city: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  country: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  default: Type.Optional(Bool()),
  state_code: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  type: Type.Optional(Type.Enum([...ADDRESS_TYPES], { description: 'cannot be changed; when sent it must be the current type' })),
  zip_code: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
}, { title: 'UpdateAddressRequest', examples: [EX.UPDATE_ADDRESS_REQUEST] });

const OptText = (max: number) => OptionalText(max);

export const ProfileBody = signedBody({
  external_id: ExtId,
  first_name: Type.String({ minLength: 1, maxLength: 100 }),
  last_name: Type.String({ minLength: 1, maxLength: 100 }),
  cardholder_name: OptText(100),
  document_identification_issuer_type: Maybe(Type.Enum([...DOCUMENT_ISSUER_TYPES])),
  document_identification_type: Maybe(Type.Enum([...DOCUMENT_TYPES])),
  document_identification_number: OptText(64),
  email: Maybe(Type.String({ format: 'email', maxLength: 254 })),
  phone: Maybe(Phone),
  work_phone: Maybe(Phone),
  home_phone: Maybe(Phone),
  mobile_phone: Maybe(Phone),
  birthdate: Maybe(Type.String({ description: 'YYYY-MM-DD' })),
  source_of_funds: OptText(100),
  occupation: OptText(100),
  social_security_number: OptText(32),
}, { title: 'ProfileRequest', examples: [EX.PROFILE_REQUEST] });
export const ProfileParams = Type.Object({ external_id: Type.String({ minLength: 1, maxLength: 255 }) });

// ---- responses ---------------------------------------------------------------------------------------

export const CustomerResponse = envelope({ Customer }, { title: 'CustomerResponse' });
export const AccountResponse = envelope({ customer: Customer, customer_account: CustomerAccount }, { title: 'CustomerAccountResponse' });
export const AccountOnlyResponse = envelope({ customer_account: CustomerAccount });
export const AddressResponse = envelope({ customer: Customer, customer_address: CustomerAddress }, { title: 'CustomerAddressResponse' });
export const AddressOnlyResponse = envelope({ customer_address: CustomerAddress });
export const ProfileResponse = envelope({ customer: Customer, customer_profile: CustomerProfile }, { title: 'CustomerProfileResponse' });
export const ProfileOnlyResponse = envelope({ customer_profile: CustomerProfile });
export const EmptyResponse = envelope({});
