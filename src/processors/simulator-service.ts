/**
 * The simulator as a service of its own (`paygate simulator`), shared by every gateway process
 * (PAYGATE_SIMULATOR_URL). In one process the in-memory simulator is enough; with several gateway
 * nodes (and their worker processes) it is not: a payment made through one node must be found by the
 * reconciler running on another, and a node that dies must not take the processor's memory with it, as
 * with a real processor. The service runs the same simulator (same test cards, same rules) and also
 * keeps a log of every money operation it did, which tests and benchmarks read (`GET /operations`) to
 * count what was charged.
 *
 * The protocol is ours and internal: `POST /v1/<operation>` with the connector request as JSON
 * (secrets and dates tagged), answered with the connector's result. It carries card numbers: run it on
 * loopback or a private network only, as a staging stand-in for a processor.
 *
 * The service has no database: a money request carries its service's behaviour (sandbox-behaviour.ts)
 * as `sandboxBehaviour`, which the gateway's connector finds (`behaviourOf`) and fills in.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { Secret } from '../platform/security/secret.js';
import { ProcessorTimeoutError, type Connector, type ProcessorOperation } from './connector.js';
import { SimulatorConnector } from './simulator.js';
import type { BehaviourLookup } from './sandbox-behaviour.js';

/** The connector methods the service serves. */
const OPERATIONS = [
  'authorize', 'partialAuthorize', 'preauthorize', 'capture', 'cancel', 'refund', 'payout', 'lookup', 'authenticate',
  'verifyCard', 'verifyHolder', 'apmPayment', 'apmStart', 'apmComplete', 'apmPayout', 'settlementReport',
] as const;
type Operation = (typeof OPERATIONS)[number];

/** Money operations, logged by the service. */
const MONEY: ReadonlySet<string> = new Set(['authorize', 'partialAuthorize', 'preauthorize', 'capture', 'cancel', 'refund', 'payout', 'apmPayment', 'apmComplete', 'apmPayout']);

/** One money operation the service did. */
export interface OperationRecord {
  seq: number;
  operation: ProcessorOperation;
  reference: string;
  amount: number | null;
  outcome: string;
  at: string;
}

/** JSON with secrets and dates kept (JSON.stringify would redact the one and flatten the other). */
export function encodeWire(v: unknown): unknown {
  if (v instanceof Secret) return { $secret: encodeWire(v.reveal()) };
  if (v instanceof Date) return { $date: v.toISOString() };
  if (Array.isArray(v)) return v.map(encodeWire);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeWire(x)]));
  return v;
}

export function decodeWire(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeWire);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === '$secret') return new Secret(decodeWire(o.$secret));
    if (keys.length === 1 && keys[0] === '$date' && typeof o.$date === 'string') return new Date(o.$date);
    return Object.fromEntries(keys.map((k) => [k, decodeWire(o[k])]));
  }
  return v;
}

/** A connector that calls the simulator service. */
export class RemoteSimulatorConnector implements Connector {
  readonly name = 'simulator';
  readonly #base: string;
  readonly #agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  /** Finds a service's behaviour, sent with each money request (null: none is sent). */
  behaviourOf: BehaviourLookup | null = null;

  constructor(baseUrl: string) {
    this.#base = baseUrl.replace(/\/+$/, '');
  }

