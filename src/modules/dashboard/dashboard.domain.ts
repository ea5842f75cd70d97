/**
 * Pure rules of the dashboard (no IO): which merchant API operations its bridge reaches and with which
 * permission (the groups and their permissions are platform/security/permissions.ts), when a session
 * ends, when sign-ins lock, what a new password must be.
 */

import type { Permission } from '../../platform/security/permissions.js';

export { GROUPS, PERMISSIONS, ROLES, can, isGroup, permissionsOf, type Group, type Permission } from '../../platform/security/permissions.js';

/**
 * The merchant API's operations the dashboard reaches through its bridge (`/dashboard/api/v1/...`, the
 * same routes a key reaches), each with the permission it needs. An operation not here is refused
 * (403): the customer pages, the processors' callbacks, the device's own card-present calls, the
 * sandbox helpers, and every operation that takes card data (B3, B11 with card fields, F1, F2): the
 * dashboard never carries a card number; its virtual terminal uses the gateway's own card form.
 */
export const API_OPERATIONS: Readonly<Record<string, Permission>> = {
  // A: the key
  checkAuth: 'developers.read', listKeyProfiles: 'developers.read', listProfiles: 'developers.read',
  // B, C: payments and orders
  createOrder: 'manual.create', sendPaymentLink: 'manual.create', payDirect: 'manual.create', pushPayment: 'manual.create',
  payout: 'payouts.create',
  confirmOrder: 'payments.capture', cancelOrder: 'payments.capture', refundOrder: 'payments.refund',
  getOrder: 'payments.read', listTransactions: 'payments.read', expireOrder: 'payments.expire', setTransactionMetadata: 'payments.metadata',
  listEvents: 'payments.read', getEvent: 'payments.read', resendEvent: 'notifications.resend',
  // D: partners, services, terminals, the test clock
  createMerchant: 'settings.manage', promoteMerchant: 'settings.manage', createDashboardUser: 'users.manage',
  getTestClock: 'settings.manage', advanceTestClock: 'settings.manage', resetTestClock: 'settings.manage',
  listOwnServices: 'terminals.manage', listMerchantServices: 'terminals.manage', createService: 'terminals.manage', getService: 'terminals.manage',
  updateService: 'terminals.manage', createTerminal: 'terminals.manage', listApms: 'terminals.manage', getServiceApms: 'terminals.manage', setServiceApms: 'terminals.manage',
  getClientResources: 'terminals.manage',
  // E, F: customers and their sources (never a card number)
  createCustomer: 'customers.manage', getCustomer: 'cards.read', revokeCustomerToken: 'customers.manage',
  createCustomerAccount: 'customers.manage', updateCustomerAccount: 'customers.manage', deleteCustomerAccount: 'customers.manage', getCustomerAccount: 'cards.read',
  createCustomerAddress: 'customers.manage', updateCustomerAddress: 'customers.manage', deleteCustomerAddress: 'customers.manage', getCustomerAddress: 'cards.read',
  createCustomerProfile: 'customers.manage', updateCustomerProfile: 'customers.manage', getCustomerProfile: 'cards.read',
  revalidateCard: 'customers.manage', storeBankAccount: 'customers.manage', setSourceAdditional: 'customers.manage', changeSourceOwner: 'customers.manage',
  getSourceByType: 'cards.read', getSource: 'cards.read', deleteSource: 'customers.manage', listCustomerSources: 'cards.read', listCustomerCards: 'cards.read',
  listCustomerDynamicCards: 'cards.read', listCustomerBanks: 'cards.read', listCustomerPaypals: 'cards.read', verifySourceHolder: 'customers.manage',
  // configuration: templates, checkouts, page settings, wallets
  createTemplate: 'settings.manage', listTemplates: 'settings.manage', getTemplate: 'settings.manage', updateTemplate: 'settings.manage', deleteTemplate: 'settings.manage',
  getPageSettings: 'settings.manage', updatePageSettings: 'settings.manage',
  createCheckout: 'settings.manage', listCheckouts: 'settings.manage', getCheckout: 'settings.manage', updateCheckout: 'settings.manage', deleteCheckout: 'settings.manage',
  getWallets: 'settings.manage', createGooglePayKey: 'settings.manage', importApplePayCertificate: 'settings.manage', getServiceWallets: 'settings.manage', setServiceWallets: 'settings.manage',
  // L: risk
  createSecurityList: 'risk.manage', listSecurityLists: 'risk.read', getSecurityList: 'risk.read', deleteSecurityList: 'risk.manage', enableSecurityList: 'risk.manage',
  linkSecurityListService: 'risk.manage', unlinkSecurityListService: 'risk.manage', addSecurityListItems: 'risk.manage', removeSecurityListItems: 'risk.manage',
  listSecurityListItems: 'risk.read', getAntifraudRules: 'risk.read', putAntifraudRules: 'risk.manage',
  // G: MoTo campaigns
  createCampaignFromFile: 'moto.create', createCampaign: 'moto.create', getCampaign: 'moto.read', listCampaignOrders: 'moto.read',
  getOpeningCertificate: 'moto.read', getReceiptCertificate: 'moto.read', getCertificatePublicKey: 'moto.read',
  // H: batch files
  submitBatchAuthorizations: 'batch.create', submitBatchRefunds: 'batch.create', getBatch: 'batch.read', getBatchResults: 'batch.read',
  // I: subscriptions
  createSubscriptionCompany: 'subscriptions.manage', getSubscriptionCompany: 'subscriptions.read', createSubscriptionProduct: 'subscriptions.manage',
  listSubscriptionProducts: 'subscriptions.read', getSubscriptionProduct: 'subscriptions.read', deleteSubscriptionProduct: 'subscriptions.manage',
  getSubscriptionPayment: 'subscriptions.read', listSubscriptionPayments: 'subscriptions.read', createSubscriptionPlan: 'subscriptions.manage',
  listSubscriptionPlans: 'subscriptions.read', getSubscriptionPlan: 'subscriptions.read', deleteSubscriptionPlan: 'subscriptions.manage',
  subscribeCustomer: 'subscriptions.manage', listSubscriptions: 'subscriptions.read', getSubscription: 'subscriptions.read', cancelSubscription: 'subscriptions.manage',
  // J: devices
  registerDevice: 'terminals.manage', listDevices: 'devices.read', getDevice: 'devices.read', setDeviceEnabled: 'terminals.manage', rotateDeviceToken: 'terminals.manage',
  sendDevicePayment: 'devices.operate', sendDevicePreauthorization: 'devices.operate', sendDeviceConfirmation: 'payments.capture', sendDeviceCancellation: 'payments.capture',
  sendDeviceRefund: 'payments.refund',
  // reconciliation (ours)
  importSettlementReport: 'reconciliation.import', fetchSettlementReport: 'reconciliation.import', importBankStatement: 'reconciliation.import',
  listSettlementReports: 'reconciliation.read', getSettlementReport: 'reconciliation.read', listReconciliationItems: 'reconciliation.read',
  exportReconciliationItems: 'reconciliation.read', getReconciliationSummary: 'reconciliation.read', listPayouts: 'reconciliation.read', exportPayouts: 'reconciliation.read',
  listBankStatements: 'reconciliation.read',
  // disputes (ours; the sandbox's trigger is a sandbox helper: not bridged)
  listDisputes: 'disputes.read', getDispute: 'disputes.read', getDisputeDocument: 'disputes.read', getDisputeRatios: 'disputes.read', getDisputeSettings: 'disputes.read',
  createDispute: 'disputes.respond', addDisputeEvidence: 'disputes.respond', submitDispute: 'disputes.respond', acceptDispute: 'disputes.respond', importDisputes: 'disputes.respond',
  updateDisputeSettings: 'settings.manage',
  // routing (ours): trying a profile stores nothing, so it is a read; the bridge refuses a card number, so
  // the dashboard tries a BIN
  listRoutingProfiles: 'routing.read', getRoutingProfile: 'routing.read', testRoutingProfile: 'routing.read', getRoutingHealth: 'routing.read',
  createRoutingProfile: 'routing.manage', replaceRoutingProfile: 'routing.manage', deleteRoutingProfile: 'routing.manage',
};

