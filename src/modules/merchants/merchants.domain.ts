/** Pure rules of merchants (clients), keys and dashboard users. No IO. */
import { isValidTimezone } from '../../config/config.js';
import { formatContractDate } from '../../platform/time/format.js';
import type { Profile } from '../../platform/http/types.js';
import type { DashboardUserRow, MerchantRow } from './merchants.repo.js';

export const MERCHANT_CATEGORIES = [
  'ACCOUNTING_SERVICES', 'ADULT', 'ALCOHOL', 'CBD', 'CELL_PHONE_SALES', 'CHARITY', 'COMPUTING_AND_HARDWARE',
  'COMPUTING_SERVICES', 'CROWDFUNDING', 'CROWDLENDING', 'CRYPTO', 'CURRICULUMS', 'DATING_AND_SCORT_SERVICES',
  'E_COMMERCE', 'ELECTRONIC_CIGARETTE', 'EVENTS_SALES', 'FOREX_WITH_LICENSE', 'FOREX_WITHOUT_LICENSE',
  'GAMBLING_WITH_LICENSE', 'GAMBLING_WITHOUT_LICENSE', 'GAMING', 'HOSTING_SERVICES', 'HOTELS', 'JEWELRY',
  'LEGAL_SERVICES', 'MARKETPLACE', 'MOBILE_RECHARGE', 'MONEY_REMMITANCE', 'NUTRITION', 'PAYDAY_LOANS', 'TOBACCO',
  'TOUR_OPERATOR_OTAS', 'VOUCHERS', 'WALLETS',
] as const;
export type MerchantCategory = (typeof MERCHANT_CATEGORIES)[number];

export const USER_GROUPS = ['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'] as const;
export const USER_LANGUAGES = ['ES', 'EN', 'PT'] as const;
export const USER_ENVIRONMENTS = ['SANDBOX', 'PRODUCTION'] as const;

export const MCC_PATTERN = '^[0-9]{4}$';

export function checkTimezone(tz: string): string | null {
  return isValidTimezone(tz) ? null : `timezone must be an IANA timezone such as Europe/Madrid (got "${tz}")`;
}

/** The Merchant record of api.md. `api_key` and `signature` appear only when just issued. */
export function presentMerchant(
  m: MerchantRow,
  serverTimezone: string,
  opts: { apiKey?: string; signature?: string; services?: unknown[] | null } = {},
) {
  return {
    uuid: m.id,
    created: formatContractDate(m.created_at, serverTimezone),
    name: m.name,
    email: m.email,
    timezone: m.timezone,
    autorecover_transactions: m.autorecover_transactions,
    resend_failed_notifications: m.resend_failed_notifications,
    is_pci: m.is_pci,
    is_deleted: m.is_deleted,
    category: m.category,
    mcc: m.mcc,
    address: m.address,
    phone_number: m.phone_number,
    api_key: opts.apiKey ?? null,
    signature: opts.signature ?? null,
    services: opts.services ?? null,
  };
}

export function presentDashboardUser(u: DashboardUserRow, serverTimezone: string) {
  return {
    uuid: u.id,
    client_production: u.client_production_id,
    client_sandbox: u.client_sandbox_id,
    created: formatContractDate(u.created_at, serverTimezone),
    username: u.username,
    email: u.email,
    language: u.language,
    group: u.user_group,
    status: u.status,
  };
}

/** Normalises a profile list: `all` absorbs everything else; duplicates removed. */
export function normaliseProfiles(profiles: Profile[]): Profile[] {
  if (profiles.includes('all')) return ['all'];
  return [...new Set(profiles)];
}

/** The e-mail that gives a new dashboard user their credentials. */
export function credentialsEmail(u: { username: string; language: string }, password: string, dashboardUrl: string) {
  const texts: Record<string, { subject: string; body: string }> = {
    ES: {
      subject: 'Tus credenciales de paygate',
      body: `Hola,\n\nSe ha creado tu usuario de paygate.\n\nUsuario: ${u.username}\nContraseña: ${password}\n\nAccede en ${dashboardUrl} y cambia la contraseña al entrar.\n`,
    },
    EN: {
      subject: 'Your paygate credentials',
      body: `Hello,\n\nYour paygate user has been created.\n\nUsername: ${u.username}\nPassword: ${password}\n\nSign in at ${dashboardUrl} and change the password when you first log in.\n`,
    },
    PT: {
      subject: 'As suas credenciais paygate',
      body: `Olá,\n\nO seu utilizador paygate foi criado.\n\nUtilizador: ${u.username}\nPalavra-passe: ${password}\n\nEntre em ${dashboardUrl} e altere a palavra-passe no primeiro acesso.\n`,
    },
  };
  return texts[u.language] ?? texts.EN;
}
