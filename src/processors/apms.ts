/**
 * The alternative payment methods (APMs) of the API, each of one kind. The kind decides the flow:
 *
 *  - `redirect`: the customer is sent to the provider (their bank, wallet or financing page), approves
 *    there and comes back; the provider tells us the result.
 *  - `push`: the provider sends a payment request to the customer's phone (identified by the phone
 *    number); the customer approves it in an app; the provider tells us the result.
 *  - `voucher`: the provider issues the data to pay (entity and reference, barcode, QR payload, CLABE,
 *    IBAN and concept) with an expiry; the customer pays it elsewhere (an ATM, a shop, their bank app)
 *    and the provider tells us when the money arrived.
 *
 * Pure data: the one table every layer reads (connectors, payments, the pages, the API reference).
 */

export const APM_KINDS = ['redirect', 'push', 'voucher'] as const;
export type ApmKind = (typeof APM_KINDS)[number];

/** What a voucher carries (which fields the provider issues). */
export type VoucherFormat = 'ENTITY_REFERENCE' | 'REFERENCE' | 'BARCODE' | 'QR' | 'CLABE' | 'BANK_TRANSFER';

export interface ApmInfo {
  /** The API value (`apm`). */
  apm: string;
  kind: ApmKind;
  /** Name shown to the customer. */
  label: string;
  /** Where it is used (ISO 3166 alpha-2), informative. */
  countries: readonly string[];
  /** Vouchers only: what the voucher carries. */
  voucher?: VoucherFormat;
  /** Vouchers only: how long the voucher can be paid, in seconds. */
  voucherSeconds?: number;
  /**
   * APMs that support payouts (B15 `apm`): what the payout is sent to. PHONE: the phone number of the
   * receiving account (push APMs); BANK_ACCOUNT: a stored bank account (IBAN) of the customer. Absent:
   * the APM takes payments only.
   */
  payout?: PayoutDestination;
}

export type PayoutDestination = 'PHONE' | 'BANK_ACCOUNT';

const DAY = 86_400;

