/**
 * What every part of the dashboard's service shares: the platform and the module services it calls
 * (through their index.ts), the caller context of the merchant looked at, who may do what (ROLES), the
 * CSRF token of a session, and the audit log. The parts (sessions, account, orders, developers, team)
 * each take this core; DashboardService (dashboard.service.ts) is the core with its parts.
 */
import type { Platform } from '../../platform/index.js';
import type { Executor } from '../../platform/db/database.js';
import { forbidden } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { safeEqual } from '../../platform/security/hashing.js';
import { redactPans, redactValue } from '../../platform/http/request-log.js';
import type { MerchantsService, DashboardUserRow } from '../merchants/index.js';
import type { PaymentsService, OrderFilters } from '../payments/index.js';
import type { EventsService } from '../events/index.js';
import type { CustomersService } from '../customers/index.js';
import type { SourcesService } from '../sources/index.js';
import type { CampaignsService } from '../campaigns/index.js';
import type { BatchService } from '../batch/index.js';
import type { SubscriptionsService } from '../subscriptions/index.js';
import type { CardPresentService, DevicesService } from '../devices/index.js';
import type { RiskService } from '../risk/index.js';
import type { ServicesService } from '../services/index.js';
import type { TemplatesService } from '../templates/index.js';
import type { CheckoutsService } from '../checkouts/index.js';
import type { WalletsService } from '../wallets/index.js';
import type { DccService } from '../dcc/index.js';
import type { TerminalService } from '../terminal/index.js';
import type { ReconciliationService } from '../reconciliation/index.js';
import type { RoutingService } from '../routing/index.js';
import { can, type Env, type Permission } from './dashboard.domain.js';
import * as repo from './dashboard.repo.js';

export interface DashboardDeps {
  merchants: MerchantsService;
  payments: PaymentsService;
  events: EventsService;
  /** the modules the dashboard's areas read through (lists the API has no operation for) */
  customers: CustomersService;
  sources: SourcesService;
  campaigns: CampaignsService;
  batch: BatchService;
  subscriptions: SubscriptionsService;
  devices: DevicesService;
  cardPresent: CardPresentService;
  risk: RiskService;
  services: ServicesService;
  templates: TemplatesService;
  checkouts: CheckoutsService;
  wallets: WalletsService;
  dcc: DccService;
  /** the virtual terminal's one-time card forms (the terminal area) */
  terminal: TerminalService;
  /** reconciliation: the services whose connector gives settlement reports (the reconciliation area) */
  reconciliation: ReconciliationService;
  /** routing: the profiles in short (the routing area) */
  routing: RoutingService;
}

/** What a request of a signed-in user carries. */
export interface DashSession {
  tokenHash: string;
  session: repo.SessionRow;
  user: DashboardUserRow;
  /** the merchant looked at, and its environment */
  merchantId: string;
  env: Env;
  ip: string | null;
}

/** The payments list's filters: the search's, plus the customer's e-mail (found in the customers' profiles). */
export type DashFilters = Omit<OrderFilters, 'customers_in'> & { email?: string };

export interface Caller {
  ip: string | null;
  userAgent: string | null;
}

export class DashboardCore {
  constructor(
    readonly p: Platform,
    readonly deps: DashboardDeps,
  ) {}

  get db() {
    return this.p.database.db;
  }

  get limits() {
    return { idleMs: this.p.config.dashboardIdleMinutes * 60_000, absoluteMs: this.p.config.dashboardSessionMinutes * 60_000 };
  }

  /** The CSRF token of a session: derived from its secret token, so it needs no storage. */
  csrfOf(token: string): string {
    return this.p.vault.fingerprint('dashboard-csrf', token);
  }

  /** Throws 403 unless the user's group may do `permission`. */
  authorize(s: DashSession, permission: Permission): void {
    if (!can(s.user.user_group, permission)) {
      throw forbidden(`Your group (${s.user.user_group}) may not do this (${permission})`);
    }
  }

  /** Checks a change's CSRF token against the session's, in constant time. */
  checkCsrf(token: string, given: string | undefined): void {
    if (!given || !safeEqual(given, this.csrfOf(token))) {
      throw forbidden('The request lacks the dashboard\'s CSRF token (X-CSRF-Token): reload the page');
    }
  }

  /** The caller context of the merchant looked at: what the API's services take. */
  ctx(s: DashSession): Promise<RequestContext> {
    return this.deps.merchants.dashboardContext(s.merchantId);
  }

  /** The merchant looked at and its children (whose users and audit a manager sees). */
  scope(s: DashSession): Promise<string[]> {
    return this.deps.merchants.selfAndDescendantIds(this.db, s.merchantId);
  }

  /** A staff change made by an area's route, in the audit log (who, what, on what, from where). */
  async auditAction(s: DashSession, action: string, target: string | null, details: Record<string, unknown> | null): Promise<void> {
    await this.writeAudit(s.user, s.merchantId, action, target, details, s.ip);
  }

  /** An entry of the audit log. */
  async writeAudit(user: DashboardUserRow | null, merchantId: string | null, action: string, target: string | null, details: Record<string, unknown> | null, ip: string | null, db: Executor = this.db) {
    await repo.insertAudit(db, {
      merchant_id: merchantId,
      user_id: user?.id ?? null,
      username: user?.username ?? null,
      action,
      // what staff typed (a name at sign-in, the filters of an export) is kept without card numbers
      target: target === null ? null : redactPans(target.slice(0, 200)),
      details: details === null ? null : (redactValue(details) as Record<string, unknown>),
      ip,
      created_at: this.p.clock.now(),
    });
  }
}