// ---- sessions ------------------------------------------------------------------------------------------

/** How far a sign-in went. Only ACTIVE sessions reach the dashboard; the others finish the sign-in. */
export type Stage = 'PASSWORD_CHANGE' | 'TOTP' | 'ACTIVE';

export interface SessionTimes {
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ended_at: Date | null;
}

export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

/** Why a session can no longer be used, or null while it can. */
export function sessionEnd(s: SessionTimes, now: Date, limits: SessionLimits): 'ENDED' | 'IDLE' | 'EXPIRED' | null {
  if (s.ended_at) return 'ENDED';
  if (now.getTime() >= s.expires_at.getTime() || now.getTime() - s.created_at.getTime() >= limits.absoluteMs) return 'EXPIRED';
  if (now.getTime() - s.last_seen_at.getTime() >= limits.idleMs) return 'IDLE';
  return null;
}

/** The stage a session starts in after the password was right. */
export function stageAfterPassword(user: { must_change_password: boolean; totp_enabled_at: Date | null }): Stage {
  if (user.totp_enabled_at) return 'TOTP';
  if (user.must_change_password) return 'PASSWORD_CHANGE';
  return 'ACTIVE';
}

/** The stage after the second factor was right. */
export function stageAfterTotp(user: { must_change_password: boolean }): Stage {
  return user.must_change_password ? 'PASSWORD_CHANGE' : 'ACTIVE';
}

