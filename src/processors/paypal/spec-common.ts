/** The building blocks of PayPal's reference as schemas (spec.ts): the schema helpers and the code lists. */
import type { JsonSchema } from '../kit/spec.js';
import { PAYPAL_CURRENCY_DECIMALS } from './currencies.js';

export const str = (min: number | null, max: number | null, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...(min !== null ? { minLength: min } : {}), ...(max !== null ? { maxLength: max } : {}), ...extra });
export const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
export const arrayOf = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, ...extra });
export const anyObject: JsonSchema = { type: 'object' };

/** [SDK] doc/models/card-brand.md (a superset of [ORD] `card_brand`). */
export const CARD_BRANDS = [
  'VISA', 'MASTERCARD', 'DISCOVER', 'AMEX', 'SOLO', 'JCB', 'STAR', 'DELTA', 'SWITCH', 'MAESTRO', 'CB_NATIONALE', 'CONFIGOGA', 'CONFIDIS',
  'ELECTRON', 'CETELEM', 'CHINA_UNION_PAY', 'DINERS', 'ELO', 'HIPER', 'HIPERCARD', 'RUPAY', 'GE', 'SYNCHRONY', 'EFTPOS', 'CARTE_BANCAIRE',
  'STAR_ACCESS', 'PULSE', 'NYCE', 'ACCEL', 'UNKNOWN',
] as const;

/** [PAY] `capture_status_details.reason`. */
export const CAPTURE_REASONS = [
  'BUYER_COMPLAINT', 'CHARGEBACK', 'ECHECK', 'INTERNATIONAL_WITHDRAWAL', 'OTHER', 'PENDING_REVIEW', 'RECEIVING_PREFERENCE_MANDATES_MANUAL_ACTION',
  'REFUNDED', 'TRANSACTION_APPROVED_AWAITING_FUNDING', 'UNILATERAL', 'VERIFICATION_REQUIRED',
] as const;

/** [PAY] `processor_response.response_code`. */
export const RESPONSE_CODES = [
  '0000', '00N7', '0100', '0390', '0500', '0580', '0800', '0880', '0890', '0960', '0R00', '1000', '10BR', '1300', '1310', '1312', '1317', '1320',
  '1330', '1335', '1340', '1350', '1352', '1360', '1370', '1380', '1382', '1384', '1390', '1393', '5100', '5110', '5120', '5130', '5135', '5140',
  '5150', '5160', '5170', '5180', '5190', '5200', '5210', '5400', '5500', '5650', '5700', '5710', '5800', '5900', '5910', '5920', '5930', '5950',
  '6300', '7600', '7700', '7710', '7800', '7900', '8000', '8010', '8020', '8030', '8100', '8110', '8220', '9100', '9500', '9510', '9520', '9530',
  '9540', '9600', 'PCNR', 'PCVV', 'PP06', 'PPRN', 'PPAD', 'PPAB', 'PPAE', 'PPAG', 'PPAI', 'PPAR', 'PPAU', 'PPAV', 'PPAX', 'PPBG', 'PPC2', 'PPCE',
  'PPCO', 'PPCR', 'PPCT', 'PPCU', 'PPD3', 'PPDC', 'PPDI', 'PPDV', 'PPDT', 'PPEF', 'PPEL', 'PPER', 'PPEX', 'PPFE', 'PPFI', 'PPFR', 'PPFV', 'PPGR',
  'PPH1', 'PPIF', 'PPII', 'PPIM', 'PPIT', 'PPLR', 'PPLS', 'PPMB', 'PPMC', 'PPMD', 'PPNC', 'PPNL', 'PPNM', 'PPNT', 'PPPH', 'PPPI', 'PPPM', 'PPQC',
  'PPRE', 'PPRF', 'PPRR', 'PPS0', 'PPS1', 'PPS2', 'PPS3', 'PPS4', 'PPS5', 'PPS6', 'PPSC', 'PPSD', 'PPSE', 'PPTE', 'PPTF', 'PPTI', 'PPTR', 'PPTT',
  'PPTV', 'PPUA', 'PPUC', 'PPUE', 'PPUI', 'PPUP', 'PPUR', 'PPVC', 'PPVE', 'PPVT',
];

/** The webhook events the connector reads ([EVT], Payments v2; CHECKOUT.ORDER.APPROVED under Orders). */
export const WEBHOOK_EVENTS = [
  'PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.DECLINED', 'PAYMENT.CAPTURE.DENIED', 'PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.REFUNDED',
  'PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.VOIDED', 'CHECKOUT.ORDER.APPROVED',
] as const;

export const ZERO_DECIMALS = Object.entries(PAYPAL_CURRENCY_DECIMALS).filter(([, d]) => d === 0).map(([c]) => c);
export const ISO_DATE_TIME = '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])[T,t]([0-1][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)([.][0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$';

export const errors = (statuses: number[]): Record<string, JsonSchema> => Object.fromEntries(statuses.map((s) => [String(s), ref('error')]));
export const event = (type: string, resource: JsonSchema, resourceStatus?: string[]): JsonSchema => ({
  allOf: [ref('event'), {
    type: 'object',
    properties: { event_type: { const: type }, resource: resourceStatus ? { allOf: [resource, { type: 'object', properties: { status: { enum: resourceStatus } } }] } : resource },
  }],
});
