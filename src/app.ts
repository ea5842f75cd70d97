/**
 * buildApp: the platform plugins, then every module, in one readable list.
 */
import fs from 'node:fs';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { sql } from 'kysely';
import type { Platform } from './platform/index.js';
import { requestLine, wantsPretty } from './platform/logging.js';
import { IdempotencyStore } from './platform/http/idempotency.js';
import { finishDocument, openapiDefinition } from './platform/http/openapi.js';
import { formatSchemaErrors, installPlatform, registerApi } from './platform/http/platform.js';
import { limiterFromConfig, type Limiter } from './platform/http/rate-limit.js';
import { installRequestLog } from './platform/http/request-log.js';
import { MerchantsService, merchantsRoutes } from './modules/merchants/index.js';
import { ServicesService, servicesRoutes } from './modules/services/index.js';
import { CustomersService, customersRoutes } from './modules/customers/index.js';
import { SourcesService, sourcesRoutes } from './modules/sources/index.js';
import { PaymentsService, callbacksRoutes, paymentsRoutes } from './modules/payments/index.js';
import { EventsService, eventsRoutes } from './modules/events/index.js';
import { TemplatesService, templatesRoutes } from './modules/templates/index.js';
import { PLAIN_PAGE, PagesService, pagesRoutes, widgetRoutes } from './modules/pages/index.js';
import { LinksService, LogSmsProvider, linksRoutes } from './modules/links/index.js';
import { CheckoutsService, checkoutsRoutes } from './modules/checkouts/index.js';
import { RiskService, riskRoutes } from './modules/risk/index.js';
import { CardPresentService, DevicesService, cardPresentRoutes, devicesRoutes, installDeviceSocket } from './modules/devices/index.js';
import { CampaignsService, campaignsRoutes } from './modules/campaigns/index.js';
import { BatchService, batchRoutes } from './modules/batch/index.js';
import { SubscriptionsService, subscriptionsRoutes } from './modules/subscriptions/index.js';
import { PaymentMethodsService, paymentMethodsRoutes } from './modules/payment-methods/index.js';
import { WalletsService, walletsRoutes } from './modules/wallets/index.js';
import { DccService } from './modules/dcc/index.js';
import { DashboardService, installDashboardApi, installDashboardApp } from './modules/dashboard/index.js';
import { TerminalService, terminalFormRoutes } from './modules/terminal/index.js';
import { ReconciliationService, reconciliationRoutes } from './modules/reconciliation/index.js';
import { DisputesService, disputesRoutes } from './modules/disputes/index.js';
import { PaymentRouting, RoutingService, routingRoutes } from './modules/routing/index.js';
import { readMigrations } from './platform/db/migrate.js';
import { databaseAnswers, databaseState } from './platform/db/database.js';
import { OutageLog } from './platform/db/outage.js';
import { unavailable } from './platform/errors/errors.js';
import { rewrapAll } from './platform/security/rotation.js';
import { ProcessorRegistry } from './processors/index.js';
import { CONNECTORS, type AnyConnectorDeclaration } from './processors/connectors.js';
import type { DeclaredConnector } from './processors/kit/declaration.js';
import { OutgoingClient, OutgoingPolicy } from './platform/net/outgoing.js';

export interface Modules {
  processors: ProcessorRegistry;
  merchants: MerchantsService;
  services: ServicesService;
  customers: CustomersService;
  sources: SourcesService;
  events: EventsService;
  payments: PaymentsService;
  templates: TemplatesService;
  pages: PagesService;
  links: LinksService;
  checkouts: CheckoutsService;
  risk: RiskService;
  devices: DevicesService;
  cardPresent: CardPresentService;
  campaigns: CampaignsService;
  batch: BatchService;
  subscriptions: SubscriptionsService;
  paymentMethods: PaymentMethodsService;
  wallets: WalletsService;
  dcc: DccService;
  terminal: TerminalService;
  reconciliation: ReconciliationService;
  disputes: DisputesService;
  routing: RoutingService;
  dashboard: DashboardService;
  idempotency: IdempotencyStore;
}

