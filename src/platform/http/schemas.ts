/** Schema building blocks shared by every module's TypeBox schemas. */
import Type, { type TProperties, type TSchema } from 'typebox';

export { Type };

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Uuid = Type.String({ format: 'uuid', description: 'UUID, upper or lower case' });

export const Mcc = Type.String({ pattern: '^[0-9]{4}$', description: 'merchant category code: 4 digits' });

export const ContractDate = Type.String({ description: 'YYYY-MM-DDTHH:mm:ss+HHMM' });

/** A write body: the operation's fields plus the required `signature`. */
export function signedBody<P extends TProperties>(props: P, opts: { description?: string } = {}) {
  return Type.Object({ signature: Type.String({ minLength: 1, description: 'signature issued with the API key' }), ...props }, opts);
}

/** Success envelope with the operation's fields. */
export function envelope<P extends TProperties>(props: P) {
  return Type.Object({
    message: Type.String({ examples: ['OK'] }),
    code: Type.Integer({ examples: [200] }),
    current_time: ContractDate,
    ...props,
  });
}

export const ErrorEnvelope = Type.Object(
  {
    message: Type.String(),
    code: Type.Integer(),
    current_time: ContractDate,
    details: Type.String(),
  },
  { description: 'Error envelope' },
);

/** Responses of an API route: 200 plus the error envelope for 4xx/5xx. */
export function responses<T extends TSchema>(ok: T, extra: Record<number, TSchema> = {}) {
  return { 200: ok, ...extra, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };
}
