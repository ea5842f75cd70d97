/**
 * Lenient scalars, read the way a PHP service reads them (existing clients send `secure: 1`,
 * `amount: 1998.9999999999998`, `customer_ext_id: 42`, `service: ""`). One mechanism for every route,
 * driven by the route's schema:
 *
 * - A schema node built by the shared builders of schemas.ts (`Bool`, `Amount`, `Int`, `ExtId`,
 *   `Maybe`, ...) is an `anyOf` of every form the API accepts (that is what the OpenAPI document
 *   shows) with an `x-coerce` marker naming how to read it. The FIRST branch of the `anyOf` is the
 *   canonical form the handler receives.
 * - Before validation, `coerce` walks the request data along the schema and rewrites each marked value
 *   into its canonical form (`1` → `true`, `"1000"` → `1000`, `1998.9999999999998` → `1999`, `42` →
 *   `"42"`, `""` in an optional field → the field is removed).
 * - The data is then validated against `canonical(schema)`: the same schema with every marked node
 *   replaced by its first branch. A value that could not be read (`19.5` for an amount) keeps its
 *   original form and fails there with the usual message naming the field (`must be integer`).
 */

export const COERCE = 'x-coerce';

/** How a marked node is read. */
export type CoerceKind = 'bool' | 'int' | 'ext-id' | 'empty-absent';

/** A number within this distance of an integer is that integer (PHP float totals such as 19.99*100). */
export const INTEGER_TOLERANCE = 1e-6;

const ABSENT = Symbol('absent');

type Schema = Record<string, any>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value in its canonical form, or the value unchanged when it cannot be read as that kind. */
export function coerceScalar(kind: Exclude<CoerceKind, 'empty-absent'>, v: unknown): unknown {
  switch (kind) {
    case 'bool':
      if (v === 1 || v === '1' || v === 'true') return true;
      if (v === 0 || v === '0' || v === 'false') return false;
      return v;
    case 'int':
      if (typeof v === 'number') {
        if (!Number.isFinite(v) || Number.isInteger(v)) return v;
        const r = Math.round(v);
        return Math.abs(v - r) <= INTEGER_TOLERANCE ? r : v;
      }
      // digit strings; the node's maximum (always below 2^53) rejects anything a double would round
      if (typeof v === 'string' && /^-?[0-9]{1,30}$/.test(v)) return Number(v);
      return v;
    case 'ext-id':
      return typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
  }
}

const hasCache = new WeakMap<object, boolean>();

/** True when the schema (or anything under it) carries an `x-coerce` marker. */
export function hasCoercion(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  const cached = hasCache.get(schema);
  if (cached !== undefined) return cached;
  hasCache.set(schema, false); // cycles
  let found = COERCE in schema;
  if (!found) {
    for (const k of ['properties', 'patternProperties'] as const) {
      if (isPlainObject(schema[k])) found ||= Object.values(schema[k]).some(hasCoercion);
    }
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
      if (Array.isArray(schema[k])) found ||= schema[k].some(hasCoercion);
    }
    found ||= hasCoercion(schema.items) || hasCoercion(schema.additionalProperties);
  }
  hasCache.set(schema, found);
  return found;
}

/** Does `v` have a JSON type the (unmarked) schema node could describe? Used to pick an anyOf branch. */
function couldMatch(schema: Schema, v: unknown): boolean {
  const t = schema.type;
  if (t === undefined) return true;
  const types: string[] = Array.isArray(t) ? t : [t];
  const actual = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v;
  return types.some((x) => x === actual || (x === 'integer' && actual === 'number') || (x === 'object' && actual === 'object'));
}

