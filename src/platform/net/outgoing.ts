/**
 * The one outgoing HTTP client (notifications to `url_post`, card-storage notifications and every
 * future merchant-supplied URL). It protects the gateway's network from its merchants (SSRF):
 *
 * - the host name is resolved and every address checked: loopback, private, link-local (cloud metadata
 *   169.254.169.254 included), carrier-grade NAT, unique-local, multicast, broadcast, unspecified and
 *   reserved addresses are refused unless the operator allows them (`PAYGATE_OUTGOING_ALLOW`), and
 *   loopback is allowed to sandbox merchants when `PAYGATE_OUTGOING_SANDBOX_LOOPBACK` is on;
 * - the connection goes to the address that was checked (the resolution is handed to the socket), and
 *   the connected socket's address is checked again, so a name cannot re-resolve to an internal address
 *   between the check and the connection (DNS rebinding);
 * - redirects are never followed (a 3xx is an answer like any other: not delivered);
 * - the answer is read up to a cap and within a deadline;
 * - a failure is described by its class (`refused: destination address not allowed`, `timeout`, ...)
 *   without the addresses behind it, so merchants cannot use attempt errors as a port scanner.
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request } from 'undici';
import type { Env } from '../db/schema.js';

export interface OutgoingPolicyOptions {
  /** Operator allow list: CIDRs, single addresses and host names reachable whatever they are. */
  allow: string[];
  /** Sandbox merchants may reach loopback addresses (a development machine). */
  sandboxLoopback: boolean;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses an allow-list entry; null when it is neither a CIDR, an address nor a host name. */
export function parseAllowEntry(entry: string): { cidr: Range } | { host: string } | null {
  const e = entry.trim();
  if (e === '') return null;
  try {
    if (e.includes('/')) return { cidr: ipaddr.parseCIDR(e) };
    if (ipaddr.isValid(e)) {
      const a = ipaddr.parse(e);
      return { cidr: [a, a.kind() === 'ipv4' ? 32 : 128] };
    }
  } catch {
    return null;
  }
  if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(e)) return { host: e.toLowerCase().replace(/\.$/, '') };
  return null;
}

export class OutgoingPolicy {
  readonly #cidrs: Range[] = [];
  readonly #hosts = new Set<string>();
  readonly sandboxLoopback: boolean;

  constructor(opts: OutgoingPolicyOptions) {
    this.sandboxLoopback = opts.sandboxLoopback;
    for (const raw of opts.allow) {
      const p = parseAllowEntry(raw);
      if (!p) throw new Error(`not a CIDR, address or host name: "${raw}"`);
      if ('cidr' in p) this.#cidrs.push(p.cidr);
      else this.#hosts.add(p.host);
    }
  }

  /** The operator allowed this host name by name. */
  hostAllowed(host: string): boolean {
    return this.#hosts.has(host.toLowerCase().replace(/\.$/, ''));
  }

  /**
   * Why `address` may not be reached by a merchant of `env` (its range name: `loopback`, `private`,
   * `linkLocal`, ...), or null when it may.
   */
  refusal(address: string, env: Env): string | null {
    let a: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      a = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
    } catch {
      return 'invalid';
    }
    // an IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
    for (const [net, bits] of this.#cidrs) {
      if (net.kind() === a.kind() && a.match([net, bits] as any)) return null;
    }
    const range = a.range();
    if (range === 'unicast') return null;
    if (range === 'loopback' && env === 'sandbox' && this.sandboxLoopback) return null;
    return range;
  }
}

/** Classes of failure, as merchants see them in delivery attempts. */
export type OutgoingFailure = 'invalid_url' | 'refused_address' | 'dns' | 'connect' | 'timeout' | 'tls' | 'too_large' | 'protocol';

