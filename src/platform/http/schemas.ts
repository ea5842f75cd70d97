/**
 * Schema building blocks shared by every module's TypeBox schemas.
 *
 * OpenAPI: a schema with a `title` is a named record of the API. The document generator hoists it
 * into `components.schemas.<title>` and refers to it with `$ref` (titles are unique: two different
 * schemas with one title fail the build). Records carry one realistic example in `examples`; request
 * bodies carry theirs too (`signedBody(props, { title, examples })`), and response examples are put
 * together from the examples of the records they hold (src/platform/http/openapi.ts).
 */
import Type, { type Static, type TProperties, type TSchema } from 'typebox';
import { COERCE } from './lenient.js';

export { Type };

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'UUID, upper or lower case', examples: ['5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10'] });

export const Mcc = Type.String({ pattern: '^[0-9]{4}$', 'x-problem': 'must be a merchant category code of 4 digits, such as 5411', description: 'merchant category code: 4 digits' });

export const ContractDate = Type.String({ description: 'YYYY-MM-DDTHH:mm:ss+HHMM', examples: ['2026-03-14T10:21:07+0100'] });

/** A realistic signature in examples (32 hex characters, issued with the API key). */
export const EXAMPLE_SIGNATURE = '9f86d081884c7d659a2feaa0c55ad015';

/**
 * A write body: the operation's fields plus the required `signature`. `examples` are realistic
 * request bodies (shown in the API reference; a test validates them against the schema).
 */
export function signedBody<P extends TProperties>(props: P, opts: { description?: string; title?: string; examples?: Record<string, unknown>[] } = {}) {
  return Type.Object(
    {
      signature: Type.String({
        minLength: 1,
        description: 'The signature issued with the API key (not computed: the same secret on every write). Every POST, PUT, PATCH and DELETE body carries it.',
        examples: [EXAMPLE_SIGNATURE],
      }),
      ...props,
    },
    opts,
  );
}

/**
 * Success envelope with the operation's fields. `opts.title` names it in the OpenAPI document
 * (e.g. `OrderResponse`), so clients generated from the document get a named type.
 */
export function envelope<P extends TProperties>(props: P, opts: { title?: string; description?: string } = {}) {
  return Type.Object(
    {
      message: Type.String({ description: '`OK` on success', examples: ['OK'] }),
      code: Type.Integer({ description: 'the HTTP status code', examples: [200] }),
      current_time: ContractDate,
      ...props,
    },
    opts,
  );
}

/** One validation problem of a request. */
export const FieldProblem = Type.Object(
  {
    field: Type.String({ description: 'the field as sent: `amount`, `cards[0].card_pan`, `extra_data.cof.reason`', examples: ['amount'] }),
    problem: Type.String({ description: 'what is wrong with it', examples: ['must be integer'] }),
  },
  { title: 'FieldProblem', description: 'One problem of a request that failed validation', examples: [{ field: 'amount', problem: 'must be integer' }] },
);

/** One problem of one line of a file (MoTo campaigns, batch files: 422). */
export const LineProblem = Type.Object(
  {
    line: Type.Integer({ description: 'line of the file (the header is line 1), or position in a JSON list from 1', examples: [3] }),
    msg: Type.String({ description: 'what is wrong with it', examples: ['AMOUNT must be a whole number of minor units'] }),
  },
  { title: 'LineProblem', description: 'One problem of one line of a file', examples: [{ line: 3, msg: 'AMOUNT must be a whole number of minor units from 1 to 999999999999' }] },
);