/** Builds the business modules on a platform (also used by the CLI, without HTTP). */
export function buildModules(p: Platform): Modules {
  const processors = new ProcessorRegistry({
    timeoutMs: p.config.processorTimeoutMs,
    simulatorLatencyMs: p.config.simulatorLatencyMs,
    productionSimulator: p.config.productionSimulator,
    simulatorUrl: p.config.simulatorUrl,
    logger: p.logger,
    // a synchronous standby required: nothing is sent to a processor unless the step's record will
    // survive a failover (db/durability.ts)
    beforeMoneyCall: p.durability.required
      ? async () => {
          const problem = await p.durability.check();
          if (problem) throw unavailable(`Nothing was sent to the processor: ${problem}. Retry later with the same Idempotency-Key`);
        }
      : undefined,
  });
  const merchants = new MerchantsService(p);
  const services = new ServicesService(p, merchants);
  // the sandbox simulator reads each service's behaviour through the services module (processors import no module)
  processors.useSandboxBehaviours(services.sandboxBehaviours.lookup);
  registerConnectors(p, processors, services);
  const customers = new CustomersService(p);
  // risk screens cards before sources stores them, and reads stored cards: built right after sources
  let risk: RiskService | null = null;
  const sources = new SourcesService(p, {
    processors,
    services,
    screenCard: (db, owner, card) => risk!.assertTokenizable(db, owner, card),
    isBlacklisted: (owner, cards) => risk!.blacklistCheck(owner, cards),
  });
  risk = new RiskService(p, { sources });
  const events = new EventsService(p, merchants);
  // B15 payouts with an APM ask which APMs a service offers (the payment-methods module, built on payments)
  let paymentMethods: PaymentMethodsService | null = null;
  // routing profiles choose the service of each card payment attempt (the routing module, built below)
  let paymentRouting: PaymentRouting | null = null;
  const payments = new PaymentsService(p, {
    merchants, sources, processors, events, risk,
    apms: { offered: (serviceId) => paymentMethods!.offered(serviceId) },
    routing: {
      route: (facts, db) => paymentRouting!.route(facts, db),
      cascadeAllowed: (failure) => paymentRouting!.cascadeAllowed(failure),
      record: (serviceId, outcome, ms) => paymentRouting!.record(serviceId, outcome, ms),
    },
  });
  const templates = new TemplatesService(p);
  paymentMethods = new PaymentMethodsService(p, { payments, services });
  const wallets = new WalletsService(p, { payments, services, merchants });
  const checkouts = new CheckoutsService(p, { services, wallets: (owner) => wallets.availability(owner) });
  const dcc = new DccService(p, { processors });
  const pages = new PagesService(p, { payments, merchants, templates, checkouts, customers, sources, paymentMethods, wallets, dcc });
  const links = new LinksService(p, { payments, merchants, templates, sms: new LogSmsProvider(p.logger) });
  const campaigns = new CampaignsService(p, { payments, merchants, links });
  const batch = new BatchService(p, { payments, merchants, sources });
  const subscriptions = new SubscriptionsService(p, { payments, merchants, events });
  const devices = new DevicesService(p, { payments, merchants });
  const cardPresent = new CardPresentService(p, { payments, merchants, devices });
  const terminal = new TerminalService(p, { payments, merchants });
  const reconciliation = new ReconciliationService(p, { processors });
  const disputes = new DisputesService(p, { payments, events, merchants, processors });
  processors.onDispute = (connector, notice, payment) => disputes.fromConnector(connector, notice, payment);
  const routing = new RoutingService(p, { events });
  paymentRouting = new PaymentRouting(routing, () => p.database.db, p.config.cacheTtlMs);
  const dashboard = new DashboardService(p, { merchants, payments, events, customers, sources, campaigns, batch, subscriptions, devices, cardPresent, risk, services, templates, checkouts, wallets, dcc, terminal, reconciliation, routing });
  const idempotency = new IdempotencyStore(p.database, () => p.clock.now(), p.config.idempotencyLockMs);
  return { processors, merchants, services, customers, sources, events, payments, templates, pages, links, checkouts, risk, paymentMethods, wallets, dcc, campaigns, batch, subscriptions, devices, cardPresent, terminal, reconciliation, disputes, routing, dashboard, idempotency };
}

/**
 * The production connectors (src/processors/connectors.ts), each registered for its service types and
 * pointed at its `PAYGATE_<NAME>_URL`. Their HTTP client is the gateway's outgoing client, allowed to
 * reach exactly the configured provider hosts (the operator named them) besides what
 * PAYGATE_OUTGOING_ALLOW allows. The services module tests a production terminal's credentials through
 * the connector of its type.
 */
