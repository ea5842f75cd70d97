/**
 * Validation of requests against the routes' schemas: the validator compilers (bodies strict, query and
 * path coerced, lenient scalars read first), and the problems of a request as the error envelope lists
 * them, in the client's terms.
 */
import type { FastifyInstance } from 'fastify';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

import { lenientValidator } from './lenient.js';

/**
 * The validators' compilers, one pair per process: Ajv keeps what it compiled by schema object, so a
 * second app built in the same process (a peer app of the tests, a gateway rebuilt after a restart in
 * process) reuses the compiled validators of the route schemas, which are module constants.
 */
let compilers: { body: Ajv.default; param: Ajv.default } | null = null;
function validatorCompilers() {
  if (!compilers) {
    // verbose: each error carries its schema node and value, so problems are told as sentences (PROBLEM)
    const base = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false, verbose: true } as const;
    compilers = {
      // every problem of a body is reported (errors[] of the envelope), not only the first
      body: addFormats.default(new Ajv.default({ ...base, coerceTypes: false, allErrors: true })),
      param: addFormats.default(new Ajv.default({ ...base, coerceTypes: 'array' })),
    };
  }
  return compilers;
}

/** Validator compilers: bodies are validated strictly (wrong types are 400), query and path coerced. */
export function installValidators(app: FastifyInstance): void {
  const { body, param } = validatorCompilers();
  // lenient scalars (decisions §10): marked values are read into their canonical form first (lenient.ts)
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(() => lenientValidator(schema, (s) => (httpPart === 'body' ? body : param).compile(s as object))) as any,
  );
}

type Validate = { (data: unknown): unknown; errors?: unknown };

/**
 * A route's validator compiled when its first request arrives, not when the route is registered:
 * compiling the few hundred schemas of every route took about 0.75 s of each start (a gateway, a worker,
 * a `paygate` command that never serves a request). The first request of a route pays its few ms.
 */
export function lazyValidator(compile: () => Validate): Validate {
  let validate: Validate | null = null;
  const fn: Validate = (data: unknown) => {
    validate ??= compile();
    const result = validate(data);
    fn.errors = validate.errors;
    return result;
  };
  return fn;
}

/** One validation problem, as the error envelope lists it in `errors`. */
export interface FieldProblem {
  /** The field as the client sent it: `amount`, `cards[0].card_pan`, `extra_data.cof.reason`. */
  field: string;
  /** What is wrong with it, e.g. `is required`, `must be integer`, `must be one of: MAIL, PHONE`. */
  problem: string;
}