const FAILURE_TEXT: Record<OutgoingFailure, string> = {
  invalid_url: 'invalid URL: only http and https URLs with a host can be called',
  refused_address: 'refused: the destination address is not allowed (private, loopback, link-local or reserved network)',
  dns: 'the host name could not be resolved',
  connect: 'the connection could not be established (refused, reset or unreachable)',
  timeout: 'no answer within the timeout',
  tls: 'the TLS handshake failed (certificate or protocol)',
  too_large: 'the answer was larger than allowed',
  protocol: 'the answer was not valid HTTP',
};

export class OutgoingError extends Error {
  constructor(readonly failure: OutgoingFailure) {
    super(FAILURE_TEXT[failure]);
    this.name = 'OutgoingError';
  }
}

export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

export interface OutgoingRequest {
  method?: 'POST' | 'GET' | 'PUT';
  headers?: Record<string, string>;
  /** Text, or bytes (a multipart body with files). */
  body?: string | Buffer;
  /** The merchant's environment (sandbox may reach loopback when the operator allows it). */
  env: Env;
  timeoutMs: number;
}

export interface OutgoingResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The answer's body, cut at the response cap. */
  body: string;
}

export interface OutgoingClientOptions {
  policy: OutgoingPolicy;
  resolver?: Resolver;
  /** Largest answer read, in bytes (64 KiB). */
  maxResponseBytes?: number;
}

/** Raised inside the connector when a resolved or connected address is refused. */
class RefusedAddress extends Error {
  readonly code = 'PAYGATE_REFUSED_ADDRESS';
}

export class OutgoingClient {
  readonly policy: OutgoingPolicy;
  readonly #resolver: Resolver;
  readonly #maxBytes: number;
  readonly #agents = new Map<Env, Agent>();

  constructor(opts: OutgoingClientOptions) {
    this.policy = opts.policy;
    this.#resolver = opts.resolver ?? systemResolver;
    this.#maxBytes = opts.maxResponseBytes ?? 64 * 1024;
  }

  /**
   * The addresses `host` may be reached at by a merchant of `env`. Throws OutgoingError('dns') when it
   * does not resolve and ('refused_address') when any of its addresses is refused.
   */
  async resolveAllowed(host: string, env: Env): Promise<LookupAddress[]> {
    const bare = host.replace(/^\[|\]$/g, '');
    const byName = !net.isIP(bare) && this.policy.hostAllowed(bare);
    let addresses: LookupAddress[];
    if (net.isIP(bare)) addresses = [{ address: bare, family: net.isIP(bare) }];
    else {
      try {
        addresses = await this.#resolver(bare);
      } catch {
        throw new OutgoingError('dns');
      }
    }
    if (addresses.length === 0) throw new OutgoingError('dns');
    if (!byName && addresses.some((a) => this.policy.refusal(a.address, env) !== null)) throw new OutgoingError('refused_address');
    return addresses;
  }

  /**
   * Why a merchant of `env` may not be sent to `url`, judged when the merchant gives it (B1's url_post)
   * with the rules of delivery: the range of a literal address or of `localhost` (`loopback`,
   * `private`, `linkLocal`, ...), or of an address the host name resolves to now; null when allowed.
   * A name that does not resolve (yet) is not refused here: delivery judges every address again.
   */
  async refusalOf(url: string, env: Env): Promise<string | null> {
    let u: URL;
    try {
      u = parseUrl(url);
    } catch {
      return 'invalid';
    }
    const bare = u.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(bare)) return this.policy.refusal(bare, env);
    if (this.policy.hostAllowed(bare)) return null;
    if (/(^|\.)localhost\.?$/i.test(bare)) return this.policy.refusal('127.0.0.1', env);
    let addresses: LookupAddress[];
    try {
      addresses = await withTimeout(this.#resolver(bare), 1000);
    } catch {
      return null;
    }
    for (const a of addresses) {
      const r = this.policy.refusal(a.address, env);
      if (r !== null) return r;
    }
    return null;
  }

  /** Checks a URL without calling it (validation of merchant input). */
  async check(url: string, env: Env): Promise<void> {
    const u = parseUrl(url);
    await this.resolveAllowed(u.hostname, env);
  }

