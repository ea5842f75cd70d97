/**
 * Connectors by service type. Sandbox services of every type run on the simulator (decisions §5).
 * Production services use the connector registered for their type (the connectors of the list in
 * connectors.ts, registered by app.ts); a type without one answers 503. PAYGATE_PRODUCTION_SIMULATOR (staging only) serves every
 * production service from the simulator instead, so no real money moves.
 *
 * Every connector the registry hands out is wrapped in a deadline: a call that does not answer within
 * the processor timeout (or that throws) comes back as UNKNOWN, never as an exception, so callers
 * always get a result to record.
 */
import type { Logger } from 'pino';
import type { Env } from '../platform/db/schema.js';
import { unavailable } from '../platform/errors/errors.js';
import { ProcessorTimeoutError, type AcquirerThreeDS, type ApmCompleteRequest, type ApmPaymentRequest, type ApmPayoutRequest, type ApmStartRequest, type Connector, type DisputeApi, type DisputeNotice, type SettlementReportRequest } from './connector.js';
import { SandboxDccRates, type DccRateSource } from './dcc.js';
import { SimulatorConnector } from './simulator.js';
import { RemoteSimulatorConnector } from './simulator-service.js';
import type { BehaviourLookup } from './sandbox-behaviour.js';

/** Service types whose processors capture a pre-authorization only in full. */
export const NO_PARTIAL_CAPTURE: ReadonlySet<string> = new Set(['PAYGATEAPM', 'PAYSHOP', 'EUPAGO', 'SAFETYPAY']);

export interface RegistryOptions {
  /** Deadline of one processor call, in milliseconds. */
  timeoutMs: number;
  /** Simulator latency, in milliseconds. */
  simulatorLatencyMs?: number;
  /** Production falls back to the simulator for types without a connector. */
  productionSimulator?: boolean;
  /**
   * The simulator service shared by every process (PAYGATE_SIMULATOR_URL); unset: the simulator runs in
   * this process (its memory of operations dies with it).
   */
  simulatorUrl?: string | null;
  logger?: Logger;
  /**
   * Runs before every call that can move money (authorize, capture, refund, payout, APM payments...):
   * throws (a 503) when the step's record may not survive a failover (db/durability.ts). Never run for
   * lookups, 3-D Secure or verification of holders.
   */
  beforeMoneyCall?: () => Promise<void>;
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new ProcessorTimeoutError()), ms);
    t.unref?.();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** Operations that can move money: `beforeMoneyCall` runs before each. */
const MONEY_CALLS = new Set(['authorize', 'partialAuthorize', 'preauthorize', 'capture', 'cancel', 'refund', 'payout', 'apmPayment', 'apmStart', 'apmComplete', 'apmPayout', 'threedsAuthenticate', 'threedsComplete']);

/**
 * Wraps a connector so every call answers within `timeoutMs` and never throws for what the processor
 * did; only `beforeMoneyCall` may refuse a call (it throws, and nothing is sent).
 */