/** JSON pointer (`/cards/0/card_pan`) to the way a client names the field (`cards[0].card_pan`). */
function fieldName(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^[0-9]+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/**
 * Every problem Ajv found, one per field and kind: the branches of a union are merged (`must be string
 * or integer`), and a nullable field's "must be null" is dropped when the other branch says more.
 */
export function schemaProblems(errors: any[]): FieldProblem[] {
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const byPath = new Map<string, any[]>();
  for (const e of useful) {
    const key = e.instancePath ?? '';
    byPath.set(key, [...(byPath.get(key) ?? []), e]);
  }
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const add = (field: string, problem: string) => {
    const k = `${field}\u0000${problem}`;
    if (seen.has(k)) return;
    seen.add(k);
    problems.push({ field, problem });
  };
  for (const [path, list] of byPath) {
    const types = list.filter((e) => e.keyword === 'type');
    const others = list.filter((e) => e.keyword !== 'type');
    // a value of the right type that breaks a rule: the rule says more than the other branches' types
    const typeMatched = others.some((e) => e.keyword !== 'required' && e.keyword !== 'const' && e.keyword !== 'enum');
    if (types.length > 0 && !typeMatched) {
      const told = types.map(sentenceFor).find((x) => x !== undefined);
      if (told) {
        add(fieldName(path), told);
        for (const e of others.filter((x) => x.keyword === 'required')) add(fieldName(path, e.params.missingProperty), 'is required');
        continue;
      }
      const names = [...new Set(types.flatMap((e) => [e.params?.type].flat()))];
      const consts = others.filter((e) => e.keyword === 'const' || e.keyword === 'enum');
      const allowed = consts.flatMap((e) => (e.keyword === 'const' ? [e.params?.allowedValue] : (e.params?.allowedValues ?? [])));
      const what = [...names, ...allowed.map((v: unknown) => JSON.stringify(v))];
      add(fieldName(path), `must be ${what.join(' or ')}`);
      for (const e of others.filter((x) => x.keyword === 'required')) add(fieldName(path, e.params.missingProperty), 'is required');
      continue;
    }
    const enumValues = others.filter((e) => e.keyword === 'const' || e.keyword === 'enum');
    if (enumValues.length > 0) {
      const allowed = enumValues.flatMap((e) => (e.keyword === 'const' ? [e.params?.allowedValue] : (e.params?.allowedValues ?? [])));
      add(fieldName(path), `must be one of: ${allowed.join(', ')}`);
    }
    for (const e of others) {
      if (e.keyword === 'const' || e.keyword === 'enum') continue;
      if (e.keyword === 'required') add(fieldName(path, e.params.missingProperty), 'is required');
      else if (e.keyword === 'additionalProperties') add(fieldName(path, e.params.additionalProperty), 'is not allowed');
      else add(fieldName(path), sentenceFor(e) ?? String(e.message ?? 'is invalid'));
    }
  }
  return problems;
}

/** The sentence a schema node asks for (`x-problem`, schemas.ts PROBLEM), or one for a pattern; else undefined. */
function sentenceFor(e: any): string | undefined {
  const told = e.parentSchema?.['x-problem'];
  if (told === 'amount') return e.keyword === 'type' ? amountProblem(e.data) : undefined;
  if (typeof told === 'string' && (e.keyword === 'pattern' || e.keyword === 'type' || e.keyword === 'format')) return told;
  if (e.keyword === 'pattern') return describePattern(String(e.params?.pattern ?? ''), e.parentSchema?.description);
  return undefined;
}

/** An amount sent in major units ("10.50", 10.5) is told what to send instead. */
export function amountProblem(v: unknown): string {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?[0-9]+([.,][0-9]+)?\s*$/.test(v) ? Number(v.trim().replace(',', '.')) : NaN;
  const example = Number.isFinite(n) && !Number.isInteger(n) && Math.abs(n) < 1e12 ? `${n.toFixed(2)} in a currency with cents is ${Math.round(n * 100)}` : '10.50 in a currency with cents is 1050';
  return `must be an integer: amounts are in minor units of the currency (${example})`;
}

/** A pattern as a sentence: `^[0-9]{4}$` with description `YYMM` is `must be 4 digits (YYMM)`. */
export function describePattern(pattern: string, description?: string): string {
  const note = description ? ` (${description})` : '';
  const classes: Record<string, string> = { '[0-9]': 'digits', '[A-Z]': 'upper-case letters', '[A-Za-z]': 'letters', '[0-9A-Fa-f]': 'hexadecimal digits', '[A-Za-z0-9]': 'letters or digits' };
  const m = /^\^(\[[^\]]+\])(?:\{(\d+)(?:,(\d+))?\}|(\+))\$$/.exec(pattern);
  if (m && classes[m[1]]) {
    const what = classes[m[1]];
    if (m[4]) return `must be ${what} only${note}`;
    return m[3] ? `must be ${m[2]} to ${m[3]} ${what}${note}` : `must be ${m[2]} ${what}${note}`;
  }
  if (pattern === '^-?[0-9]+$') return `must be a whole number${note}`;
  return description ? `must be ${description}` : 'is not in the format the API reference shows for it';
}

const DETAILS_MAX = 10;
const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/**
 * Validation messages that name the field and say what is expected, e.g.
 * `amount must be integer; operative must be one of: AUTHORIZATION, DEFERRED` (path and query
 * parameters say so: `path parameter order_uuid must match format "uuid"`). The error
 * also carries every problem as `problems` ({field, problem}), which the error handler puts in the
 * envelope's `errors`.
 */
export function formatSchemaErrors(errors: any[], dataVar: string): Error {
  const problems = schemaProblems(errors);
  const list = problems.length > 0 ? problems : [{ field: '', problem: 'is invalid' }];
  const part = PART_NAMES[dataVar] ?? dataVar;
  const text = list
    .slice(0, DETAILS_MAX)
    .map((p) => (p.field === '' ? `the request ${dataVar === 'querystring' ? 'query' : dataVar} ${p.problem}` : `${part === 'body' ? '' : `${part} `}${p.field} ${p.problem}`))
    .join('; ');
  const more = list.length > DETAILS_MAX ? `; and ${list.length - DETAILS_MAX} more (see errors)` : '';
  const err = new Error(text + more) as Error & { problems: FieldProblem[] };
  err.problems = problems;
  return err;
}
