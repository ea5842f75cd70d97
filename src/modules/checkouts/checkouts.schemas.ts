import { ContractDate, EXAMPLE_SIGNATURE as signature, Maybe, Nullable, OptionalText, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { ServiceSchema } from '../services/index.js';
import { CHECKOUT_METHODS } from './checkouts.domain.js';

const CHECKOUT_EXAMPLE = {
  uuid: '5e7a9c1e-3b5d-4f7a-9c1e-3b5d7f9a1c3e',
  name: 'Web shop',
  payment_methods: ['PAYMENT_CARD', 'BIZUM'],
  default_payment_method: 'PAYMENT_CARD',
  customization: { theme_type: 'dark', font: 'Inter', description: 'Your order at Shop', payment_details: { order_number: 'A-1042' } },
};
const CREATE_EXAMPLE = { signature, name: 'Web shop', payment_methods: ['PAYMENT_CARD', 'BIZUM'], default_payment_method: 'PAYMENT_CARD', customization: { theme_type: 'dark', description: 'Your order at Shop' } };

const METHODS_TEXT = `${CHECKOUT_METHODS.join(', ')} (CARD is accepted for PAYMENT_CARD)`;

const CustomizationOut = Nullable(
  Type.Object({
    theme_type: Nullable(Type.String({ description: 'light or dark on the pages' })),
    font: Nullable(Type.String({ description: 'a font name; the pages use a system font stack for the known ones' })),
    description: Nullable(Type.String()),
    payment_details: Nullable(Type.Object({ order_number: Nullable(Type.String()) })),
  }),
);

const checkoutFields = {
  uuid: Uuid,
  name: Type.String(),
  payment_methods: Type.Array(Type.String(), { description: METHODS_TEXT }),
  default_payment_method: Nullable(Type.String()),
  customization: CustomizationOut,
};

export const Checkout = Type.Object(
  { ...checkoutFields, created: ContractDate, updated: ContractDate },
  { title: 'Checkout', description: 'A checkout configuration: the payment methods offered and the look of the pages', examples: [{ ...CHECKOUT_EXAMPLE, created: '2026-03-14T10:21:07+0100', updated: '2026-03-14T10:21:07+0100' }] },
);
/** As `GET /client/resources` lists it. */
export const CheckoutResource = Type.Object(checkoutFields, { title: 'CheckoutResource', description: 'A checkout configuration as `GET /client/resources` lists it', examples: [CHECKOUT_EXAMPLE] });

const CustomizationIn = Maybe(
  Type.Object({
    theme_type: OptionalText(32, { description: 'light or dark' }),
    font: OptionalText(100),
    description: OptionalText(500),
    payment_details: Maybe(Type.Object({ order_number: Maybe(Type.Union([Type.String({ maxLength: 100 }), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })])) })),
  }),
  { description: 'how the pages look: theme_type, font, description, payment_details.order_number' },
);

const Methods = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 32, description: METHODS_TEXT });

export const CreateCheckoutBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  payment_methods: Type.Optional(Methods),
  default_payment_method: OptionalText(32, { description: 'one of payment_methods' }),
  customization: CustomizationIn,
}, { title: 'CreateCheckoutRequest', examples: [CREATE_EXAMPLE] });

export const UpdateCheckoutBody = signedBody({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  payment_methods: Type.Optional(Methods),
  default_payment_method: OptionalText(32, { description: 'one of payment_methods; null clears it' }),
  customization: CustomizationIn,
}, { title: 'UpdateCheckoutRequest', examples: [{ signature, payment_methods: ['PAYMENT_CARD'], default_payment_method: null }] });

export const DeleteCheckoutBody = signedBody({}, { examples: [{ signature }] });
export const CheckoutParams = Type.Object({ uuid: Uuid });

export const CheckoutResponse = envelope({ checkout: Checkout });
export const CheckoutsResponse = envelope({ checkouts: Type.Array(Checkout) });

/** `GET /client/resources`: no envelope (clients treat any `code` key as an error). */
export const ClientResourcesResponse = Type.Object(
  {
    services: Type.Array(ServiceSchema),
    checkouts: Type.Array(CheckoutResource),
    googlePay: Type.Object({ enabled: Type.Boolean() }),
    applePay: Type.Object({ enabled: Type.Boolean() }),
  },
  {
    title: 'ClientResources',
    description: 'The resources a checkout client needs, without the response envelope',
    examples: [{ services: [], checkouts: [CHECKOUT_EXAMPLE], googlePay: { enabled: false }, applePay: { enabled: false } }],
  },
);
