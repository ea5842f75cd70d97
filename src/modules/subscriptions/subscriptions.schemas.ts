/** TypeBox schemas of recurring billing: requests (lenient scalars), records and answers, with examples. */
import { Amount, Bool, EXAMPLE_SIGNATURE as signature, ExtId, Int, Maybe, Nullable, OFFSET_MAX, OptionalText, Type, envelope, signedBody } from '../../platform/http/schemas.js';

const ISO = (description: string, example: string) => Type.String({ description: `${description} (ISO 8601 UTC with milliseconds)`, examples: [example] });
const INTERVAL_TEXT = 'DAILY, WEEKLY, MONTHLY or ANNUAL (YEARLY is read as ANNUAL)';
const IntervalName = Type.String({ maxLength: 16, description: INTERVAL_TEXT, examples: ['MONTHLY'] });

// ---- examples -------------------------------------------------------------------------------------------

const COMPANY_UUID = '0b6c3e52-8f1d-4a7e-9c2b-5d4e3f2a1b0c';
const SUBSCRIPTION_ID = '7f3d2c1b-6a5e-4d9c-8b7a-1e2f3a4b5c6d';
const PAYMENT_ID = 'c4a1e9d2-3b7f-4e6a-9d1c-8b2a7f6e5d4c';
const ORDER_UUID = '3d8f1a2b-4c5e-4f6a-8b9c-0d1e2f3a4b5c';
const SOURCE_UUID = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';

