/**
 * Contract check for every in-process test: each JSON response is validated against the response
 * schema its route declares (the schema the OpenAPI document is generated from), with undeclared
 * fields treated as errors. A mismatch turns the response into a 500, so the test that made the
 * request fails and the documentation cannot drift from the code.
 */
import type { FastifyInstance } from 'fastify';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

function strict(schema: any): any {
  if (Array.isArray(schema)) return schema.map(strict);
  if (!schema || typeof schema !== 'object') return schema;
  const out: any = {};
  for (const [k, v] of Object.entries(schema)) out[k] = strict(v);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined && !out.patternProperties) {
    out.additionalProperties = false;
  }
  return out;
}

// one compiler and cache for every app of a worker (the route schemas are module constants)
const ajv = addFormats.default(new Ajv.default({ strict: false, allErrors: true }));
const cache = new WeakMap<object, ReturnType<typeof ajv.compile>>();

export function installResponseValidation(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const schema = (req.routeOptions.schema as { response?: Record<string, unknown> } | undefined)?.response;
    const status = reply.statusCode;
    if (!schema || typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('json')) return payload;
    const declared = (schema[String(status)] ?? schema[`${String(status)[0]}xx`]) as object | undefined;
    if (!declared) {
      if (status < 400) throw new Error(`${req.method} ${req.routeOptions.url} answered ${status}, which its schema does not declare`);
      return payload;
    }
    let validate = cache.get(declared);
    if (!validate) {
      validate = ajv.compile(strict(declared));
      cache.set(declared, validate);
    }
    if (!validate(JSON.parse(payload))) {
      const errors = ajv.errorsText(validate.errors, { separator: '; ' });
      throw new Error(`response of ${req.method} ${req.routeOptions.url} (${status}) does not match its schema: ${errors}`);
    }
    return payload;
  });
}