function registerConnectors(p: Platform, processors: ProcessorRegistry, services: ServicesService): void {
  const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');
  const urls = p.config.connectorUrls;
  const http = new OutgoingClient({ policy: new OutgoingPolicy({ allow: [...p.config.outgoingAllow, ...CONNECTORS.map((c) => hostOf(urls[c.name]))], sandboxLoopback: false }) });
  const created = new Map<string, { connector: DeclaredConnector<unknown>; decl: AnyConnectorDeclaration }>();
  for (const decl of CONNECTORS) {
    const connector = decl.create({
      baseUrl: urls[decl.name],
      http,
      db: () => p.database.db,
      terminals: async (ref) => {
        const t = await services.processorTerminal(ref);
        return decl.credentials.open(t?.code ?? null, t?.credentials ?? null);
      },
      // the HTTP deadline falls just inside the registry's deadline around the whole call
      timeoutMs: Math.max(10, p.config.processorTimeoutMs - 100),
      logger: p.logger.child({ connector: decl.name }),
      fingerprint: (pan) => p.vault.fingerprint('pan', pan),
      publicUrl: p.config.publicUrl,
      // where the provider posts its notifications
      notificationUrl: decl.notifications ? `${p.config.publicUrl}/v1/processor/${decl.name}/${decl.notifications.via === 'form' ? 'notification' : 'webhook'}` : null,
    });
    for (const type of decl.serviceTypes) {
      processors.register(type, connector);
      created.set(type, { connector, decl });
    }
  }
  services.credentialTester = async (type, code, credentials, currency) => {
    const c = created.get(type);
    if (!c) return null;
    try {
      return await c.connector.testCredentials(c.decl.credentials.open(code, credentials), currency);
    } catch (err) {
      return [(err as Error).message];
    }
  };
}

/** Registers the background jobs of every module. */
export function registerJobs(p: Platform, m: Modules): void {
  p.mailer.registerJobs();
  m.sources.api.registerJobs();
  m.events.registerJobs();
  m.payments.registerJobs();
  m.pages.registerJobs();
  m.dcc.registerJobs();
  m.risk.registerJobs();
  m.devices.registerJobs();
  m.campaigns.registerJobs();
  m.batch.registerJobs();
  m.subscriptions.registerJobs();
  m.wallets.registerJobs();
  m.dashboard.registerJobs();
  m.disputes.registerJobs();
  p.jobs.register('idempotency.purge', async () => {
    await m.idempotency.purge();
  });
  p.jobs.every('idempotency.purge', 3600_000);
  p.jobs.register('jobs.purge', async () => {
    // finished jobs are kept a week for inspection
    await sql`delete from jobs where status in ('done', 'failed') and finished_at < ${new Date(p.clock.now().getTime() - 7 * 86400_000)}`.execute(p.database.db);
  });
  p.jobs.every('jobs.purge', 3600_000);
  // Vault rotation in a running gateway: when the key ring gains a new active key (the key file was
  // rotated) every sealed value is re-wrapped in the background; hourly as a safety net.
  p.jobs.register('vault.rewrap', async () => {
    const report = await rewrapAll(p.database, p.vault);
    if (report.total > 0) p.logger.info({ active_key: report.activeKeyId, rewrapped: report.rewrapped }, 'vault: sealed values re-wrapped');
    if (Object.keys(report.failed).length > 0) p.logger.warn({ failed: report.failed }, 'vault: some sealed values could not be re-wrapped');
  });
  p.jobs.every('vault.rewrap', 3600_000);
  p.vault.onActiveKeyChange((kid) => {
    p.logger.info({ active_key: kid }, 'vault: new active key');
    p.jobs.enqueue(p.database.db, { queue: 'vault.rewrap', dedupeKey: 'rotation', maxAttempts: 3 }).catch((err) => p.logger.error({ err }, 'vault: could not queue the re-wrap'));
  });
}

export interface BuildOptions {
  /** Extra Fastify options (https, ...). */
  server?: Partial<FastifyServerOptions> & { https?: { key: Buffer; cert: Buffer } | null };
  /** The rate limiter (default: from the configuration, Redis when PAYGATE_REDIS_URL is set). */
  limiter?: Limiter;
  /** Called with the app before the routes are registered (tests add contract checks here). */
  instrument?: (app: FastifyInstance) => void;
  /** One log line per request (`POST /v1/sandbox/payment 200 12 ms <id>`); default: when the logs go to a terminal. */
  consoleLines?: boolean;
}

