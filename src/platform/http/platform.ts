/**
 * The one shared wrapper every API route goes through (design.md principle 2): validation compilers,
 * the wire serializer, the single error handler, HTTPS enforcement, authentication, profiles, rate
 * limiting, body signature and idempotency. Routes declare `config: { profiles }` and a schema; this
 * plugin does the rest.
 */
import type { FastifyInstance } from 'fastify';
import type { Env } from '../db/schema.js';
import { installApiAuth, installSignatureCheck } from './api-auth.js';
import { installErrorHandler } from './error-handler.js';
import { installGetBodyAsQuery } from './get-body.js';
import { installIdempotency } from './idempotency-hooks.js';
import { toWireJson } from './json.js';
import { installNulGuard } from './nul-guard.js';
import { installPanGuard } from './pan-guard.js';
import type { PlatformOptions } from './platform-options.js';
import type { RouteAuth } from './types.js';
import { installValidators } from './validation.js';

// the wrapper's parts, by concern, for the code and tests that import them from here
export type { PlatformOptions } from './platform-options.js';
export { envelopeTime } from './error-handler.js';
export { plainHttpAllowed } from './api-auth.js';
export { canonicalTarget } from './idempotency-hooks.js';
export { lazyValidator, schemaProblems, formatSchemaErrors, amountProblem, describePattern } from './validation.js';
export type { FieldProblem } from './validation.js';

/**
 * The wrapper, in the order its hooks run: validators and serializer, the error handler
 * (error-handler.ts), authentication (api-auth.ts), the request guards, body shape and signature
 * (api-auth.ts), idempotency and durability (idempotency-hooks.ts).
 */
export function installPlatform(app: FastifyInstance, opts: PlatformOptions): void {
  installValidators(app);
  app.setSerializerCompiler(() => (data) => toWireJson(data));
  app.setReplySerializer((payload) => toWireJson(payload));
  app.decorateRequest('ctx', null);
  app.decorateRequest('idempotency', null);
  app.decorateRequest('internalCall', false);

  installErrorHandler(app, opts);
  installApiAuth(app, opts);

  // ---- a JSON body on a GET is read like query parameters (decisions §1) -----------------------------
  installGetBodyAsQuery(app, opts.bodyLimit ?? 1024 * 1024);
  // ---- strings with U+0000 cannot be stored by PostgreSQL: 400, not 500 -------------------------------
  installNulGuard(app);
  // ---- a full card number in free text (description, names, metadata, ...) is 400 -------------------
  installPanGuard(app);

  installSignatureCheck(app);
  installIdempotency(app, opts);
}

export interface ApiRoute {
  method: string;
  url: string;
  env: Env;
  hasBody: boolean;
  /** How the route authenticates: an API key (most), a device token (card-present), or nothing. */
  auth: RouteAuth;
  /** The route's own body limit, when it has one (routes that take files); else the app's. */
  bodyLimit?: number;
  /** The route answers with a stream that stays open (Server-Sent Events). */
  stream?: boolean;
}

const apiRoutes = new WeakMap<object, ApiRoute[]>();
const pageRoutes = new WeakMap<object, ApiRoute[]>();

/** Every JSON API route registered on an app (tests use it to exercise every route). Pages are not listed. */
export function listApiRoutes(app: FastifyInstance): ApiRoute[] {
  return apiRoutes.get(app) ?? [];
}

/** Every customer-facing page route (`config.page`) registered under /v1 and /v1/sandbox. */
export function listPageRoutes(app: FastifyInstance): ApiRoute[] {
  return pageRoutes.get(app) ?? [];
}

/**
 * Registers a module's routes under `/v1` (production) and `/v1/sandbox` (sandbox). Each copy knows
 * its environment through the route config.
 */
export async function registerApi(
  app: FastifyInstance,
  plugin: (scope: FastifyInstance) => Promise<void> | void,
): Promise<void> {
  let list = apiRoutes.get(app);
  if (!list) apiRoutes.set(app, (list = []));
  let pages = pageRoutes.get(app);
  if (!pages) pageRoutes.set(app, (pages = []));
  const routes = list;
  const pageList = pages;
  for (const [env, prefix] of [
    ['production', '/v1'],
    ['sandbox', '/v1/sandbox'],
  ] as const) {
    await app.register(
      async (scope) => {
        scope.addHook('onRoute', (route) => {
          route.config = { ...(route.config ?? {}), env };
          if (route.config.bodyLimit) route.bodyLimit = route.config.bodyLimit;
          for (const method of [route.method].flat()) {
            if (method === 'HEAD') continue;
            (route.config.page ? pageList : routes).push({ method, url: route.url, env, hasBody: !!(route.schema as { body?: unknown } | undefined)?.body, auth: route.config.auth ?? 'key', ...(route.config.bodyLimit ? { bodyLimit: route.config.bodyLimit as number } : {}), ...(route.config.stream ? { stream: true } : {}) });
          }
        });
        await plugin(scope);
      },
      { prefix },
    );
  }
}
