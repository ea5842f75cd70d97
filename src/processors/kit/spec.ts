/**
 * The providers' own specifications as the oracle (design.md, "Several acquirers, held to the
 * providers"). Each connector folder holds `spec.ts`: per operation we use, a JSON Schema of the request
 * and of each answer, derived by hand from the provider's published reference (facts only: names, types,
 * enums, required fields), each citing its source and version. A simulator checks every request it
 * receives and every answer it gives against them; in tests a violation fails the file
 * (`SpecLedger.assertClean`), so a connector that sends a field the provider does not define, or a
 * simulator that answers what the provider never would, fails the build.
 *
 * Request schemas are closed (`additionalProperties: false` where the reference lists the fields): a
 * field the provider does not document is a misreading. Answer schemas are open (providers add fields),
 * but what they require and the enums they name are the provider's.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** A JSON Schema (draft 2020-12 subset that Ajv checks: plain JSON Schema, no OpenAPI `nullable`). */
export type JsonSchema = Record<string, unknown>;

export interface SpecOperation {
  /** How the simulator names it: the provider's operation id where it has one (e.g. `requestPayment`). */
  id: string;
  /** Where in the reference it is described (path and method, section or table). */
  source: string;
  /** The request body (JSON, or the decoded parameters of a form protocol); absent: no body. */
  request?: JsonSchema;
  /** Answers by HTTP status, or by a name the simulator uses for one kind of answer (`'notification'`). */
  responses: Record<string, JsonSchema>;
}

export interface ProviderSpec {
  provider: string;
  /** The documents the schemas were derived from, with their version or commit. */
  sources: string[];
  operations: SpecOperation[];
  /** Named schemas the operations refer to with `{ $ref: '#/$defs/Name' }`. */
  defs?: Record<string, JsonSchema>;
}

function problemsOf(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 10).map((e) => {
    const where = e.instancePath || '(body)';
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : e.keyword === 'enum' ? ` (${JSON.stringify((e.params as { allowedValues?: unknown[] }).allowedValues)})` : '';
    return `${where} ${e.message ?? e.keyword}${extra}`;
  });
}

/** Checks bodies against one provider's schemas. */
export class SpecChecker {
  readonly provider: string;
  readonly #ops = new Map<string, SpecOperation>();
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #ajv: Ajv.default;

  constructor(spec: ProviderSpec) {
    this.provider = spec.provider;
    this.#ajv = addFormats.default(new Ajv.default({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, validateFormats: true }));
    this.#ajv.addKeyword({ keyword: 'x-source', schemaType: 'string' });
    if (spec.defs) this.#ajv.addSchema({ $id: 'defs', $defs: spec.defs });
    for (const op of spec.operations) {
      if (this.#ops.has(op.id)) throw new Error(`${spec.provider} spec: operation ${op.id} twice`);
      this.#ops.set(op.id, op);
    }
  }

  #validator(op: SpecOperation, which: string, schema: JsonSchema): ValidateFunction {
    const key = `${op.id}\u0000${which}`;
    let v = this.#compiled.get(key);
    if (!v) {
      // `#/$defs/X` in an operation's schema refers to the spec's shared definitions
      const text = JSON.stringify(schema).replace(/"#\/\$defs\//g, '"defs#/$defs/');
      v = this.#ajv.compile(JSON.parse(text) as JsonSchema);
      this.#compiled.set(key, v);
    }
    return v;
  }

  operation(id: string): SpecOperation {
    const op = this.#ops.get(id);
    if (!op) throw new Error(`${this.provider} spec: no operation ${id}`);
    return op;
  }

  /** The problems of a request body (empty: the reference allows it). */
  request(id: string, body: unknown): string[] {
    const op = this.operation(id);
    if (!op.request) return body === undefined || body === null || body === '' ? [] : ['a body where the reference defines none'];
    const v = this.#validator(op, 'request', op.request);
    return v(body) ? [] : problemsOf(v.errors);
  }

  /** The problems of an answer with this status (or answer name); a status the reference does not list is one. */
  response(id: string, status: number | string, body: unknown): string[] {
    const op = this.operation(id);
    const schema = op.responses[String(status)] ?? op.responses.default;
    if (!schema) return [`answer ${status}, which the reference does not list for ${id}`];
    const v = this.#validator(op, `response ${status}`, schema);
    return v(body) ? [] : problemsOf(v.errors);
  }

  /** Every operation id (tests: each is exercised). */
  ids(): string[] {
    return [...this.#ops.keys()];
  }
}

/**
 * What a simulator saw that its provider's reference does not allow. A simulator records into it; the
 * test harness asserts it clean when the simulator closes, so a violation fails the file that caused it.
 */
export class SpecLedger {
  readonly violations: string[] = [];
  /** Operation ids checked at least once, with the statuses answered (coverage of the spec). */
  readonly seen = new Map<string, Set<string>>();

  constructor(readonly checker: SpecChecker) {}

  /** Checks a request; returns its problems (the simulator answers them as the provider would). */
  request(id: string, body: unknown): string[] {
    const problems = this.checker.request(id, body);
    this.#note(id, 'request');
    if (problems.length > 0) this.violations.push(`${this.checker.provider} ${id} request: ${problems.join('; ')}`);
    return problems;
  }

  /** Checks an answer the simulator is about to give. */
  response(id: string, status: number | string, body: unknown): string[] {
    const problems = this.checker.response(id, status, body);
    this.#note(id, String(status));
    if (problems.length > 0) this.violations.push(`${this.checker.provider} ${id} answer ${status}: ${problems.join('; ')}`);
    return problems;
  }

  #note(id: string, what: string): void {
    let s = this.seen.get(id);
    if (!s) this.seen.set(id, (s = new Set()));
    s.add(what);
  }

  /** Throws with every violation recorded so far (and forgets them). */
  assertClean(): void {
    if (this.violations.length === 0) return;
    const list = this.violations.splice(0);
    throw new Error(`${this.checker.provider}: ${list.length} request(s) or answer(s) the provider's reference does not allow:\n- ${list.slice(0, 20).join('\n- ')}`);
  }
}