export async function buildApp(p: Platform, m: Modules = buildModules(p), opts: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = p;
  const consoleLines = opts.consoleLines ?? wantsPretty(config.logFormat);
  const app = Fastify({
    loggerInstance: p.logger,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    genReqId: () => crypto.randomUUID(),
    // on a terminal one line per request (below); JSON logs keep Fastify's request records
    logController: new LogController({ disableRequestLogging: consoleLines }),
    schemaErrorFormatter: formatSchemaErrors,
    ...(opts.server as object),
  }) as unknown as FastifyInstance;

  const limiter = opts.limiter ?? (await limiterFromConfig(config, p.logger));
  if (!opts.limiter && limiter.close) app.addHook('onClose', async () => limiter.close!());
  // a database outage is logged once, and its end once (not one line per request answered 503)
  const outage = new OutageLog({ logger: app.log, probe: () => databaseAnswers(p.database, 1000) });
  app.addHook('onClose', async () => outage.stop());
  installPlatform(app, {
    timezone: config.timezone,
    bodyLimit: config.bodyLimit,
    clock: p.clock,
    vault: p.vault,
    resolveKey: m.merchants.resolveKey,
    rateLimiter: limiter,
    rateLimits: { production: config.rateLimitProduction, sandbox: config.rateLimitSandbox },
    unknownKeyRateLimit: config.rateLimitUnknownKey,
    idempotency: m.idempotency,
    sandboxHttpAnyAddress: config.sandboxHttpAnyAddress,
    outage,
    durability: p.durability,
  });

  opts.instrument?.(app);
  // ---- the API request log (redacted bodies) the dashboard's developers section shows ----------------
  if (config.requestLog) {
    installRequestLog(app, m.dashboard.requestLog, () => p.clock.now());
    app.addHook('onClose', async () => m.dashboard.requestLog.flush());
  }

  // ---- security headers on every answer ------------------------------------------------------------
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    // HSTS only over TLS (directly, or from a trusted proxy that says so)
    if (req.protocol === 'https' && !reply.hasHeader('Strict-Transport-Security')) reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    if ((req.url === '/docs' || req.url.startsWith('/docs/') || req.url.startsWith('/docs?')) && !reply.hasHeader('Content-Security-Policy')) {
      reply.header('Content-Security-Policy', DOCS_CSP);
      reply.header('X-Frame-Options', 'DENY');
    }
    return payload;
  });

  if (consoleLines) app.addHook('onResponse', async (req, reply) => req.log.info(requestLine(req, reply.statusCode, reply.elapsedTime)));

  app.addHook('onResponse', async (req, reply) => {
    p.metrics.httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unknown', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(swagger, {
    openapi: openapiDefinition({ publicUrl: config.publicUrl }) as any,
    transform: ({ schema, url, route }) => {
      const env = route.config?.env;
      if (env === 'sandbox') return { schema: { ...schema, hide: true } as any, url };
      if (env === 'production') return { schema, url: url.replace(/^\/v1/, '') || '/' };
      return { schema: { ...schema, hide: true } as any, url };
    },
    transformObject: ((documentObject: { openapiObject: Record<string, any> }) => finishDocument(documentObject.openapiObject)) as any,
  });
  // The API reference: Scalar, served with its bundled script (no request leaves the gateway), reading
  // the document above, with the sandbox server first and the API key as Basic or Bearer. Loaded here
  // rather than at the top (a 4 MB module) so the CLI, which builds modules but no app, does not pay for it.
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      pageTitle: 'paygate API reference',
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      defaultOpenAllTags: false,
      authentication: { preferredSecurityScheme: 'basicAuth' },
    } as any,
  });

  // ---- the front door: where the documentation is ------------------------------------------------
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    const links = { docs: '/docs', openapi: '/openapi.json', production: '/v1', sandbox: '/v1/sandbox' };
    if (/\btext\/html\b/i.test(String(req.headers.accept ?? ''))) {
      return reply.type('text/html; charset=utf-8').header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'").send(frontPage());
    }
    return { name: 'paygate', description: 'Self-hosted payment gateway', ...links };
  });

  // ---- operations --------------------------------------------------------------------------------
  // liveness: the process runs (never touches the database, so an orchestrator does not restart a
  // healthy process because PostgreSQL is away)
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // readiness: 200 only while the database answers (within the connect timeout), takes writes (the
  // primary, with its synchronous standbys) and is migrated
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    reply.header('Cache-Control', 'no-store');
    const state = await databaseState(p.database, config.dbConnectTimeoutMs);
    if (!state.ready) return reply.code(503).send({ status: state.status, database: p.database.kind });
    // a synchronous standby required (PAYGATE_REQUIRE_SYNC_STANDBY): not ready while none streams
    const problem = p.durability.required ? await p.durability.check() : null;
    if (problem) return reply.code(503).send({ status: problem, database: p.database.kind });
    try {
      const rows = await p.database.db.selectFrom('schema_migrations').select('version').execute();
      const applied = new Set(rows.map((r) => r.version));
      const pending = readMigrations().filter((x) => !applied.has(x.version)).map((x) => x.version);
      if (pending.length > 0) return reply.code(503).send({ status: 'migrations pending', pending });
      return { status: 'ready', database: p.database.kind };
    } catch {
      return reply.code(503).send({ status: 'database unavailable', database: p.database.kind });
    }
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.type(p.metrics.registry.contentType);
    return p.metrics.registry.metrics();
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => {
    reply.type('application/json');
    return JSON.stringify(app.swagger());
  });

  // ---- the API, under /v1 and /v1/sandbox ------------------------------------------------------------
  await registerApi(app, merchantsRoutes(m.merchants));
  await registerApi(app, servicesRoutes(m.services));
  await registerApi(app, customersRoutes(m.customers));
  await registerApi(app, sourcesRoutes(m.sources.api));
  await registerApi(app, paymentsRoutes(m.payments));
  await registerApi(app, eventsRoutes(m.events));
  await registerApi(app, templatesRoutes(m.templates));
  await registerApi(app, pagesRoutes(m.pages, { timezone: config.timezone }));
  // the processors' notifications and webhooks (the payments module's), answered as the pages answer
  await registerApi(app, callbacksRoutes(m.payments, PLAIN_PAGE));
  // the embedded card form's loader, at the host root (outside /v1)
  await app.register(widgetRoutes({ publicUrl: config.publicUrl }));
  await registerApi(app, linksRoutes(m.links));
  await registerApi(app, checkoutsRoutes(m.checkouts));
  await registerApi(app, riskRoutes(m.risk));
  await registerApi(app, campaignsRoutes(m.campaigns));
  await registerApi(app, batchRoutes(m.batch));
  await registerApi(app, subscriptionsRoutes(m.subscriptions));
  await registerApi(app, paymentMethodsRoutes(m.paymentMethods));
  await registerApi(app, walletsRoutes(m.wallets, m.payments));
  await registerApi(app, devicesRoutes(m.devices, m.payments));
  await registerApi(app, cardPresentRoutes(m.cardPresent, m.payments));
  await registerApi(app, reconciliationRoutes(m.reconciliation));
  await registerApi(app, disputesRoutes(m.disputes));
  await registerApi(app, routingRoutes(m.routing));
  // the device socket (WebSocket upgrade on /v1/device/socket and /v1/sandbox/device/socket)
  installDeviceSocket(app, m.devices, p);

  // ---- the merchant dashboard: its JSON API (session cookies, never an API key) ---------------------
  await installDashboardApi(app, m.dashboard, { timezone: config.timezone, publicUrl: config.publicUrl, sandboxHttpAnyAddress: config.sandboxHttpAnyAddress, now: () => p.clock.now(), livePollMs: Math.min(config.eventStreamPollMs, 3000), requestLogDays: config.requestLogDays });
  // ---- the virtual terminal's card form, a gateway page the dashboard frames (never the dashboard's code)
  await app.register(terminalFormRoutes(m.terminal, { sandboxHttpAnyAddress: config.sandboxHttpAnyAddress }));
  // ---- and its web app (dist/dashboard, built by `npm start` and the test set-up) --------------------
  await installDashboardApp(app);

  await app.ready();
  return app;
}

/**
 * The API reference's Content-Security-Policy: its bundled script and styles from this origin (the page
 * carries an inline configuration script and inline styles), requests ("try it") to this origin only,
 * never framed.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** `GET /` for a browser: what this is and where the API reference is. */
function frontPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>paygate</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}code{background:#f3f3f3;padding:0 .25rem}a{color:#0a58ca}</style></head>
<body><h1>paygate</h1><p>A self-hosted payment gateway. This server answers the payment API under <code>/v1</code> (production) and <code>/v1/sandbox</code> (sandbox).</p>
<ul><li><a href="/docs/">API reference</a>: every operation with examples, and requests you can try against the sandbox</li>
<li><a href="/openapi.json">OpenAPI 3.1 document</a>: for code generators and API tools</li>
<li><a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>, <a href="/metrics">/metrics</a>: health and metrics</li></ul></body></html>`;
}

export function readTls(config: Platform['config']): { key: Buffer; cert: Buffer } | null {
  if (!config.tlsCertFile || !config.tlsKeyFile) return null;
  return { cert: fs.readFileSync(config.tlsCertFile), key: fs.readFileSync(config.tlsKeyFile) };
}