/** Every APM of the API, in the API's order. */
export const APM_CATALOGUE: readonly ApmInfo[] = [
  { apm: 'BIZUM', kind: 'push', label: 'Bizum', countries: ['ES'], payout: 'PHONE' },
  { apm: 'IDEAL', kind: 'redirect', label: 'iDEAL', countries: ['NL'] },
  { apm: 'SOFORT', kind: 'redirect', label: 'Sofort', countries: ['DE', 'AT', 'BE', 'NL'] },
  { apm: 'KLARNA', kind: 'redirect', label: 'Klarna', countries: ['DE', 'SE', 'NL', 'ES'] },
  { apm: 'VIACASH', kind: 'voucher', label: 'viacash', countries: ['DE', 'AT', 'IT', 'ES'], voucher: 'BARCODE', voucherSeconds: 7 * DAY },
  { apm: 'COFIDIS', kind: 'redirect', label: 'Cofidis', countries: ['ES', 'PT', 'FR'] },
  { apm: 'PIX', kind: 'voucher', label: 'PIX', countries: ['BR'], voucher: 'QR', voucherSeconds: DAY },
  { apm: 'CRYPTO', kind: 'redirect', label: 'Crypto', countries: [] },
  { apm: 'GIROPAY', kind: 'redirect', label: 'giropay', countries: ['DE'] },
  { apm: 'TRANSFER', kind: 'voucher', label: 'Bank transfer', countries: ['ES', 'PT', 'DE', 'FR', 'IT', 'NL'], voucher: 'BANK_TRANSFER', voucherSeconds: 7 * DAY, payout: 'BANK_ACCOUNT' },
  { apm: 'PSE', kind: 'redirect', label: 'PSE', countries: ['CO'] },
  { apm: 'PAYPAL', kind: 'redirect', label: 'PayPal', countries: [] },
  { apm: 'PAYLATER', kind: 'redirect', label: 'Pay later', countries: ['ES'] },
  { apm: 'SPEI', kind: 'voucher', label: 'SPEI', countries: ['MX'], voucher: 'CLABE', voucherSeconds: 3 * DAY },
  { apm: 'MULTIBANCO', kind: 'voucher', label: 'Multibanco', countries: ['PT'], voucher: 'ENTITY_REFERENCE', voucherSeconds: 3 * DAY },
  { apm: 'MBWAY', kind: 'push', label: 'MB WAY', countries: ['PT'], payout: 'PHONE' },
  { apm: 'FLOA', kind: 'redirect', label: 'Floa', countries: ['FR', 'ES'] },
  { apm: 'PAYSAFECARD', kind: 'redirect', label: 'paysafecard', countries: [] },
  { apm: 'PAGO_FACIL', kind: 'voucher', label: 'Pago Fácil', countries: ['AR'], voucher: 'BARCODE', voucherSeconds: 3 * DAY },
  { apm: 'EFECTY', kind: 'voucher', label: 'Efecty', countries: ['CO'], voucher: 'REFERENCE', voucherSeconds: 3 * DAY },
  { apm: 'BOLETO', kind: 'voucher', label: 'Boleto', countries: ['BR'], voucher: 'BARCODE', voucherSeconds: 3 * DAY },
  { apm: 'LOTERICA', kind: 'voucher', label: 'Lotérica', countries: ['BR'], voucher: 'BARCODE', voucherSeconds: 3 * DAY },
  { apm: 'PAYSHOP', kind: 'voucher', label: 'Payshop', countries: ['PT'], voucher: 'REFERENCE', voucherSeconds: 3 * DAY },
  { apm: 'PICPAY', kind: 'voucher', label: 'PicPay', countries: ['BR'], voucher: 'QR', voucherSeconds: DAY },
  { apm: 'MACH', kind: 'redirect', label: 'MACH', countries: ['CL'] },
  { apm: 'KLAP', kind: 'redirect', label: 'Klap', countries: ['CL'] },
  { apm: 'KHIPU', kind: 'redirect', label: 'Khipu', countries: ['CL'] },
  { apm: 'SERVIPAG', kind: 'voucher', label: 'Servipag', countries: ['CL'], voucher: 'REFERENCE', voucherSeconds: 3 * DAY },
];

/** The APMs that support payouts (B15 `apm`). */
export const PAYOUT_APMS = APM_CATALOGUE.filter((a) => a.payout).map((a) => a.apm) as readonly string[];

/** The APM values of the API. */
export const APM_VALUES = APM_CATALOGUE.map((a) => a.apm) as readonly string[];
export type Apm = string;

const BY_NAME = new Map(APM_CATALOGUE.map((a) => [a.apm, a]));

/** The APM of a value (case-insensitive), or null. */
export function apmInfo(value: unknown): ApmInfo | null {
  if (typeof value !== 'string') return null;
  return BY_NAME.get(value.trim().toUpperCase()) ?? null;
}

/**
 * Sandbox test values of push APMs: the phone number decides what the sandbox phone does. A number
 * ending in 1 is refused at once by the provider (the account cannot pay); any other valid number
 * receives the push and waits for the customer to approve or reject it on the sandbox phone.
 */
export const SANDBOX_PUSH_PHONES = {
  BIZUM: { PAYS: '700000000', REFUSED: '700000001' },
  MBWAY: { PAYS: '912000000', REFUSED: '912000001' },
} as const;

/** A phone number of a push APM, national digits; null when it is not one. */
export function parsePushPhone(apm: string, value: unknown): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  let digits = String(value).replace(/[\s().-]/g, '');
  if (apm === 'MBWAY') {
    digits = digits.replace(/^(\+|00)351/, '');
    return /^9[1236]\d{7}$/.test(digits) ? digits : null;
  }
  digits = digits.replace(/^(\+|00)34/, '');
  return /^[67]\d{8}$/.test(digits) ? digits : null;
}
