/**
 * What the HTTP platform adds to Fastify: route options (`auth`, `profiles`, `env`) and the request
 * context that authenticated handlers receive.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Env } from '../db/schema.js';
import type { MerchantClock } from '../time/clock.js';
import type { Secret } from '../security/secret.js';

/** Key profiles of decisions §2. */
export const PROFILES = [
  'all',
  'payment',
  'refund',
  'readonly',
  'card',
  'tokenize',
  'moto',
  'batch_authorization',
  'batch_refund',
  'keyentry',
] as const;
export type Profile = (typeof PROFILES)[number];

export function isProfile(value: string): value is Profile {
  return (PROFILES as readonly string[]).includes(value);
}

/** The merchant an API key belongs to, as the request pipeline needs it. */
export interface MerchantRef {
  id: string;
  env: Env;
  name: string;
  timezone: string;
  parentId: string | null;
  isPci: boolean;
  clockOffsetMs: number;
}

/** A resolved API key. */
export interface AuthKey {
  keyId: string;
  env: Env;
  profiles: Profile[];
  signatureHash: string;
  signatureSealed: string;
  merchant: MerchantRef;
}

/** What an authenticated handler knows about its caller. */
export interface RequestContext {
  env: Env;
  /** Server timezone of `current_time` and `created`. */
  timezone: string;
  keyId: string;
  profiles: Profile[];
  merchant: MerchantRef;
  /** The merchant's time (the sandbox test clock applies). */
  clock: MerchantClock;
  /** The signature paired with the key, needed for validation_hash. Decrypted on demand. */
  signature(): Secret<string>;
  /**
   * The request's Idempotency-Key, when it sent one. A money step records in its first commit that the
   * key's request has changed something (`IdempotencyStore.committedSql`), so a retry after a lost
   * answer is never done a second time.
   */
  idempotencyKey?: string | null;
  /** This request's own mark on the key's row (the key's record is touched only while it is still its own). */
  idempotencyAttempt?: string | null;
}

/** How a route authenticates. */
export type RouteAuth = 'key' | 'none' | 'device';

/**
 * A customer-facing HTML page (hosted payment page, 3DS, Bizum, checkout) rather than a JSON API route:
 * its errors are HTML pages, it may take form posts, and API-wide checks (route listings, OpenAPI
 * contract tests) leave it out.
 */
export interface PageRoute {
  /**
   * Renders an error of this route (whatever threw it: the platform's HTTPS check, a bad parameter, the
   * handler) as the HTML body; it may set headers on `reply`. Called by the one error handler.
   */
  renderError(req: FastifyRequest, reply: FastifyReply, error: { status: number; details: string }): string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Authentication of the route; API routes default to 'key'. */
    auth?: RouteAuth;
    /** Profiles that grant access (besides `all`). Required on 'key' routes. */
    profiles?: readonly Profile[];
    /** Environment of the route; set by registerApi for routes under /v1 and /v1/sandbox. */
    env?: Env;
    /** Largest body in bytes, when a route takes more than the default. */
    bodyLimit?: number;
    /** Set on customer-facing HTML pages (see PageRoute); absent on API routes. */
    page?: PageRoute;
    /** A write that needs no body and no signature (I1 create company). */
    unsigned?: boolean;
    /** The route answers with a stream that stays open (Server-Sent Events), not one JSON document. */
    stream?: boolean;
  }
  interface FastifyRequest {
    ctx: RequestContext | null;
    /** Set when the request carries an Idempotency-Key being recorded. */
    idempotency: { merchantId: string; key: string; attempt: string } | null;
    /** A call of the dashboard's bridge (internal-call.ts), not of an API key. */
    internalCall: boolean;
  }
}