export function guarded(inner: Connector, timeoutMs: number, logger?: Logger, beforeMoneyCall?: () => Promise<void>): Connector {
  const call = async <R>(op: string, fn: () => Promise<R>, onFail: (details: string) => R): Promise<R> => {
    if (beforeMoneyCall && MONEY_CALLS.has(op)) await beforeMoneyCall();
    try {
      return await withDeadline(fn(), timeoutMs);
    } catch (err) {
      const timeout = err instanceof ProcessorTimeoutError;
      if (!timeout) logger?.error({ err, op, connector: inner.name }, 'processor call failed');
      return onFail(timeout ? (err as Error).message : 'processor call failed');
    }
  };
  const unknown = (details: string) => ({ outcome: 'UNKNOWN' as const, details });
  return {
    name: inner.name,
    authorize: (r) => call('authorize', () => inner.authorize(r), unknown),
    partialAuthorize: (r) => call('partialAuthorize', () => inner.partialAuthorize(r), unknown),
    preauthorize: (r) => call('preauthorize', () => inner.preauthorize(r), unknown),
    capture: (r) => call('capture', () => inner.capture(r), unknown),
    cancel: (r) => call('cancel', () => inner.cancel(r), unknown),
    refund: (r) => call('refund', () => inner.refund(r), unknown),
    payout: (r) => call('payout', () => inner.payout(r), unknown),
    lookup: (r) => call('lookup', () => inner.lookup(r), (details) => ({ found: 'unknown' as const, details })),
    authenticate: (r) => call('authenticate', () => inner.authenticate(r), unknown),
    verifyCard: (r) => call('verifyCard', () => inner.verifyCard(r), unknown),
    verifyHolder: (r) => call('verifyHolder', () => inner.verifyHolder(r), unknown),
    ...(inner.apmPayment ? { apmPayment: (r: ApmPaymentRequest) => call('apmPayment', () => inner.apmPayment!(r), unknown) } : {}),
    ...(inner.apmStart ? { apmStart: (r: ApmStartRequest) => call('apmStart', () => inner.apmStart!(r), unknown) } : {}),
    ...(inner.apmComplete ? { apmComplete: (r: ApmCompleteRequest) => call('apmComplete', () => inner.apmComplete!(r), unknown) } : {}),
    ...(inner.apmPayout ? { apmPayout: (r: ApmPayoutRequest) => call('apmPayout', () => inner.apmPayout!(r), unknown) } : {}),
    ...(inner.apmRedirectForm ? { apmRedirectForm: (ref: string) => call('apmRedirectForm', () => inner.apmRedirectForm!(ref), () => null) } : {}),
    // a report is no money call: it gets a longer deadline than an operation's
    ...(inner.settlementReport
      ? { settlementReport: (r: SettlementReportRequest) => withDeadline(inner.settlementReport!(r), Math.max(timeoutMs, 120_000)).catch((err) => {
          logger?.error({ err, op: 'settlementReport', connector: inner.name }, 'processor call failed');
          return { outcome: 'UNKNOWN' as const, details: err instanceof ProcessorTimeoutError ? err.message : 'processor call failed' };
        }) }
      : {}),
    ...(inner.disputes
      ? {
          disputes: {
            submitEvidence: (r) => call('disputeEvidence', () => inner.disputes!.submitEvidence(r), unknown),
            accept: (r) => call('disputeAccept', () => inner.disputes!.accept(r), unknown),
          } satisfies DisputeApi,
        }
      : {}),
    ...(inner.notification
      ? { notification: (f: Record<string, string>) => call('notification', () => inner.notification!(f), (details) => ({ outcome: 'IGNORED' as const, reason: details })) }
      : {}),
    ...(inner.threeds
      ? {
          threeds: {
            start: (r, urls) => call('threedsStart', () => inner.threeds!.start(r, urls), unknown),
            authenticate: (r, browser, urls, method) =>
              call('threedsAuthenticate', () => inner.threeds!.authenticate(r, browser, urls, method), (details) => ({ outcome: 'RESULT' as const, result: unknown(details), threeds: null, flow: 'FRICTIONLESS' as const })),
            complete: (r, cres) => call('threedsComplete', () => inner.threeds!.complete(r, cres), (details) => ({ outcome: 'RESULT' as const, result: unknown(details), threeds: null, flow: 'CHALLENGE' as const })),
          } satisfies AcquirerThreeDS,
        }
      : {}),
  };
}

/** The disputed payment a connector's dispute notice names, as the payments module found it. */
export interface DisputedPayment {
  merchantId: string;
  orderId: string;
  transactionId: string;
}