  async #call<R>(op: Operation, req: unknown): Promise<R> {
    const serviceId = (req as { terminal?: { serviceId?: string | null } }).terminal?.serviceId;
    if (this.behaviourOf && serviceId && MONEY.has(op)) req = { ...(req as object), sandboxBehaviour: await this.behaviourOf(serviceId) };
    let res;
    try {
      res = await request(`${this.#base}/v1/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(encodeWire(req)),
        dispatcher: this.#agent,
      });
    } catch (err) {
      // not sent, or sent without an answer: the operation may or may not have happened (UNKNOWN)
      throw new ProcessorTimeoutError(`the simulator service did not answer: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new ProcessorTimeoutError(`the simulator service answered HTTP ${res.statusCode}`);
    return decodeWire(JSON.parse(text)) as R;
  }

  authorize = (r: Parameters<Connector['authorize']>[0]) => this.#call<Awaited<ReturnType<Connector['authorize']>>>('authorize', r);
  partialAuthorize = (r: Parameters<Connector['partialAuthorize']>[0]) => this.#call<Awaited<ReturnType<Connector['partialAuthorize']>>>('partialAuthorize', r);
  preauthorize = (r: Parameters<Connector['preauthorize']>[0]) => this.#call<Awaited<ReturnType<Connector['preauthorize']>>>('preauthorize', r);
  capture = (r: Parameters<Connector['capture']>[0]) => this.#call<Awaited<ReturnType<Connector['capture']>>>('capture', r);
  cancel = (r: Parameters<Connector['cancel']>[0]) => this.#call<Awaited<ReturnType<Connector['cancel']>>>('cancel', r);
  refund = (r: Parameters<Connector['refund']>[0]) => this.#call<Awaited<ReturnType<Connector['refund']>>>('refund', r);
  payout = (r: Parameters<Connector['payout']>[0]) => this.#call<Awaited<ReturnType<Connector['payout']>>>('payout', r);
  lookup = (r: Parameters<Connector['lookup']>[0]) => this.#call<Awaited<ReturnType<Connector['lookup']>>>('lookup', r);
  authenticate = (r: Parameters<Connector['authenticate']>[0]) => this.#call<Awaited<ReturnType<Connector['authenticate']>>>('authenticate', r);
  verifyCard = (r: Parameters<Connector['verifyCard']>[0]) => this.#call<Awaited<ReturnType<Connector['verifyCard']>>>('verifyCard', r);
  verifyHolder = (r: Parameters<Connector['verifyHolder']>[0]) => this.#call<Awaited<ReturnType<Connector['verifyHolder']>>>('verifyHolder', r);
  apmPayment = (r: Parameters<NonNullable<Connector['apmPayment']>>[0]) => this.#call<Awaited<ReturnType<NonNullable<Connector['apmPayment']>>>>('apmPayment', r);
  apmStart = (r: Parameters<NonNullable<Connector['apmStart']>>[0]) => this.#call<Awaited<ReturnType<NonNullable<Connector['apmStart']>>>>('apmStart', r);
  apmComplete = (r: Parameters<NonNullable<Connector['apmComplete']>>[0]) => this.#call<Awaited<ReturnType<NonNullable<Connector['apmComplete']>>>>('apmComplete', r);
  apmPayout = (r: Parameters<NonNullable<Connector['apmPayout']>>[0]) => this.#call<Awaited<ReturnType<NonNullable<Connector['apmPayout']>>>>('apmPayout', r);
  settlementReport = (r: Parameters<NonNullable<Connector['settlementReport']>>[0]) => this.#call<Awaited<ReturnType<NonNullable<Connector['settlementReport']>>>>('settlementReport', r);

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

export interface SimulatorService {
  url: string;
  simulator: SimulatorConnector;
  /** Every money operation done, in order. */
  operations: OperationRecord[];
  close(): Promise<void>;
}

/** Starts the service on `host:port` (port 0: any free port). */
export async function startSimulatorService(opts: { host?: string; port?: number; latencyMs?: number } = {}): Promise<SimulatorService> {
  const simulator = new SimulatorConnector({ latencyMs: opts.latencyMs ?? 0 });
  const operations: OperationRecord[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        if (req.method === 'GET' && url.pathname === '/healthz') return answer(200, { status: 'ok' });
        if (req.method === 'GET' && url.pathname === '/operations') {
          const after = Number(url.searchParams.get('after') ?? 0);
          return answer(200, { operations: operations.filter((o) => o.seq > after) });
        }
        const m = /^\/v1\/(\w+)$/.exec(url.pathname);
        const op = m?.[1] as Operation | undefined;
        if (req.method !== 'POST' || !op || !(OPERATIONS as readonly string[]).includes(op)) return answer(404, { error: 'unknown operation' });
        let input: Record<string, unknown>;
        try {
          input = decodeWire(JSON.parse(Buffer.concat(chunks).toString('utf8'))) as Record<string, unknown>;
        } catch {
          return answer(400, { error: 'the body is not JSON' });
        }
        try {
          const fn = (simulator as unknown as Record<string, (r: unknown) => Promise<unknown>>)[op];
          const result = (await fn.call(simulator, input)) as { outcome?: string };
          if (MONEY.has(op)) {
            operations.push({
              seq: operations.length + 1,
              operation: op as ProcessorOperation,
              reference: String(input.reference),
              amount: typeof input.amount === 'number' ? input.amount : null,
              outcome: String(result?.outcome ?? ''),
              at: new Date().toISOString(),
            });
          }
          answer(200, encodeWire(result));
        } catch (err) {
          answer(500, { error: err instanceof Error ? err.message : String(err) });
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    simulator,
    operations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
