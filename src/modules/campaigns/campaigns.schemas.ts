import { Bool, Amount, Maybe, Nullable, OptionalText, Type, Uuid, envelope, signedBody, EXAMPLE_SIGNATURE } from '../../platform/http/schemas.js';
import { CAMPAIGN_STATUSES, CAMPAIGN_TYPES, PAYMENT_STATUSES } from './campaigns.domain.js';

const Iso = Type.String({ description: 'ISO 8601 UTC with milliseconds' });
const IsoOrNull = Nullable(Iso);

const common = {
  description: Type.String({ minLength: 1, maxLength: 500, description: 'concept shown to the customer; the description of every order' }),
  expires_at: Type.String({ minLength: 10, maxLength: 40, description: 'YYYY-MM-DD: the links expire at 00:00:00 of that date in the merchant\'s timezone (at least 10 minutes and at most a year away)' }),
  service_uuid: Uuid,
  subject: OptionalText(200, { description: 'e-mail subject; for SMS (`type` PHONE) the sender name: letters and digits, at most 11 characters (longer is 400)' }),
  type: Type.Enum([...CAMPAIGN_TYPES], { description: 'PHONE: SMS; MAIL: e-mail; CUSTOM_DELIVERY: nothing is sent, the merchant delivers each payment\'s `link`' }),
};

const CSV_EXAMPLE = 'AMOUNT,OPERATIVE,DESTINATION,CUSTOMER_EXT_ID,ADDITIONAL,SECURE,URL_POST,URL_OK,URL_KO,CARD_TEMPLATE,MOTO_TEMPLATE,DCC_TEMPLATE\n2550,AUTHORIZATION,lucia@example.com,cust-1,invoice 42,false,https://shop.example.com/notify,https://shop.example.com/ok,https://shop.example.com/ko,,,\n';

export const FileCampaignBody = signedBody({
  ...common,
  file: Type.String({ minLength: 1, description: 'the CSV file in base64 with the prefix `data:text/csv;base64,` (at most 10 MiB and 10,000 rows). Header row (case-insensitive): AMOUNT (required), OPERATIVE (AUTHORIZATION, DEFERRED; default AUTHORIZATION), DESTINATION (required for PHONE and MAIL), CUSTOMER_EXT_ID, ADDITIONAL, SECURE, URL_POST, URL_OK, URL_KO, CARD_TEMPLATE, MOTO_TEMPLATE, DCC_TEMPLATE, LANGUAGE' }),
  filename: OptionalText(255, { description: 'name of the file, kept with the campaign' }),
}, {
  title: 'FileCampaignRequest',
  examples: [{ signature: EXAMPLE_SIGNATURE, description: 'Invoices of March', expires_at: '2026-04-01', service_uuid: '0d4a1f7e-3b7c-4e39-8a8b-6d2b6a5f9c01', subject: 'Shop', type: 'MAIL', file: `data:text/csv;base64,${Buffer.from(CSV_EXAMPLE).toString('base64')}`, filename: 'march.csv' }],
});

export const JsonPayment = Type.Object({
  amount: Amount({ description: 'in minor units' }),
  operative: OptionalText(30, { description: 'AUTHORIZATION (default), DEFERRED' }),
  secure: Maybe(Bool({ description: 'ask for 3-D Secure' })),
  destination: OptionalText(254, { description: 'e-mail address (MAIL) or mobile number (PHONE)' }),
  customer_ext_id: OptionalText(100),
  additional: OptionalText(500),
  url_post: OptionalText(500),
  url_ok: OptionalText(500),
  url_ko: OptionalText(500),
  card_template: OptionalText(64),
  moto_template: OptionalText(64),
  dcc_template: OptionalText(64),
  language: OptionalText(10),
}, { title: 'CampaignPaymentRequest', examples: [{ amount: 2550, operative: 'AUTHORIZATION', secure: false, destination: '+34612345678' }] });

