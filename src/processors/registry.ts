/**
 * Connectors by service type. Sandbox services of every type run on the simulator (decisions §5).
 * Production services use the connector registered for their type; this codebase has no real
 * connector yet, so production uses the simulator only when PAYGATE_PRODUCTION_SIMULATOR is set, and
 * otherwise answers 503 for a payment on a type without a connector.
 *
 * Every connector the registry hands out is wrapped in a deadline: a call that does not answer within
 * the processor timeout (or that throws) comes back as UNKNOWN, never as an exception, so callers
 * always get a result to record.
 */
import type { Logger } from 'pino';
import type { Env } from '../platform/db/schema.js';
import { unavailable } from '../platform/errors/errors.js';
import { ProcessorTimeoutError, type ApmCompleteRequest, type ApmPaymentRequest, type ApmPayoutRequest, type ApmStartRequest, type Connector } from './connector.js';
import { SandboxDccRates, type DccRateSource } from './dcc.js';
import { SimulatorConnector } from './simulator.js';
import { RemoteSimulatorConnector } from './simulator-service.js';

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

/** Wraps a connector so every call answers within `timeoutMs` and never throws. */
export function guarded(inner: Connector, timeoutMs: number, logger?: Logger): Connector {
  const call = async <R>(op: string, fn: () => Promise<R>, onFail: (details: string) => R): Promise<R> => {
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
  };
}

export class ProcessorRegistry {
  /** The sandbox processor (tests inject faults and set latency through it). */
  readonly simulator: SimulatorConnector;
  readonly #production = new Map<string, Connector>();
  readonly #opts: RegistryOptions;
  #guardedSimulator: Connector;
  readonly #guardedProduction = new Map<string, Connector>();
  /** DCC rates: the sandbox table in the sandbox; in production only a registered source. */
  readonly #sandboxRates: DccRateSource = new SandboxDccRates();
  #productionRates: DccRateSource | null = null;

  constructor(opts: RegistryOptions) {
    this.#opts = opts;
    this.simulator = new SimulatorConnector({ latencyMs: opts.simulatorLatencyMs ?? 0 });
    const simulator = opts.simulatorUrl ? new RemoteSimulatorConnector(opts.simulatorUrl) : this.simulator;
    this.#guardedSimulator = guarded(simulator, opts.timeoutMs, opts.logger);
  }

  get timeoutMs(): number {
    return this.#opts.timeoutMs;
  }

  /** Registers the production connector of a service type. */
  register(serviceType: string, connector: Connector): void {
    this.#production.set(serviceType, connector);
    this.#guardedProduction.set(serviceType, guarded(connector, this.#opts.timeoutMs, this.#opts.logger));
  }

  /** True when payments of this type can be processed in this environment. */
  supports(serviceType: string, env: Env): boolean {
    return env === 'sandbox' || this.#production.has(serviceType) || !!this.#opts.productionSimulator;
  }

  /** The connector for a service type in an environment; 503 when production has none. */
  forService(serviceType: string, env: Env): Connector {
    if (env === 'sandbox') return this.#guardedSimulator;
    const c = this.#guardedProduction.get(serviceType);
    if (c) return c;
    if (this.#opts.productionSimulator) return this.#guardedSimulator;
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