export const COMPANY_EXAMPLE = { uuid: COMPANY_UUID, external_id: COMPANY_UUID, name: 'Gym Centro SL', created_at: '2026-01-10T09:00:00.000Z', updated_at: '2026-01-10T09:00:00.000Z' };
export const PRODUCT_EXAMPLE = {
  external_id: 'gym-membership',
  name: 'Gym membership',
  sandbox: true,
  notification_url: 'https://shop.example.com/paygate/subscriptions',
  created_at: '2026-01-10T09:01:00.000Z',
  updated_at: '2026-01-10T09:01:00.000Z',
};
export const PLAN_EXAMPLE = {
  external_id: 'gym-monthly',
  name: 'Monthly membership',
  amount: 2990,
  interval: 1,
  interval_type: 'MONTHLY',
  interval_offset: 14,
  interval_offset_type: 'DAILY',
  trial_available: true,
  product: PRODUCT_EXAMPLE,
  created_at: '2026-01-10T09:02:00.000Z',
  updated_at: '2026-01-10T09:02:00.000Z',
};
export const PAYMENT_EXAMPLE = {
  id: PAYMENT_ID,
  amount: 2990,
  currency: 'EUR',
  attempt: 1,
  payment_number: 1,
  status: 'PAID',
  payment_date: '2026-01-31T10:00:00.000Z',
  payment_details: JSON.stringify({ order_uuid: ORDER_UUID, source_uuid: SOURCE_UUID, transaction_uuid: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d' }),
  created_at: '2026-01-31T10:00:00.000Z',
  updated_at: '2026-01-31T10:00:01.000Z',
};
const SUBSCRIPTION_BASE = {
  id: SUBSCRIPTION_ID,
  active: true,
  status: 'PAID',
  customer: 'cust-1042',
  additional_data: JSON.stringify({ additional: 'member 1042', customer_ext_id: 'cust-1042', operative: 'AUTHORIZATION', service: null, source_uuid: SOURCE_UUID, url_post: 'https://shop.example.com/paygate/orders' }),
  amount: 2990,
  total_payment_number: 12,
  payment_attempts_limit: 4,
  total_payment_charged: 1,
  first_charge_date: '2026-01-31T10:00:00.000Z',
  next_charge_date: '2026-02-28T10:00:00.000Z',
  created_at: '2026-01-31T10:00:00.000Z',
  updated_at: '2026-01-31T10:00:01.000Z',
  plan: PLAN_EXAMPLE,
};
export const SUBSCRIPTION_EXAMPLE = { ...SUBSCRIPTION_BASE, payments: [PAYMENT_EXAMPLE] };
export const PAYMENT_RESULT_EXAMPLE = {
  payment_id: PAYMENT_ID,
  subscription: SUBSCRIPTION_ID,
  plan: 'gym-monthly',
  product: 'gym-membership',
  customer: 'cust-1042',
  company: COMPANY_UUID,
  status: 'PAID',
  payment_date: '2026-01-31T10:00:00.000Z',
  payment_number: 1,
  attempt: 1,
  amount: 2990,
  currency: 'EUR',
};

// ---- records --------------------------------------------------------------------------------------------

export const Company = Type.Object(
  {
    uuid: Type.String({ description: 'the company uuid (named `company` in payment results)' }),
    external_id: Type.String({ description: 'the same uuid' }),
    name: Type.String({ description: 'the merchant name' }),
    created_at: ISO('created', COMPANY_EXAMPLE.created_at),
    updated_at: ISO('last changed', COMPANY_EXAMPLE.updated_at),
  },
  { title: 'SubscriptionCompany', description: 'The company of a merchant in recurring billing: one per merchant and environment', examples: [COMPANY_EXAMPLE] },
);

export const Product = Type.Object(
  {
    external_id: Type.String({ description: 'merchant-chosen identifier, unique among the merchant\'s products' }),
    name: Type.String(),
    sandbox: Type.Boolean({ description: 'true for sandbox products' }),
    notification_url: Nullable(Type.String({ description: 'told about every status change of a payment of the product\'s subscriptions' })),
    created_at: ISO('created', PRODUCT_EXAMPLE.created_at),
    updated_at: ISO('last changed', PRODUCT_EXAMPLE.updated_at),
  },
  { title: 'SubscriptionProduct', description: 'What is sold by subscription; plans say how it is charged', examples: [PRODUCT_EXAMPLE] },
);

export const Plan = Type.Object(
  {
    external_id: Type.String(),
    name: Type.String(),
    amount: Type.Integer({ description: 'each charge, in minor units of the currency' }),
    interval: Type.Integer({ description: 'charge every `interval` × `interval_type`' }),
    interval_type: Type.String({ description: 'DAILY, WEEKLY, MONTHLY or ANNUAL' }),
    interval_offset: Nullable(Type.Integer({ description: 'trial length, in `interval_offset_type` units' })),
    interval_offset_type: Nullable(Type.String({ description: 'DAILY, WEEKLY, MONTHLY or ANNUAL' })),
    trial_available: Type.Boolean({ description: 'the first charge waits `interval_offset` × `interval_offset_type`' }),
    product: Product,
    created_at: ISO('created', PLAN_EXAMPLE.created_at),
    updated_at: ISO('last changed', PLAN_EXAMPLE.updated_at),
  },
  { title: 'SubscriptionPlan', description: 'How a product is charged: amount, interval and trial', examples: [PLAN_EXAMPLE] },
);

const paymentFields = {
  id: Type.String({ description: 'payment id (uuid)' }),
  amount: Type.Integer({ description: 'minor units' }),
  currency: Nullable(Type.String({ description: 'ISO 4217 alpha-3 of the charge; null when no order could be made' })),
  attempt: Type.Integer({ description: '1 for the first try of a payment, then 2, 3, … for its retries' }),
  payment_number: Type.Integer({ description: '1 for the first charge of the subscription, 2 for the second, …' }),
  status: Type.String({ description: 'CREATED (being charged), PAID, FAILED (declined) or FAILED_NOTIFICATION (the charge could not be made: wrong service or card)' }),
  payment_date: ISO('when the charge was due (merchant clock)', PAYMENT_EXAMPLE.payment_date),
  payment_details: Nullable(Type.String({ description: 'JSON text: `order_uuid`, `source_uuid`, `transaction_uuid` of the charge (and `error` when it could not be made)' })),
  created_at: ISO('created', PAYMENT_EXAMPLE.created_at),
  updated_at: ISO('last changed', PAYMENT_EXAMPLE.updated_at),
};

export const Payment = Type.Object(paymentFields, { title: 'SubscriptionPayment', description: 'One charge attempt of a subscription; its order is a normal order of the payments API', examples: [PAYMENT_EXAMPLE] });

const subscriptionFields = {
  id: Type.String({ description: 'subscription id (uuid)' }),
  active: Type.Boolean({ description: 'false once cancelled or finished' }),
  status: Type.String({ description: 'CREATED (no charge yet), PAID, UNPAID (a charge failed and is being retried), CANCELLED or FINISHED' }),
  customer: Type.String({ description: 'customer external id' }),
  additional_data: Nullable(Type.String({ description: 'JSON text: additional, customer_ext_id, operative, service, source_uuid, url_post' })),
  amount: Type.Integer({ description: 'each charge (the plan\'s amount when subscribed)' }),
  total_payment_number: Nullable(Type.Integer({ description: 'paid charges after which the subscription is FINISHED; null: no end' })),
  payment_attempts_limit: Type.Integer({ description: 'consecutive failed attempts that cancel the subscription' }),
  total_payment_charged: Type.Integer({ description: 'charges paid so far' }),
  first_charge_date: ISO('the first charge (the anchor of every later one)', SUBSCRIPTION_BASE.first_charge_date),
  next_charge_date: Nullable(ISO('the next charge or retry; null when no more are due', SUBSCRIPTION_BASE.next_charge_date)),
  created_at: ISO('created', SUBSCRIPTION_BASE.created_at),
  updated_at: ISO('last changed', SUBSCRIPTION_BASE.updated_at),
  plan: Plan,
};

export const Subscription = Type.Object(
  { ...subscriptionFields, payments: Type.Array(Payment, { description: 'every charge attempt, by payment number and attempt' }) },
  { title: 'Subscription', description: 'A customer subscribed to a plan, with its charges', examples: [SUBSCRIPTION_EXAMPLE] },
);

const SubscriptionSummary = Type.Object(subscriptionFields, { title: 'SubscriptionSummary', description: 'A subscription without its payments', examples: [SUBSCRIPTION_BASE] });

export const PaymentWithSubscription = Type.Object(
  { ...paymentFields, subscription: SubscriptionSummary },
  { title: 'SubscriptionPaymentDetail', description: 'A subscription payment with its subscription', examples: [{ ...PAYMENT_EXAMPLE, subscription: SUBSCRIPTION_BASE }] },
);

export const ListedPayment = Type.Object(
  { ...paymentFields, subscription: Type.String({ description: 'subscription id' }) },
  { title: 'ListedSubscriptionPayment', description: 'A subscription payment as listed', examples: [{ ...PAYMENT_EXAMPLE, subscription: SUBSCRIPTION_ID }] },
);

const R = PAYMENT_RESULT_EXAMPLE;
const paymentResultFields = {
  payment_id: Nullable(Type.String({ description: 'the payment; null while the first charge is scheduled for later', examples: [R.payment_id] })),
  subscription: Type.String({ description: 'subscription id', examples: [R.subscription] }),
  plan: Type.String({ description: 'plan external id', examples: [R.plan] }),
  product: Type.String({ description: 'product external id', examples: [R.product] }),
  customer: Type.String({ description: 'customer external id', examples: [R.customer] }),
  company: Type.String({ description: 'company uuid', examples: [R.company] }),
  status: Type.String({ description: 'payment status: CREATED (scheduled or being charged), PAID, FAILED or FAILED_NOTIFICATION', examples: [R.status] }),
  payment_date: ISO('when the charge is or was due', R.payment_date),
  payment_number: Type.Integer({ examples: [R.payment_number] }),
  attempt: Type.Integer({ examples: [R.attempt] }),
  amount: Type.Integer({ description: 'minor units', examples: [R.amount] }),
  currency: Nullable(Type.String({ description: 'ISO 4217 alpha-3; null until an order exists', examples: [R.currency] })),
};

/** The notification sent to the product's notification_url (documented, not an HTTP answer of ours). */
export const PaymentNotification = Type.Object(paymentResultFields, { title: 'SubscriptionPaymentNotification', examples: [PAYMENT_RESULT_EXAMPLE] });

// ---- requests -------------------------------------------------------------------------------------------

const ExternalId = (description: string) => ExtId({ description });
const Url = (description: string) => OptionalText(2000, { description });

export const CompanyBody = Type.Optional(Type.Object({}, { description: 'no fields (a body, when sent, is ignored)' }));

export const CreateProductBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  external_id: ExternalId('your identifier of the product (unique among your products)'),
  notification_url: Url('told about every status change of the payments of this product\'s subscriptions'),
}, { title: 'CreateSubscriptionProductRequest', examples: [{ signature, name: 'Gym membership', external_id: 'gym-membership', notification_url: 'https://shop.example.com/paygate/subscriptions' }] });