  #agent(env: Env): Agent {
    let agent = this.#agents.get(env);
    if (agent) return agent;
    const lookup = (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => {
      this.resolveAllowed(hostname, env).then(
        (addresses) => (options?.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)),
        (err) => callback(err),
      );
    };
    const connector = buildConnector({ lookup } as any);
    agent = new Agent({
      // the connected socket's address is checked again: a literal address in the URL, or whatever
      // the resolution handed over, must be allowed
      connect: (opts: any, callback: any) =>
        connector(opts, (err: Error | null, socket: any) => {
          if (err) return callback(err, null);
          const remote = socket.remoteAddress as string | undefined;
          const byName = !net.isIP(opts.hostname) && this.policy.hostAllowed(opts.hostname);
          if (!byName && (!remote || this.policy.refusal(remote, env) !== null)) {
            socket.destroy();
            return callback(new RefusedAddress('refused address'), null);
          }
          callback(null, socket);
        }),
    });
    this.#agents.set(env, agent);
    return agent;
  }

  /** Sends one request; never follows redirects. Throws OutgoingError with the class of failure. */
  async send(url: string, req: OutgoingRequest): Promise<OutgoingResponse> {
    const u = parseUrl(url);
    // a literal address is judged before anything is sent (names are judged when they resolve)
    const bare = u.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(bare) && this.policy.refusal(bare, req.env) !== null) throw new OutgoingError('refused_address');
    try {
      const res = await request(u, {
        method: req.method ?? 'POST',
        headers: req.headers,
        body: req.body,
        // no redirect interceptor on this dispatcher: a 3xx is returned as it is, never followed
        dispatcher: this.#agent(req.env),
        signal: AbortSignal.timeout(req.timeoutMs),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      } as any);
      const chunks: Buffer[] = [];
      let size = 0;
      let cut = false;
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        if (size + b.length > this.#maxBytes) {
          chunks.push(b.subarray(0, this.#maxBytes - size));
          size = this.#maxBytes;
          cut = true;
          break;
        }
        chunks.push(b);
        size += b.length;
      }
      if (cut) res.body.destroy();
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
    } catch (err) {
      throw classify(err);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#agents.values()].map((a) => a.close().catch(() => {})));
    this.#agents.clear();
  }
}

/** The 400 of a merchant URL that delivery would refuse (`range`: what `refusalOf` answered). */
export function refusedUrlText(field: string, range: string): string {
  return `${field} must reach a public address: notifications are never sent to private, loopback, link-local or reserved networks (this one is ${range}); the operator can allow an address or host with PAYGATE_OUTGOING_ALLOW`;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
    timer.unref?.();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * True when `url` is an absolute http(s) URL with a host: one the gateway can call or send a browser to.
 * Merchant URLs that are not (PrestaShop's relative `success.php`) are stored as sent but never used.
 */
export function isAbsoluteHttpUrl(url: string | null | undefined): url is string {
  if (!url) return false;
  try {
    parseUrl(url);
    return true;
  } catch {
    return false;
  }
}

function parseUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutgoingError('invalid_url');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '' || u.username || u.password) throw new OutgoingError('invalid_url');
  return u;
}

/** The class of a failure, from whatever undici or the socket threw. */
export function classify(err: unknown): OutgoingError {
  if (err instanceof OutgoingError) return err;
  const seen = new Set<unknown>();
  let e: any = err;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    if (e instanceof OutgoingError) return e;
    if (e instanceof RefusedAddress || e.code === 'PAYGATE_REFUSED_ADDRESS') return new OutgoingError('refused_address');
    const code = String(e.code ?? '');
    const name = String(e.name ?? '');
    if (name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code)) return new OutgoingError('timeout');
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return new OutgoingError('dns');
    if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY)/.test(code) || /SSL|TLS|certificate/i.test(String(e.message ?? ''))) return new OutgoingError('tls');
    if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_') || code === 'UND_ERR_INFO' || code === 'UND_ERR_RESPONSE_STATUS_CODE') return new OutgoingError('protocol');
    e = e.cause;
  }
  return new OutgoingError('connect');
}