export const ErrorEnvelope = Type.Object(
  {
    message: Type.String({ description: 'the reason phrase of the status', examples: ['Bad Request'] }),
    code: Type.Integer({ description: 'the HTTP status code', examples: [400] }),
    current_time: ContractDate,
    details: Type.String({ description: 'what went wrong, as a sentence' }),
    request_id: Type.String({ description: 'the id of this request (also the `X-Request-Id` header): give it to support to find the request in the logs', examples: ['3f0c9a52-6d7e-4b8a-9c1d-2e3f4a5b6c7d'] }),
    errors: Type.Optional(Type.Array(FieldProblem, { description: 'validation errors only: every problem found, one per field and kind' })),
    order_uuid: Type.Optional(Type.String({ format: 'uuid', description: 'a 409 to a retry under an `Idempotency-Key` whose request was carried out and whose answer was lost: the order that request acted on (read it for the outcome)' })),
  },
  {
    title: 'ErrorEnvelope',
    description: 'Every error: the envelope with `details`, and `errors` when the request failed validation',
    examples: [{
      message: 'Bad Request',
      code: 400,
      current_time: '2026-03-14T10:21:07+0100',
      details: 'amount must be an integer: amounts are in minor units of the currency (10.50 in a currency with cents is 1050); operative is required',
      request_id: '3f0c9a52-6d7e-4b8a-9c1d-2e3f4a5b6c7d',
      errors: [{ field: 'amount', problem: 'must be an integer: amounts are in minor units of the currency (10.50 in a currency with cents is 1050)' }, { field: 'operative', problem: 'is required' }],
    }],
  },
);

/** 422 of the routes that take a file: every problem of every line; nothing was stored. */
export const FileProblemsResponse = Type.Object(
  {
    message: Type.String({ description: 'the reason phrase of the status', examples: ['Unprocessable Entity'] }),
    code: Type.Integer({ description: 'the HTTP status code', examples: [422] }),
    current_time: ContractDate,
    details: Type.String({ description: 'how many problems were found' }),
    request_id: Type.String({ description: 'the id of this request (also the `X-Request-Id` header)', examples: ['3f0c9a52-6d7e-4b8a-9c1d-2e3f4a5b6c7d'] }),
    errors: Type.Optional(Type.Array(LineProblem, { description: 'one per line and problem, in line order (absent on a 422 of another cause, such as an Idempotency-Key reused with another body)' })),
  },
  {
    title: 'FileProblemsResponse',
    description: 'A file (or list of payments) with problems: every line\'s problems; nothing was stored or queued',
    examples: [{ message: 'Unprocessable Entity', code: 422, current_time: '2026-03-14T10:21:07+0100', details: '2 problems in the file: nothing was queued', request_id: '3f0c9a52-6d7e-4b8a-9c1d-2e3f4a5b6c7d', errors: [{ line: 3, msg: 'AMOUNT must be a whole number of minor units from 1 to 999999999999' }, { line: 7, msg: 'CARD 6f1d2a9e-4c3b-4e8a-9b7c-1d2e3f4a5b6c is not a stored card of this merchant' }] }],
  },
);

/** Responses of an API route: 200 plus the error envelope for 4xx/5xx. */
export function responses<T extends TSchema>(ok: T, extra: Record<number, TSchema> = {}) {
  return { 200: ok, ...extra, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };
}

// ---- lenient scalars (decisions §10): what PHP-based clients send, read in one place (lenient.ts) ----
//
// Each builder is an `anyOf` of every accepted form, for the OpenAPI document, with an `x-coerce` marker;
// its first branch is the canonical form the handler receives (and its static type).

/** Largest amount the API takes, in minor units (9,999,999,999.99 in a 2-decimal currency). */
export const AMOUNT_MAX = 999_999_999_999;
/** Largest `offset` of a listing. */
export const OFFSET_MAX = 1_000_000_000;

type IntOptions = { minimum?: number; maximum: number; description?: string; default?: number };

/**
 * An integer: a JSON integer, a JSON number within 1e-6 of an integer (rounded to it), or a string of
 * digits. `maximum` is required (and below 2^53), so no digit string is ever silently rounded and
 * nothing beyond a bigint column reaches the database.
 */
export function Int(opts: IntOptions) {
  const { minimum = 0, maximum, description, ...rest } = opts;
  if (!Number.isSafeInteger(maximum) || maximum > Number.MAX_SAFE_INTEGER) throw new Error('Int: maximum must be a safe integer');
  const range = `${minimum} to ${maximum}`;
  return Type.Unsafe<number>({
    anyOf: [
      { type: 'integer', minimum, maximum },
      { type: 'number', description: 'a number within 1e-6 of an integer is read as that integer (e.g. 1998.9999999999998 is 1999)' },
      { type: 'string', pattern: '^-?[0-9]+$', description: 'a string of digits' },
    ],
    [COERCE]: 'int',
    description: description ? `${description} (integer, ${range})` : `integer, ${range}`,
    ...rest,
  });
}