export const JsonCampaignBody = signedBody({
  ...common,
  payments: Type.Array(JsonPayment, { minItems: 1, maxItems: 10000, description: 'at most 10,000 payments' }),
}, {
  title: 'JsonCampaignRequest',
  examples: [{ signature: EXAMPLE_SIGNATURE, description: 'Pending balance', expires_at: '2026-04-01', service_uuid: '0d4a1f7e-3b7c-4e39-8a8b-6d2b6a5f9c01', subject: 'Shop', type: 'PHONE', payments: [{ amount: 2550, operative: 'AUTHORIZATION', secure: false, destination: '+34612345678' }] }],
});

const CAMPAIGN_EXAMPLE = {
  uuid: '7c2e1f0a-5d3b-4b8e-9f61-0a2c4e6d8b10', clientID: '1f4b2c3d-9e8f-4a7b-8c6d-5e4f3a2b1c0d', clientUUID: '1f4b2c3d-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
  createdAt: '2026-03-14T09:21:07.000Z', description: 'Invoices of March', entry: 'FILE', error: null, expiresAt: '2026-03-31T22:00:00.000Z',
  filename: 'march.csv', serviceUUID: '0d4a1f7e-3b7c-4e39-8a8b-6d2b6a5f9c01', status: 'PENDING', subject: 'Shop', type: 'MAIL', paymentCount: 1,
};
export const CampaignDetail = Type.Object({
  uuid: Uuid,
  clientID: Type.String({ description: 'the merchant' }),
  clientUUID: Uuid,
  createdAt: Iso,
  description: Type.String(),
  entry: Type.Enum(['FILE', 'JSON'], { description: 'how the campaign was sent: G1 (file) or G2 (JSON)' }),
  error: Nullable(Type.String()),
  expiresAt: Iso,
  filename: Nullable(Type.String()),
  serviceUUID: Uuid,
  status: Type.Enum([...CAMPAIGN_STATUSES], { description: 'PENDING → PROCESSING → COMPLETED, or FAILED (every payment failed; see `error`)' }),
  subject: Nullable(Type.String()),
  type: Type.Enum([...CAMPAIGN_TYPES]),
  paymentCount: Type.Integer(),
}, { title: 'CampaignDetail', examples: [CAMPAIGN_EXAMPLE] });

const PAYMENT_EXAMPLE = {
  uuid: '2b9d4e6f-1a3c-4e5f-8a7b-9c0d1e2f3a4b', line: 2, amount: 2550, currencyID: null, operative: 'AUTHORIZATION', isSafe: false, destination: 'lucia@example.com',
  externalID: 'cust-1', additional: 'invoice 42', cardTemplate: null, moToTemplate: null, dccTemplate: null, language: null, status: 'PENDING', error: null,
  certificateIdentifier: '2b9d4e6f-1a3c-4e5f-8a7b-9c0d1e2f3a4b', createdAt: '2026-03-14T09:21:07.000Z', extraData: null,
  orderUUID: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', link: 'https://pay.example.com/v1/moto/open/Qm9yZGVyLXRva2VuLWV4YW1wbGU', channel: 'EMAIL',
  sentAt: null, deliveredAt: null, openedAt: null, paidAt: null,
};
export const CampaignPayment = Type.Object({
  uuid: Uuid,
  line: Type.Integer({ description: 'line of the file (the header is line 1), or position in `payments` from 1' }),
  amount: Type.Integer(),
  currencyID: Nullable(Type.String()),
  operative: Type.String(),
  isSafe: Type.Boolean(),
  destination: Nullable(Type.String()),
  externalID: Nullable(Type.String()),
  additional: Nullable(Type.String()),
  cardTemplate: Nullable(Type.String()),
  moToTemplate: Nullable(Type.String()),
  dccTemplate: Nullable(Type.String()),
  language: Nullable(Type.String()),
  status: Type.Enum([...PAYMENT_STATUSES], { description: 'PENDING → SENT → OPENED → PAID, or EXPIRED / FAILED' }),
  error: Nullable(Type.String()),
  certificateIdentifier: Type.String(),
  createdAt: Iso,
  extraData: Type.Null(),
  orderUUID: Uuid,
  link: Type.String({ description: 'the link the customer opens (CUSTOM_DELIVERY: deliver it yourself)' }),
  channel: Nullable(Type.Enum(['EMAIL', 'SMS'])),
  sentAt: IsoOrNull,
  deliveredAt: IsoOrNull,
  openedAt: IsoOrNull,
  paidAt: IsoOrNull,
}, { title: 'CampaignPayment', examples: [PAYMENT_EXAMPLE] });

