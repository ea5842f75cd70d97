/** Pure rules of services and terminals: type codes, DCC, terminal credentials. No IO. */
import { formatContractDate } from '../../platform/time/format.js';
import type { ServiceRow, TerminalRow } from './services.repo.js';

/** Service (and terminal) type codes of api.md; PAYGATE and PAYGATEAPM name our own processors. */
export const SERVICE_TYPES = [
  'EVOSNAP', 'MIT', 'CREDIBANCOECOMMERCE', 'REDSYSPSD2', 'CLEARHAUS', 'TRUSTPAYMENTS', 'CREDORAX', 'DLOCAL',
  'CECABANK', 'NIUBIZ', 'CYBERSOURCE', 'VIACASH', 'SAFETYPAY', 'NUVEI', 'FACILITAPAY', 'COFIDIS', 'WORLDPAY',
  'DECTA', 'DEVENGO', 'INESPAY', 'WALLETTO', 'PAYPAL', 'PAYMENTSWAY', 'FLOA', 'BKN301', 'SILVERFLOW', 'CHECKOUT',
  'EUPAGO', 'PAGSMILE', 'SIBS', 'PAYSHOP', 'PAYGATE', 'PAYGATEAPM',
] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** The REDSYS family: DCC settings, terminal codes and Bizum are theirs. */
export const REDSYS_FAMILY: readonly ServiceType[] = ['REDSYSPSD2'];
export const isRedsysFamily = (t: string) => (REDSYS_FAMILY as readonly string[]).includes(t);

export const DCC_MODES = ['LOCAL', 'FOREIGN', 'DYNAMIC'] as const;

interface CredentialRule {
  required: string[];
  optional: string[];
}

/** Terminal credentials for the types api.md shows. Other types take any flat object of strings. */
export const CREDENTIAL_RULES: Partial<Record<ServiceType, CredentialRule>> = {
  REDSYSPSD2: { required: ['key_secure', 'key_not_secure', 'terminal_secure', 'terminal_not_secure'], optional: ['signature_version'] },
  CREDORAX: {
    required: ['merchant_id', 'signing_api_key'],
    optional: ['sub_merchant_id', 'merchant_id_amex', 'signing_api_key_amex', 'target_mid_amex', 'sub_merchant_phone_amex'],
  },
};

export type Credentials = Record<string, string>;

/** Validates terminal credentials for a type; returns the normalised object or an error text. */
export function validateCredentials(type: string, input: unknown): { ok: Credentials | null } | { error: string } {
  if (input === undefined || input === null) {
    const rule = CREDENTIAL_RULES[type as ServiceType];
    if (rule && rule.required.length > 0) return { error: `credentials are required for ${type}: ${rule.required.join(', ')}` };
    return { ok: null };
  }
  if (typeof input !== 'object' || Array.isArray(input)) return { error: 'credentials must be an object' };
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > 50) return { error: 'credentials may have at most 50 keys' };
  const out: Credentials = {};
  for (const [k, v] of entries) {
    if (!/^[A-Za-z0-9_]{1,64}$/.test(k)) return { error: `credentials key "${k.slice(0, 64)}" is not valid` };
    if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (typeof v === 'string' && v.length <= 4096) out[k] = v;
    else return { error: `credentials.${k} must be a string` };
  }
  const rule = CREDENTIAL_RULES[type as ServiceType];
  if (rule) {
    const missing = rule.required.filter((k) => !out[k]);
    if (missing.length > 0) return { error: `credentials for ${type} are missing: ${missing.join(', ')}` };
    const allowed = new Set([...rule.required, ...rule.optional]);
    const unknown = Object.keys(out).filter((k) => !allowed.has(k));
    if (unknown.length > 0) return { error: `credentials for ${type} do not take: ${unknown.join(', ')}` };
  }
  return { ok: out };
}

/** Credentials as shown back: every value reduced to its last four characters. */
export function maskCredentials(creds: Credentials | null): Record<string, string> | null {
  if (!creds) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(creds)) out[k] = v.length > 8 ? `****${v.slice(-4)}` : '****';
  return out;
}

export function presentService(s: ServiceRow, serverTimezone: string) {
  return {
    uuid: s.id,
    name: s.name,
    type: s.type,
    enabled: s.enabled,
    terminal: s.terminal_id,
    created: formatContractDate(s.created_at, serverTimezone),
    dcc_allowed: s.dcc_allowed,
    dcc_mode: s.dcc_mode,
    dynamic_descriptor: s.dynamic_descriptor,
    referential_integrity: s.referential_integrity,
    mcc: s.mcc,
    status: s.enabled ? ('ACTIVE' as const) : ('PENDING' as const),
    bizum_enabled: s.bizum_enabled,
  };
}

/**
 * The acquirer a terminal type implies, for terminals created without `acquirer`: the bank or company
 * that acquires the card payments of that processor. Gateways that are their own acquirer (or whose
 * acquirer varies by contract) name themselves.
 */
export const ACQUIRER_OF_TYPE: Readonly<Record<ServiceType, string>> = {
  EVOSNAP: 'EVO PAYMENTS', MIT: 'MIT', CREDIBANCOECOMMERCE: 'CREDIBANCO', REDSYSPSD2: 'REDSYS', CLEARHAUS: 'CLEARHAUS',
  TRUSTPAYMENTS: 'TRUST PAYMENTS', CREDORAX: 'CREDORAX', DLOCAL: 'DLOCAL', CECABANK: 'CECABANK', NIUBIZ: 'NIUBIZ',
  CYBERSOURCE: 'CYBERSOURCE', VIACASH: 'VIACASH', SAFETYPAY: 'SAFETYPAY', NUVEI: 'NUVEI', FACILITAPAY: 'FACILITAPAY',
  COFIDIS: 'COFIDIS', WORLDPAY: 'WORLDPAY', DECTA: 'DECTA', DEVENGO: 'DEVENGO', INESPAY: 'INESPAY', WALLETTO: 'WALLETTO',
  PAYPAL: 'PAYPAL', PAYMENTSWAY: 'PAYMENTSWAY', FLOA: 'FLOA', BKN301: 'BKN301', SILVERFLOW: 'SILVERFLOW',
  CHECKOUT: 'CHECKOUT.COM', EUPAGO: 'EUPAGO', PAGSMILE: 'PAGSMILE', SIBS: 'SIBS', PAYSHOP: 'PAYSHOP',
  PAYGATE: 'PAYGATE', PAYGATEAPM: 'PAYGATE',
};

/** A terminal's acquirer: the one given at creation, or the one its type implies. */
export function acquirerOf(t: { acquirer: string | null; type: string }): string {
  return t.acquirer ?? ACQUIRER_OF_TYPE[t.type as ServiceType] ?? t.type;
}

export function presentTerminal(t: TerminalRow, clientName: string, serverTimezone: string) {
  return {
    uuid: t.id,
    client_uuid: t.merchant_id,
    client_name: clientName,
    type: t.type,
    code: t.code,
    currency_code: t.currency_code,
    dcc_allowed: t.dcc_allowed,
    is_cof_disabled_by_default: t.is_cof_disabled_by_default,
    description: t.description,
    created: formatContractDate(t.created_at, serverTimezone),
    acquirer: acquirerOf(t),
    credentials: t.credentials_masked,
  };
}