export const CreatePlanBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  external_id: ExternalId('your identifier of the plan (unique among your plans)'),
  product: ExternalId('the external id of the product'),
  amount: Amount({ description: 'each charge, in minor units of the currency (100 = 1 EUR)' }),
  interval: Type.Optional(Int({ minimum: 1, maximum: 1000, default: 1, description: 'charge every `interval` × `interval_type`' })),
  interval_type: IntervalName,
  trial_available: Type.Optional(Bool({ description: 'the first charge waits interval_offset × interval_offset_type', default: false })),
  interval_offset: Maybe(Int({ minimum: 0, maximum: 10_000, description: 'trial length, in interval_offset_type units' })),
  interval_offset_type: Maybe(IntervalName, { description: `unit of interval_offset: ${INTERVAL_TEXT}` }),
}, {
  title: 'CreateSubscriptionPlanRequest',
  examples: [{ signature, name: 'Monthly membership', external_id: 'gym-monthly', product: 'gym-membership', amount: 2990, interval: 1, interval_type: 'MONTHLY', trial_available: true, interval_offset: 14, interval_offset_type: 'DAILY' }],
});

export const SubscribeBody = signedBody({
  plan: ExternalId('the external id of the plan'),
  customer: ExternalId('the external id of the customer'),
  total_payment_number: Maybe(Int({ minimum: 1, maximum: 100_000, description: 'paid charges after which the subscription is FINISHED; absent: no end' })),
  payment_attempts_limit: Int({ minimum: 1, maximum: 100, description: 'consecutive failed attempts that cancel the subscription' }),
  initial_date: Maybe(Type.String({ maxLength: 40, description: 'the first charge day: YYYY-MM-DD (merchant timezone) or ISO 8601 date-time; default today' })),
  additional_data: Maybe(Type.Object({
    additional: OptionalText(500, { description: 'free text copied to every charge order' }),
    customer_ext_id: Maybe(ExternalId('the customer again (must equal customer when given)')),
    operative: OptionalText(32, { description: 'AUTHORIZATION (the only one for subscriptions)' }),
    service: Maybe(Type.String({ format: 'uuid', description: 'the service that charges (default: the merchant\'s EUR service)' })),
    source_uuid: Maybe(Type.String({ format: 'uuid', description: 'the customer\'s stored card that is charged' })),
    card_uuid: Maybe(Type.String({ format: 'uuid', description: 'alias of source_uuid' })),
    url_post: Url('where each charge order\'s notification goes (as for any order)'),
  }), { description: 'how each charge is made' }),
}, {
  title: 'SubscribeRequest',
  examples: [{
    signature,
    plan: 'gym-monthly',
    customer: 'cust-1042',
    total_payment_number: 12,
    payment_attempts_limit: 4,
    initial_date: '2026-01-31',
    additional_data: { additional: 'member 1042', source_uuid: SOURCE_UUID, url_post: 'https://shop.example.com/paygate/orders' },
  }],
});