export const CampaignResponse = envelope({
  detail: CampaignDetail,
  payments: Type.Array(CampaignPayment),
}, { title: 'CampaignResponse' });

export const CampaignProgress = Type.Object({
  total: Type.Integer(),
  processed: Type.Integer({ description: 'payments whose order and message the gateway is done with' }),
  PENDING: Type.Integer(), SENT: Type.Integer(), OPENED: Type.Integer(), PAID: Type.Integer(), EXPIRED: Type.Integer(), FAILED: Type.Integer(),
}, { title: 'CampaignProgress', examples: [{ total: 200, processed: 200, PENDING: 0, SENT: 180, OPENED: 12, PAID: 8, EXPIRED: 0, FAILED: 0 }] });

export const CampaignStatusResponse = envelope({
  detail: CampaignDetail,
  progress: CampaignProgress,
  payments: Type.Array(CampaignPayment),
}, { title: 'CampaignStatusResponse' });

export const MotoOrder = Type.Object({
  orderUUID: Uuid,
  destination: Nullable(Type.String()),
  moToPaymentStatus: Type.Enum(['PENDING', 'COMPLETED']),
  expiresAt: Iso,
  createdAt: Iso,
  amount: Type.Integer(),
  isPaid: Type.Boolean(),
  isSafe: Type.Boolean(),
  orderType: Type.String(),
  operative: Type.String(),
  description: Type.String(),
  token: Nullable(Type.String()),
  externalID: Nullable(Type.String()),
  filename: Nullable(Type.String()),
  additional: Nullable(Type.String()),
  status: Type.String({ description: 'the order status' }),
  paymentUUID: Uuid,
}, {
  title: 'MotoOrder',
  examples: [{ orderUUID: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', destination: 'lucia@example.com', moToPaymentStatus: 'COMPLETED', expiresAt: '2026-03-31T22:00:00.000Z', createdAt: '2026-03-14T09:21:07.000Z', amount: 2550, isPaid: true, isSafe: false, orderType: 'MOTO', operative: 'AUTHORIZATION', description: 'Invoices of March', token: '8d1f0c2b4e6a', externalID: 'cust-1', filename: 'march.csv', additional: 'invoice 42', status: 'SUCCESS', paymentUUID: '2b9d4e6f-1a3c-4e5f-8a7b-9c0d1e2f3a4b' }],
});

export const MotoOrdersResponse = envelope({ orders: Type.Array(MotoOrder) }, { title: 'MotoOrdersResponse' });

export const CampaignParams = Type.Object({ campaign_uuid: Type.String({ maxLength: 64 }) });
export const OpenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
export const OpenQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 10 })) });

export const PaymentParams = Type.Object({ moto_payment_uuid: Type.String({ maxLength: 64 }) });

export const CertificateResponse = envelope({
  certificate: Type.String({ examples: ['JVBERi0xLjcKJYGBgYEKCjEgMCBvYmoKPDwKL1RpdGxlIChDZXJ0aWZpY2F0ZSBvZiBwYXltZW50IGxpbmsgZGVsaXZlcnkpCj4+CmVuZG9iagp0cmFpbGVyCjw8IC9Sb290IDEgMCBSID4+CiUlRU9GCg=='], description: 'the PDF, base64. The evidence is embedded as JSON and signed with Ed25519 (verify with `npx paygate certificate verify FILE` or the key of GET /certificates/public-key)' }),
}, { title: 'CertificateResponse' });

export const PublicKeyResponse = envelope({
  key_id: Type.String({ description: 'the id of the key, also named in each certificate it signs', examples: ['ed25519-3f9a1c2b'] }),
  algorithm: Type.Literal('Ed25519'),
  public_key: Type.String({ description: 'SPKI, PEM', examples: ['-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n'] }),
}, { title: 'CertificatePublicKeyResponse' });