// ---- sign-in throttling --------------------------------------------------------------------------------

export interface FailureState {
  failures: number;
  window_started_at: Date;
  locked_until: Date | null;
  /** a user's count from every address: addresses the user never signed in from wait until then */
  slowed_until?: Date | null;
}

export interface LockoutPolicy {
  /** failures before the key locks */
  limit: number;
  /** the window failures are counted in, and how long a lock lasts */
  windowMs: number;
}

/** The longest a new address waits between two tries at a user under attack. */
export const SLOWDOWN_MAX_MS = 60_000;

/**
 * The keys a sign-in is counted under. `subject` is the user (`user:<uuid>`), or the name typed when it
 * names no user (`name:<login>`, so that an unknown name behaves exactly as a user does and a name tried
 * before its user exists never locks that user). `pair` is the subject from one address: what locks.
 */
export function signInKeys(subject: string, ip: string | null): { pair: string; subject: string; address: string } {
  const at = ip ?? 'unknown';
  return { pair: `pair:${subject}@${at}`, subject, address: `ip:${at}` };
}

/** Seconds until a key may try again (0: it may now). */
export function lockedForSeconds(state: FailureState | undefined, now: Date): number {
  if (!state?.locked_until) return 0;
  const ms = state.locked_until.getTime() - now.getTime();
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}

/** The state after one more failure: counted in its window, locked when the limit is reached. */
export function afterFailure(state: FailureState | undefined, now: Date, policy: LockoutPolicy): FailureState {
  const fresh = !state || now.getTime() - state.window_started_at.getTime() >= policy.windowMs || (state.locked_until !== null && state.locked_until.getTime() <= now.getTime());
  const failures = fresh ? 1 : state!.failures + 1;
  const window_started_at = fresh ? now : state!.window_started_at;
  const locked_until = failures >= policy.limit ? new Date(now.getTime() + policy.windowMs) : null;
  return { failures, window_started_at, locked_until };
}

/**
 * A user's failures from every address after one more: never a lock (failures elsewhere must not keep a
 * user out), but past the limit a new address waits before its next try, 1 s doubling with each failure
 * up to SLOWDOWN_MAX_MS (NIST SP 800-63B 5.2.2: waits that grow, addresses the user signed in from let
 * through).
 */
export function afterUserFailure(state: FailureState | undefined, now: Date, policy: LockoutPolicy): FailureState {
  const fresh = !state || now.getTime() - state.window_started_at.getTime() >= policy.windowMs;
  const failures = fresh ? 1 : state!.failures + 1;
  const over = failures - policy.limit;
  const slowed_until = over >= 0 ? new Date(now.getTime() + Math.min(1000 * 2 ** Math.min(over, 30), SLOWDOWN_MAX_MS)) : null;
  return { failures, window_started_at: fresh ? now : state!.window_started_at, locked_until: null, slowed_until };
}