function walk(schema: unknown, v: unknown): unknown {
  if (!isPlainObject(schema) || !hasCoercion(schema)) return v;
  const kind = schema[COERCE] as CoerceKind | undefined;
  const branches: Schema[] | undefined = Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (kind) {
    if (kind === 'empty-absent') {
      if (v === '') return ABSENT;
      if (v === null || v === undefined) return v;
      return walk(branches?.[0], v);
    }
    return walk(branches?.[0], coerceScalar(kind, v));
  }
  if (isPlainObject(v) && isPlainObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (!(name in v)) continue;
      const next = walk(sub, v[name]);
      if (next === ABSENT) delete v[name];
      else v[name] = next;
    }
  }
  if (isPlainObject(v) && (isPlainObject(schema.patternProperties) || isPlainObject(schema.additionalProperties))) {
    const named = isPlainObject(schema.properties) ? schema.properties : {};
    const patterns = Object.entries(isPlainObject(schema.patternProperties) ? schema.patternProperties : {}).map(([re, sub]) => [new RegExp(re, 'u'), sub] as const);
    for (const name of Object.keys(v)) {
      if (name in named) continue;
      const sub = patterns.find(([re]) => re.test(name))?.[1] ?? (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (!sub) continue;
      const next = walk(sub, v[name]);
      if (next === ABSENT) delete v[name];
      else v[name] = next;
    }
  }
  if (Array.isArray(v) && isPlainObject(schema.items)) {
    for (let i = 0; i < v.length; i++) {
      const next = walk(schema.items, v[i]);
      v[i] = next === ABSENT ? null : next;
    }
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    const list = schema[k];
    if (!Array.isArray(list)) continue;
    const branch = list.find((b: Schema) => hasCoercion(b) && (COERCE in b || couldMatch(b, v)));
    if (branch) return walk(branch, v);
  }
  if (Array.isArray(schema.allOf)) for (const b of schema.allOf) v = walk(b, v);
  return v;
}

/**
 * Rewrites `data` into the canonical forms its schema asks for (in place for objects and arrays).
 * Returns the (possibly new) top-level value.
 */
export function coerce(schema: unknown, data: unknown): unknown {
  const out = walk(schema, data);
  return out === ABSENT ? undefined : out;
}

const canonicalCache = new WeakMap<object, unknown>();

/** The schema the coerced data is validated against: every marked node replaced by its canonical form. */
export function canonical(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(canonical);
  if (!isPlainObject(schema) || !hasCoercion(schema)) return schema;
  const cached = canonicalCache.get(schema);
  if (cached) return cached;
  let out: Schema;
  const kind = schema[COERCE] as CoerceKind | undefined;
  if (kind) {
    const branches = schema.anyOf as Schema[];
    const keep = kind === 'empty-absent' ? { anyOf: branches.slice(0, -1).map(canonical) } : (canonical(branches[0]) as Schema);
    out = { ...keep };
    if ('default' in schema) out.default = schema.default;
  } else {
    out = {};
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' || k === 'patternProperties') {
        out[k] = Object.fromEntries(Object.entries(v as Schema).map(([name, sub]) => [name, canonical(sub)]));
      } else if (k === 'items' || k === 'additionalProperties' || k === 'anyOf' || k === 'oneOf' || k === 'allOf') {
        out[k] = canonical(v);
      } else {
        out[k] = v;
      }
    }
  }
  canonicalCache.set(schema, out);
  return out;
}

/** Validation function shape shared by Ajv and Fastify (`errors` set after a failed call). */
export interface ValidateFn {
  (data: unknown): boolean | { value: unknown };
  errors?: unknown;
}

/**
 * A Fastify validator for `schema`: lenient values are read into their canonical form, then `compile`d
 * validation runs on the canonical schema.
 */
export function lenientValidator(schema: unknown, compile: (s: unknown) => { (d: unknown): boolean; errors?: unknown }): ValidateFn {
  const validate = compile(canonical(schema));
  if (!hasCoercion(schema)) return validate as ValidateFn;
  const fn: ValidateFn = (data: unknown) => {
    const value = coerce(schema, data);
    const ok = validate(value);
    fn.errors = validate.errors;
    if (!ok) return false;
    return value === data ? true : { value };
  };
  return fn;
}