export const DeleteBody = signedBody({}, { examples: [{ signature }] });

export const ExternalIdParams = Type.Object({ external_id: Type.String({ minLength: 1, maxLength: 255 }) });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const FilterDate = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9]{12}$', description: `${description}: YYYYMMDDHHmm (merchant timezone)` }));
const paging = {
  limit: Type.Optional(Int({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Int({ minimum: 0, maximum: OFFSET_MAX, default: 0, description: 'rows skipped' })),
};

export const PlansQuery = Type.Object({ product: Type.Optional(Type.String({ maxLength: 255, description: 'only the plans of this product (external id)' })) });

export const SubscriptionsQuery = Type.Object({
  status: Type.Optional(Type.Union(['CREATED', 'PAID', 'UNPAID', 'CANCELLED', 'FINISHED'].map((s) => Type.Literal(s)), { description: 'only subscriptions in this status' })),
  customer: Type.Optional(Type.String({ maxLength: 255, description: 'customer external id' })),
  plan: Type.Optional(Type.String({ maxLength: 255, description: 'plan external id' })),
  product: Type.Optional(Type.String({ maxLength: 255, description: 'product external id' })),
  active: Type.Optional(Bool({ description: 'only active (true) or ended (false) subscriptions' })),
  start: FilterDate('created at or after'),
  end: FilterDate('created at or before'),
  ...paging,
});

export const PaymentsQuery = Type.Object({
  status: Type.Optional(Type.Union(['CREATED', 'PAID', 'FAILED', 'FAILED_NOTIFICATION'].map((s) => Type.Literal(s)), { description: 'only payments in this status' })),
  subscription: Type.Optional(Type.String({ maxLength: 64, description: 'subscription id' })),
  start: FilterDate('due at or after'),
  end: FilterDate('due at or before'),
  ...paging,
});

// ---- answers --------------------------------------------------------------------------------------------

export const CompanyResponse = envelope({ company: Company }, { title: 'SubscriptionCompanyResponse' });
export const ProductResponse = envelope({ product: Product }, { title: 'SubscriptionProductResponse' });
export const ProductsResponse = envelope({ products: Type.Array(Product) }, { title: 'SubscriptionProductsResponse' });
export const PlanResponse = envelope({ plan: Plan }, { title: 'SubscriptionPlanResponse' });
export const PlansResponse = envelope({ plans: Type.Array(Plan) }, { title: 'SubscriptionPlansResponse' });
export const DeletedResponse = envelope({ deleted: Type.Integer({ description: '1 when removed or cancelled now, 0 when it had ended already', examples: [1] }) }, { title: 'DeletedResponse' });
export const SubscribeResponse = envelope(paymentResultFields, { title: 'SubscribeResponse' });
export const SubscriptionResponse = envelope({ subscription: Subscription }, { title: 'SubscriptionResponse' });
export const SubscriptionsResponse = envelope({
  count: Type.Integer({ description: 'subscriptions matching the filters', examples: [1] }),
  subscriptions: Type.Array(Subscription),
  next_offset: Nullable(Type.Integer({ description: 'offset of the next page; null on the last page' })),
}, { title: 'SubscriptionsResponse' });
export const PaymentResponse = envelope({ payment: PaymentWithSubscription }, { title: 'SubscriptionPaymentResponse' });
export const PaymentsResponse = envelope({
  count: Type.Integer({ description: 'payments matching the filters', examples: [1] }),
  payments: Type.Array(ListedPayment),
  next_offset: Nullable(Type.Integer({ description: 'offset of the next page; null on the last page' })),
}, { title: 'SubscriptionPaymentsResponse' });
