/**
 * What an area of the dashboard's JSON API gets to register its routes (areas/<area>.ts): the scope
 * under /dashboard/api (its hook checks session, stage, permission and CSRF token for every route that
 * declares `config.dashboard`), the dashboard service (its deps: the module services; `auditAction`),
 * the envelope, and the signed-in user of a request. Routes stay thin: one service call each, no
 * business rule of their own. Each route's OpenAPI entry goes in the area's `docs`.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { okEnvelope } from '../../../platform/http/envelope.js';
import type { DashSession } from '../dashboard.core.js';
import type { DashboardService } from '../dashboard.service.js';

export interface AreaOperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
}

export interface AreaKit {
  app: FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
  service: DashboardService;
  /** `{message: "OK", code: 200, current_time, ...fields}`, typed with the fields (as the core routes' `done`) */
  done: <T extends Record<string, unknown>>(fields: T) => ReturnType<typeof okEnvelope<T>>;
  /** the signed-in user of a request (set by the hook) */
  dash: (req: FastifyRequest) => DashSession;
  opts: AreaOptions;
}

export interface AreaOptions {
  timezone: string;
  publicUrl: string;
  now: () => Date;
  /** how often the live stream looks for new orders and checks the session, in ms */
  livePollMs: number;
  /** days the API request log is kept */
  requestLogDays: number;
}

export interface Area {
  /** registers the area's routes (paths relative to /dashboard/api) */
  routes(kit: AreaKit): void | Promise<void>;
  /** 'METHOD /path' → its OpenAPI entry (every route of the area has one) */
  docs: Record<string, AreaOperationDoc>;
  /** the area's OpenAPI tag */
  tag?: { name: string; description: string };
}
