/**
 * Schema building blocks shared by every module's TypeBox schemas.
 *
 * OpenAPI: a schema with a `title` is a named record of the API. The document generator hoists it
 * into `components.schemas.<title>` and refers to it with `$ref` (titles are unique: two different
 * schemas with one title fail the build). Records carry one realistic example in `examples`; request
 * bodies carry theirs too (`signedBody(props, { title, examples })`), and response examples are put
 * together from the examples of the records they hold (src/platform/http/openapi.ts).
 */
import Type, { type TProperties, type TSchema } from 'typebox';

export { Type };

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'UUID, upper or lower case', examples: ['5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10'] });

export const Mcc = Type.String({ pattern: '^[0-9]{4}$', description: 'merchant category code: 4 digits' });

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

export const ErrorEnvelope = Type.Object(
  {
    message: Type.String({ description: 'the reason phrase of the status', examples: ['Bad Request'] }),
    code: Type.Integer({ description: 'the HTTP status code', examples: [400] }),
    current_time: ContractDate,
    details: Type.String({ description: 'what went wrong, as a sentence' }),
    errors: Type.Optional(Type.Array(FieldProblem, { description: 'validation errors only: every problem found, one per field and kind' })),
  },
  {
    title: 'ErrorEnvelope',
    description: 'Every error: the envelope with `details`, and `errors` when the request failed validation',
    examples: [{
      message: 'Bad Request',
      code: 400,
      current_time: '2026-03-14T10:21:07+0100',
      details: 'amount must be integer; operative is required',
      errors: [{ field: 'amount', problem: 'must be integer' }, { field: 'operative', problem: 'is required' }],
    }],
  },
);

/** Responses of an API route: 200 plus the error envelope for 4xx/5xx. */
export function responses<T extends TSchema>(ok: T, extra: Record<number, TSchema> = {}) {
  return { 200: ok, ...extra, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };
}