export class ProcessorRegistry {
  /** The sandbox processor (tests inject faults and set latency through it). */
  readonly simulator: SimulatorConnector;
  /**
   * Where a verified dispute notice of a connector goes (the disputes module sets it at start); the
   * payments module calls it with the payment the notice names.
   */
  onDispute: ((connector: string, notice: DisputeNotice, payment: DisputedPayment) => Promise<'applied' | 'ignored'>) | null = null;
  readonly #production = new Map<string, Connector>();
  readonly #opts: RegistryOptions;
  readonly #remoteSimulator: RemoteSimulatorConnector | null;
  #guardedSimulator: Connector;
  readonly #guardedProduction = new Map<string, Connector>();
  /** DCC rates: the sandbox table in the sandbox; in production only a registered source. */
  readonly #sandboxRates: DccRateSource = new SandboxDccRates();
  #productionRates: DccRateSource | null = null;

  constructor(opts: RegistryOptions) {
    this.#opts = opts;
    this.simulator = new SimulatorConnector({ latencyMs: opts.simulatorLatencyMs ?? 0 });
    this.#remoteSimulator = opts.simulatorUrl ? new RemoteSimulatorConnector(opts.simulatorUrl) : null;
    const simulator = this.#remoteSimulator ?? this.simulator;
    this.#guardedSimulator = guarded(simulator, opts.timeoutMs, opts.logger, opts.beforeMoneyCall);
  }

  /**
   * Where the simulator finds a sandbox service's behaviour (the services module's lookup, which the app
   * injects: processors import no module). Both the in-process simulator and the simulator service's
   * connector use it.
   */
  useSandboxBehaviours(lookup: BehaviourLookup | null): void {
    this.simulator.behaviourOf = lookup;
    if (this.#remoteSimulator) this.#remoteSimulator.behaviourOf = lookup;
  }

  get timeoutMs(): number {
    return this.#opts.timeoutMs;
  }

  /** Registers the production connector of a service type. */
  register(serviceType: string, connector: Connector): void {
    this.#production.set(serviceType, connector);
    this.#guardedProduction.set(serviceType, guarded(connector, this.#opts.timeoutMs, this.#opts.logger, this.#opts.beforeMoneyCall));
  }

  /** True when payments of this type can be processed in this environment. */
  supports(serviceType: string, env: Env): boolean {
    return env === 'sandbox' || this.#production.has(serviceType) || !!this.#opts.productionSimulator;
  }

  /** The service types production has a connector for, by connector name. */
  productionConnectors(): Map<string, string> {
    return new Map([...this.#production].map(([type, c]) => [type, c.name]));
  }

  /** A production connector by its name (`redsys`), guarded, for its notifications; null when none. */
  connectorNamed(name: string): Connector | null {
    for (const [type, c] of this.#production) if (c.name === name) return this.#guardedProduction.get(type) ?? null;
    return null;
  }

  /** The registered production connector of a type (unguarded), if any. */
  connectorOf(serviceType: string): Connector | null {
    return this.#production.get(serviceType) ?? null;
  }

  /** The connector for a service type in an environment; 503 when production has none. */
  forService(serviceType: string, env: Env): Connector {
    if (env === 'sandbox' || this.#opts.productionSimulator) return this.#guardedSimulator;
    const c = this.#guardedProduction.get(serviceType);
    if (c) return c;
    throw unavailable(`No processor connector is configured for services of type ${serviceType} in production`);
  }

  /** Registers the production DCC rate source (a DCC provider or the acquirer's). */
  registerDccRates(source: DccRateSource): void {
    this.#productionRates = source;
  }

  /**
   * Where DCC quotes come from in an environment: the sandbox's fixed table in the sandbox (and in
   * production when the simulator serves production); the registered source in production; none
   * otherwise (no conversion is offered).
   */
  dccRates(env: Env): DccRateSource | null {
    if (env === 'sandbox') return this.#sandboxRates;
    return this.#productionRates ?? (this.#opts.productionSimulator ? this.#sandboxRates : null);
  }

  /** Whether a service type supports partial confirmation of a pre-authorization. */
  supportsPartialCapture(serviceType: string): boolean {
    return !NO_PARTIAL_CAPTURE.has(serviceType);
  }
}
