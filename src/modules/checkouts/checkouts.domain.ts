/**
 * Pure rules of checkout configurations (decisions §10): payment method names of the reference
 * checkout, the input checks, how an order's `extra_data.checkout` overrides a stored checkout, and
 * which methods a service can take today. No IO.
 */
import { formatContractDate } from '../../platform/time/format.js';

/** Payment method names of the reference checkout. `CARD` is accepted as an alias of `PAYMENT_CARD`. */
export const CHECKOUT_METHODS = [
  'PAYMENT_CARD', 'GOOGLE_PAY', 'APPLE_PAY', 'BIZUM', 'SOFORT', 'IDEAL', 'CRYPTO', 'PIX', 'VIACASH', 'KLARNA', 'GIROPAY', 'CLICKTOPAY', 'PAYPAL',
] as const;
export type CheckoutMethod = (typeof CHECKOUT_METHODS)[number];

const ALIASES: Record<string, CheckoutMethod> = { CARD: 'PAYMENT_CARD', CARDS: 'PAYMENT_CARD', CREDIT_CARD: 'PAYMENT_CARD', GOOGLEPAY: 'GOOGLE_PAY', APPLEPAY: 'APPLE_PAY' };

/** The canonical name of a method (any case, aliases resolved), or null for a name we do not know. */
export function methodName(input: unknown): CheckoutMethod | null {
  if (typeof input !== 'string') return null;
  const v = input.trim().toUpperCase();
  if ((CHECKOUT_METHODS as readonly string[]).includes(v)) return v as CheckoutMethod;
  return ALIASES[v] ?? null;
}

type Result<T> = { ok: T } | { error: string };

export interface Customization {
  theme_type: string | null;
  font: string | null;
  description: string | null;
  payment_details: { order_number: string | null } | null;
}

export interface CheckoutInput {
  name?: string;
  payment_methods?: unknown[];
  default_payment_method?: string | null;
  customization?: {
    theme_type?: string | null;
    font?: string | null;
    description?: string | null;
    payment_details?: { order_number?: string | number | null } | null;
  } | null;
}

/** `payment_methods`: known names only, aliases resolved, each once, in the merchant's order. */
export function parseMethods(list: unknown[]): Result<CheckoutMethod[]> {
  const out: CheckoutMethod[] = [];
  for (const [i, m] of list.entries()) {
    const name = methodName(m);
    if (!name) return { error: `payment_methods[${i}] must be one of: ${CHECKOUT_METHODS.join(', ')} (CARD is accepted for PAYMENT_CARD)` };
    if (!out.includes(name)) out.push(name);
  }
  return { ok: out };
}

const text = (v: string | number | null | undefined): string | null => {
  if (v === undefined || v === null) return null;
  const s = String(v).trim();
  return s === '' ? null : s;
};

/** The stored customization (null when nothing is set). */
export function parseCustomization(c: CheckoutInput['customization']): Customization | null {
  if (!c) return null;
  const orderNumber = text(c.payment_details?.order_number);
  const out: Customization = {
    theme_type: text(c.theme_type),
    font: text(c.font),
    description: text(c.description),
    payment_details: orderNumber === null ? null : { order_number: orderNumber },
  };
  return Object.values(out).every((v) => v === null) ? null : out;
}

/** `default_payment_method` must be one of `payment_methods` (when those are given). */
export function checkDefault(methods: CheckoutMethod[], def: string | null | undefined): Result<CheckoutMethod | null> {
  if (def === undefined || def === null || def.trim() === '') return { ok: null };
  const name = methodName(def);
  if (!name) return { error: `default_payment_method must be one of: ${CHECKOUT_METHODS.join(', ')}` };
  if (methods.length > 0 && !methods.includes(name)) return { error: `default_payment_method ${name} is not one of payment_methods` };
  return { ok: name };
}

export interface CheckoutRecord {
  id: string;
  name: string;
  payment_methods: string[];
  default_payment_method: string | null;
  customization: Customization | null;
  created_at: Date;
  updated_at: Date;
}

/** The checkout as `GET /client/resources` lists it. */
export function presentCheckoutResource(c: CheckoutRecord) {
  return {
    uuid: c.id,
    name: c.name,
    payment_methods: c.payment_methods,
    default_payment_method: c.default_payment_method,
    customization: c.customization,
  };
}

/** The checkout resource of the API (with its dates). */
export function presentCheckout(c: CheckoutRecord, serverTimezone: string) {
  return {
    ...presentCheckoutResource(c),
    created: formatContractDate(c.created_at, serverTimezone),
    updated: formatContractDate(c.updated_at, serverTimezone),
  };
}

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const given = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/**
 * The checkout an order's page uses: the stored checkout its `extra_data.checkout.uuid` names (when the
 * merchant has it), with every field given in the order overriding the stored one. The result has the
 * shape of `extra_data.checkout`. An unknown uuid leaves the order's own fields.
 */
export function mergeCheckout(order: Record<string, unknown>, stored: CheckoutRecord | null): Record<string, unknown> {
  if (!stored) return order;
  const oc = obj(order.customization) ?? {};
  const sc = stored.customization;
  const od = obj(oc.payment_details) ?? {};
  const pick = (o: unknown, s: unknown) => (given(o) ? o : s ?? null);
  const methods = Array.isArray(order.payment_methods) && order.payment_methods.length > 0 ? order.payment_methods : stored.payment_methods;
  return {
    uuid: stored.id,
    payment_methods: methods,
    default_payment_method: pick(order.default_payment_method, stored.default_payment_method),
    customization: {
      theme_type: pick(oc.theme_type, sc?.theme_type),
      font: pick(oc.font, sc?.font),
      description: pick(oc.description, sc?.description),
      payment_details: { order_number: pick(od.order_number, sc?.payment_details?.order_number) },
    },
  };
}

/** What a service is, for the methods it can take. */
export interface ServiceCapabilities {
  type: string;
  bizumEnabled: boolean;
  redsysFamily: boolean;
}

/**
 * The methods an order through this service can be paid with on the pages, in the reference names:
 * cards for orders that charge a card, Bizum on REDSYS-family services that enabled it (AUTHORIZATION
 * orders). Other methods of a checkout are accepted in its configuration and offered once a module
 * makes them available (extend this function).
 */
export function methodsServiceCanTake(service: ServiceCapabilities, operative: string): CheckoutMethod[] {
  const out: CheckoutMethod[] = [];
  if (operative === 'AUTHORIZATION' || operative === 'PARTIAL_AUTHORIZATION' || operative === 'DEFERRED') out.push('PAYMENT_CARD');
  if (service.bizumEnabled && service.redsysFamily && operative === 'AUTHORIZATION') out.push('BIZUM');
  return out;
}

/** Wallets offered to a merchant's customers (`GET /client/resources`). */
export interface WalletAvailability {
  googlePay: { enabled: boolean };
  applePay: { enabled: boolean };
}

/** No wallet is configured yet: a wallet module replaces this (CheckoutsService's `wallets` dependency). */
export const NO_WALLETS: WalletAvailability = { googlePay: { enabled: false }, applePay: { enabled: false } };