/**
 * What a value that breaks a schema node is told, as a sentence (the error's `problem`), instead of the
 * validator's wording (`must match pattern "^[0-9]{4}$"`): `x-problem` on the node, a sentence or the
 * name of a computed one (`amount`). Patterns without it are described from the pattern (platform.ts).
 */
export const PROBLEM = 'x-problem';

/** A string that must match `pattern`, told as `problem` (e.g. `must be 4 digits (YYMM)`) when it does not. */
export function Pattern(pattern: string, problem: string, opts: { description?: string; examples?: string[]; minLength?: number; maxLength?: number } = {}) {
  return Type.String({ pattern, [PROBLEM]: problem, ...opts });
}

/** An ISO 4217 currency: the alpha-3 code (`EUR`, any case) or the numeric one (`"978"` or `978`). */
export function CurrencyCode(opts: { description?: string } = {}) {
  return Type.Unsafe<string | number>({
    anyOf: [
      { type: 'string', pattern: '^([A-Za-z]{3}|[0-9]{3})$', [PROBLEM]: 'must be a 3-letter ISO 4217 code such as EUR, or its numeric code', description: 'alpha-3 (EUR) or numeric (978)' },
      { type: 'integer', minimum: 1, maximum: 999, description: 'numeric code (978)' },
    ],
    description: opts.description ?? 'ISO 4217 currency: alpha-3 (EUR) or numeric (978)',
  });
}

/** An amount in minor units of the currency (100 = 1 EUR), from 0 to AMOUNT_MAX. */
export function Amount(opts: { description?: string; minimum?: number } = {}) {
  const int = Int({ minimum: opts.minimum ?? 0, maximum: AMOUNT_MAX, description: opts.description ?? 'minor units of the currency (100 = 1 EUR)' }) as unknown as { anyOf: Record<string, unknown>[] };
  // "10.50" or 10.5 is told that amounts are integers in minor units (platform.ts, PROBLEM `amount`)
  int.anyOf[0] = { ...int.anyOf[0], [PROBLEM]: 'amount' };
  return int as unknown as ReturnType<typeof Int>;
}

/** A boolean: `true`/`false`, `1`/`0`, or the strings "true", "false", "1", "0". */
export function Bool(opts: { description?: string; default?: boolean } = {}) {
  return Type.Unsafe<boolean>({
    anyOf: [
      { type: 'boolean' },
      { type: 'integer', enum: [0, 1] },
      { type: 'string', enum: ['true', 'false', '1', '0'] },
    ],
    [COERCE]: 'bool',
    ...opts,
  });
}

/** `customer_ext_id` / `external_id`: a string, or an integer kept as a string. */
export function ExtId(opts: { description?: string } = {}) {
  return Type.Unsafe<string>({
    anyOf: [
      { type: 'string', minLength: 1, maxLength: 255 },
      { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'kept as a string' },
    ],
    [COERCE]: 'ext-id',
    description: opts.description ?? 'merchant-chosen customer identifier; integers are accepted and kept as strings',
  });
}

/**
 * An optional field that may be null or absent; an empty string means absent too (`service: ""`).
 * The handler sees the inner type, null or undefined.
 */
export function Maybe<T extends TSchema>(t: T, opts: { description?: string } = {}) {
  return Type.Optional(
    Type.Unsafe<Static<T> | null>({
      anyOf: [t, { type: 'null' }, { type: 'string', maxLength: 0, description: 'empty: the same as absent' }],
      [COERCE]: 'empty-absent',
      ...opts,
    }),
  );
}

/** Optional free text of at most `max` characters (null, absent or "" when not given). */
export const OptionalText = (max: number, opts: { description?: string } = {}) => Maybe(Type.String({ maxLength: max, ...opts }));

/** Optional UUID (null, absent or "" when not given). */
export const OptionalUuid = (opts: { description?: string } = {}) => Maybe(Type.String({ format: 'uuid', description: opts.description ?? 'UUID, upper or lower case' }));

/** An IPv4 or IPv6 address. */
export const Ip = Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' })], { description: 'IPv4 or IPv6 address' });

/** Optional IP address of the customer; "" means absent, anything else must be an IPv4 or IPv6 address. */
export const OptionalIp = () => Maybe(Ip, { description: 'IPv4 or IPv6 address of the customer; empty or absent when unknown' });
