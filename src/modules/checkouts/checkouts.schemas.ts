import { ContractDate, Maybe, Nullable, OptionalText, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { ServiceSchema } from '../services/index.js';
import { CHECKOUT_METHODS } from './checkouts.domain.js';

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

export const Checkout = Type.Object({ ...checkoutFields, created: ContractDate, updated: ContractDate }, { description: 'Checkout configuration' });
/** As `GET /client/resources` lists it. */
export const CheckoutResource = Type.Object(checkoutFields, { description: 'Checkout configuration' });

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
});

export const UpdateCheckoutBody = signedBody({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  payment_methods: Type.Optional(Methods),
  default_payment_method: OptionalText(32, { description: 'one of payment_methods; null clears it' }),
  customization: CustomizationIn,
});

export const DeleteCheckoutBody = signedBody({});
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
  { description: 'The resources a checkout client needs, without the response envelope' },
);
