/**
 * The closed catalogue of errors the API can answer with. Business code throws these; exactly one error
 * handler (platform/http/error-handler.ts) turns them into the contract's envelope. Anything else that
 * escapes is a 500 with a request id.
 */

/** Reason phrases of the contract (api.md "Errors"). */
export const REASON: Record<number, string> = {
  200: 'OK',
  303: 'See Other',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Failed',
  403: 'Unauthenticated',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export class ApiError extends Error {
  readonly status: number;
  readonly details: string;
  /** Seconds, for 429 answers. */
  readonly retryAfter?: number;
  /** Extra fields placed next to the envelope (rarely used; e.g. `errors` of batch files). */
  readonly extra?: Record<string, unknown>;

  constructor(status: number, details: string, opts: { retryAfter?: number; extra?: Record<string, unknown> } = {}) {
    super(details);
    this.name = 'ApiError';
    this.status = status;
    this.details = details;
    this.retryAfter = opts.retryAfter;
    this.extra = opts.extra;
  }
}

export const badRequest = (details: string, extra?: Record<string, unknown>) => new ApiError(400, details, { extra });
export const unauthorized = (details = 'A valid API key is required') => new ApiError(401, details);
export const failed = (details: string) => new ApiError(402, details);
export const forbidden = (details: string) => new ApiError(403, details);
export const notFound = (details: string) => new ApiError(404, details);
export const conflict = (details: string) => new ApiError(409, details);
export const gone = (details: string) => new ApiError(410, details);
export const unprocessable = (details: string, extra?: Record<string, unknown>) => new ApiError(422, details, { extra });
export const tooManyRequests = (details: string, retryAfterSeconds: number) =>
  new ApiError(429, details, { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });
export const unavailable = (details: string) => new ApiError(503, details);

const conflictConstraints = new Map<string, string>();

/**
 * A unique index whose violation is the client's conflict, not a defect: the one error handler answers
 * 409 with `details` when a write breaks it (a module registers the indexes that guard its rules).
 */
export function registerConflictConstraint(constraint: string, details: string): void {
  conflictConstraints.set(constraint, details);
}

/** The 409 details of a unique violation on a registered index, else undefined. */
export function conflictOfViolation(err: unknown): string | undefined {
  if (pgCode(err) !== PG_UNIQUE_VIOLATION) return undefined;
  const c = (err as { constraint?: unknown }).constraint;
  return typeof c === 'string' ? conflictConstraints.get(c) : undefined;
}

/** PostgreSQL error codes we translate. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_CHECK_VIOLATION = '23514';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_SERIALIZATION_FAILURE = '40001';
export const PG_DEADLOCK = '40P01';

export function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof (err as { code: unknown }).code === 'string'
    ? (err as { code: string }).code
    : undefined;
}
