/**
 * Use cases of the dashboard: sign-in and sessions for the D3 users, and the staff's actions, each one a
 * call to the same module service the merchant API calls (a refund here is the B12 refund), recorded in
 * the audit log. The dashboard holds no business rule of its own beyond who may do what (ROLES).
 *
 * The service is the core every part shares (dashboard.core.ts: the module services, the caller context,
 * roles, CSRF, the audit log) with its parts, a file each: sessions (sign-in, sessions, password reset),
 * two-factor, orders (the payments list, an order's actions, the bridge, live updates, saved views),
 * developers (API keys, deliveries, request log), team (users and audit) and the request log's store.
 */
import type { Platform } from '../../platform/index.js';
import { DashboardCore, type DashboardDeps } from './dashboard.core.js';
import { DashboardDevelopers } from './dashboard.developers.js';
import { DashboardOrders } from './dashboard.orders.js';
import { RequestLogStore } from './dashboard.request-log.js';
import { DashboardSessions, KNOWN_ADDRESS_MS } from './dashboard.sessions.js';
import { DashboardTeam } from './dashboard.team.js';
import { DashboardTwoFactor } from './dashboard.two-factor.js';
import * as repo from './dashboard.repo.js';

export type { Caller, DashboardDeps, DashFilters, DashSession } from './dashboard.core.js';

export class DashboardService extends DashboardCore {
  readonly requestLog: RequestLogStore;
  readonly twoFactor: DashboardTwoFactor;
  readonly sessions: DashboardSessions;
  readonly orders: DashboardOrders;
  readonly developers: DashboardDevelopers;
  readonly team: DashboardTeam;

  constructor(p: Platform, deps: DashboardDeps) {
    super(p, deps);
    this.requestLog = new RequestLogStore(p);
    this.twoFactor = new DashboardTwoFactor(this);
    this.sessions = new DashboardSessions(this, this.twoFactor);
    this.orders = new DashboardOrders(this, this.sessions);
    this.developers = new DashboardDevelopers(this, this.requestLog);
    this.team = new DashboardTeam(this);
  }

  // ---- background -----------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register('dashboard.purge', async () => {
      const dayAgo = new Date(this.p.clock.now().getTime() - 86400_000);
      await repo.purgeSessions(this.db, dayAgo);
      await repo.purgeFailures(this.db, dayAgo);
      await repo.purgeKnownAddresses(this.db, new Date(this.p.clock.now().getTime() - KNOWN_ADDRESS_MS));
    });
    this.p.jobs.every('dashboard.purge', 3600_000);
    // the API request log is kept PAYGATE_REQUEST_LOG_DAYS days
    this.p.jobs.register('request_logs.prune', async () => {
      await this.pruneRequestLogs();
    });
    this.p.jobs.every('request_logs.prune', 3600_000);
  }

  /** Deletes request log entries older than the retention; returns how many went. */
  async pruneRequestLogs(): Promise<number> {
    const before = new Date(this.p.clock.now().getTime() - this.p.config.requestLogDays * 86400_000);
    let total = 0;
    for (;;) {
      const n = await repo.pruneRequestLogs(this.db, before, 5000);
      total += n;
      if (n < 5000) return total;
    }
  }
}