/** Why a sign-in is refused before its password is looked at, and for how many seconds; null: it is not. */
export function signInRefusal(
  states: { pair?: FailureState; subject?: FailureState; address?: FailureState },
  knownAddress: boolean,
  now: Date,
): { by: 'address' | 'pair' | 'slow'; seconds: number } | null {
  const address = lockedForSeconds(states.address, now);
  if (address > 0) return { by: 'address', seconds: address };
  const pair = lockedForSeconds(states.pair, now);
  if (pair > 0) return { by: 'pair', seconds: pair };
  const slowMs = !knownAddress && states.subject?.slowed_until ? states.subject.slowed_until.getTime() - now.getTime() : 0;
  if (slowMs > 0) return { by: 'slow', seconds: Math.ceil(slowMs / 1000) };
  return null;
}

// ---- passwords -----------------------------------------------------------------------------------------

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/** The letters and digits of a password, lowercased, with what is added around a word left out. */
function stem(password: string): string {
  return password.toLowerCase().replace(/^[^a-z]+/, '').replace(/[^a-z]+$/, '');
}

/** Each character one after the other: `abcdefghijkl`, `987654321098` (digits wrap). */
function sequential(password: string): boolean {
  const codes = [...password.toLowerCase()].map((c) => c.codePointAt(0)!);
  if (codes.length < 3) return false;
  const step = (a: number, b: number) => {
    const d = b - a;
    if (a >= 48 && a <= 57 && b >= 48 && b <= 57 && Math.abs(d) === 9) return -Math.sign(d);
    return d;
  };
  const first = step(codes[0], codes[1]);
  return Math.abs(first) === 1 && codes.slice(1).every((c, i) => step(codes[i], c) === first);
}

/**
 * What is wrong with a new password, or null (NIST SP 800-63B 5.1.1.2): long enough; not a password of
 * `common` (lists of passwords seen in breaches), nor one of them with digits or signs added around it;
 * not one character or one group of characters repeated (`abababababab`), nor a run (`abcdefghijkl`);
 * not the username, the e-mail or the service's name.
 */
export function passwordProblem(password: string, user: { username: string; email: string }, common: ReadonlySet<string>): string | null {
  if ([...password].length < PASSWORD_MIN) return `The new password must have at least ${PASSWORD_MIN} characters`;
  if ([...password].length > PASSWORD_MAX) return `The new password must have at most ${PASSWORD_MAX} characters`;
  const lower = password.toLowerCase();
  const local = user.email.toLowerCase().split('@')[0] ?? '';
  if (lower.includes(user.username.toLowerCase()) || lower === user.email.toLowerCase() || (local.length >= 4 && lower.includes(local))) return 'The new password must not contain the username or the e-mail';
  if (/^(.+?)\1+$/su.test(password)) return 'The new password must not be one character or one group of characters repeated';
  if (sequential(password)) return 'The new password must not be a run of characters (abcdef…, 123456…)';
  const core = stem(password);
  if (common.has(lower) || common.has(lower.replace(/\s+/g, '')) || (core.length >= 4 && common.has(core)) || core === 'paygate') {
    return 'This password is one of the most common ones (it is in lists of passwords seen in breaches): choose another, a few unrelated words make a good one';
  }
  return null;
}

// ---- environments ---------------------------------------------------------------------------------------

export type Env = 'sandbox' | 'production';

/** The user's own merchant of an environment (its D3 twins), or null when the user has none there. */
export function twinOf(user: { client_sandbox_id: string | null; client_production_id: string | null }, env: Env): string | null {
  return env === 'sandbox' ? user.client_sandbox_id : user.client_production_id;
}

/** The environment a user lands in: production when the user has it, else sandbox. */
export function defaultEnv(user: { client_sandbox_id: string | null; client_production_id: string | null }): Env {
  return user.client_production_id ? 'production' : 'sandbox';
}

export const LANGUAGES = ['ES', 'EN', 'PT'] as const;
export type Language = (typeof LANGUAGES)[number];
