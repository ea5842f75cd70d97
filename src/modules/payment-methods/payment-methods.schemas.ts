/** TypeBox schemas of the payment-methods API. */
import { Maybe, OptionalIp, OptionalText, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { APM_VALUES } from '../../processors/index.js';
import { ApmVoucherSchema, orderFields } from '../payments/index.js';
import * as EX from './payment-methods.examples.js';

export const Apm = Type.Object(
  {
    apm: Type.String({ description: 'the APM value' }),
    kind: Type.String({ description: 'redirect (the customer approves on the provider\'s page), push (on their phone) or voucher (pays the issued data elsewhere)' }),
    label: Type.String({ description: 'the name shown to customers' }),
    countries: Type.Array(Type.String(), { description: 'where it is used (ISO 3166 alpha-2); empty: worldwide' }),
    voucher_format: Type.Optional(Type.String({ description: 'vouchers: ENTITY_REFERENCE, REFERENCE, BARCODE, QR, CLABE or BANK_TRANSFER' })),
    payouts: Type.Boolean({ description: 'whether B15 payouts can go with it (`apm` of POST /payment/payout)' }),
    payout_to: Type.Optional(Type.String({ description: 'APMs that pay out: what the payout goes to, PHONE (`phone` of the payout) or BANK_ACCOUNT (a stored bank account, `source_uuid`)' })),
  },
  { title: 'Apm', description: 'An alternative payment method and its kind', examples: [EX.APM_EXAMPLE] },
);

export const ApmsResponse = envelope({ apms: Type.Array(Apm) }, { title: 'ApmCatalogueResponse', description: 'Every APM of the API with its kind' });

const ServiceApms = Type.Object(
  { service_uuid: Uuid, apms: Type.Array(Apm, { description: 'the APMs the service offers, besides cards' }) },
  { title: 'ServiceApms', description: 'The APMs a service offers', examples: [EX.SERVICE_APMS_EXAMPLE] },
);
export const ServiceApmsResponse = envelope({ service: ServiceApms }, { title: 'ServiceApmsResponse' });
export const ServiceParams = Type.Object({ service_uuid: Uuid });
export const SetApmsBody = signedBody({
  apms: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 64, description: `the APMs the service offers from now on (replaces the list): ${APM_VALUES.join(', ')}. BIZUM only on services of the REDSYS family` }),
}, { title: 'SetServiceApmsRequest', examples: [EX.SET_APMS_REQUEST] });

export const PushBody = signedBody({
  order_uuid: Uuid,
  apm: OptionalText(32, { description: 'the APM; required when the order\'s service offers several' }),
  phone: OptionalText(32, { description: 'push APMs (BIZUM, MBWAY): the phone number of the paying account' }),
  customer_ip: OptionalIp(),
}, { title: 'PushPaymentRequest', examples: [EX.PUSH_REQUEST] });

const PushExtra = Type.Object(
  {
    apm: Type.Object({
      apm: Type.String(),
      kind: Type.String({ description: 'redirect, push or voucher' }),
      pending: Type.Boolean({ description: 'true while the payment waits for the customer; false when it was refused at once' }),
      redirect_url: Type.Optional(Type.String({ description: 'redirect APMs: send the customer here to approve' })),
      voucher: Type.Optional(ApmVoucherSchema),
      phone: Type.Optional(Type.String({ description: 'push APMs: the masked phone the push went to' })),
      sandbox_phone_url: Type.Optional(Type.String({ description: 'sandbox, push APMs: the sandbox phone where the push can be approved or rejected' })),
      expires_at: Type.Optional(Type.String({ description: 'until when the customer can complete it (ISO 8601 UTC); then the payment is refused' })),
    }),
  },
  { title: 'PushExtraData', description: 'What the customer does next to complete an APM payment', examples: [EX.PUSH_EXTRA_DATA] },
);

export const PushResponse = envelope({ ...orderFields, extra_data: PushExtra }, { title: 'PushPaymentResponse', description: 'The order (PENDING_PROCESSOR_RESPONSE while the customer acts; REFUSED when refused at once) and what the customer does next' });

export const OrderParams = Type.Object({ order_uuid: Uuid });
export const SandboxPayBody = signedBody({
  result: Maybe(Type.Union([Type.Literal('PAID'), Type.Literal('REFUSED')], { description: 'PAID (default): the customer paid the voucher or approved; REFUSED: the customer refused' })),
}, { title: 'SandboxApmPayRequest', examples: [EX.SANDBOX_PAY_REQUEST] });
export const SandboxPayResponse = envelope(orderFields, { title: 'SandboxApmPayResponse', description: 'The order after the customer acted, as notified to url_post' });
