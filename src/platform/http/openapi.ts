/**
 * The OpenAPI document of the API: how @fastify/swagger is configured, and the last step that turns
 * its output into a self-contained reference.
 *
 * - Every path is listed once, without the `/v1` or `/v1/sandbox` prefix; the servers say where it
 *   lives, sandbox first (so "try it" in the reference targets the sandbox).
 * - A schema with a `title` is a named record: it is hoisted into `components.schemas.<title>` and
 *   referred to with `$ref` (schemas.ts). Two different schemas with one title are a build error.
 * - Every JSON request body and response has an example: the route's own (`examples` on the body
 *   schema), or one put together from the examples of the records and fields it holds.
 */
import { isDeepStrictEqual } from 'node:util';

const DESCRIPTION = `A self-hosted payment gateway: payment orders and their hosted payment page, card payments, deferred
capture, refunds, a card vault, customers, partner merchants with services and terminals, and signed
notifications.

## Environments
Every path exists twice: under \`/v1\` (production) and under \`/v1/sandbox\` (sandbox, no real money).
Data, keys and clock are fully separate per environment: a sandbox key is unknown to production. The
sandbox runs on a simulated processor with test cards (\`4548812049400004\` approved, \`4111111111111111\`
refused, \`4761739000091011\` 3-D Secure).

## Authentication
Send the API key by HTTP Basic authentication (the key as user name, empty password) or as
\`Authorization: Bearer KEY\`. A missing or unknown key is 401.

**Every POST, PUT, PATCH and DELETE body carries \`signature\`**: the secret issued together with the API
key (it is not computed; send it as issued). A missing or wrong signature is 403. To try an operation
here, enter your key under Authentication and replace the \`signature\` of the example body with yours.

Card-present routes (\`/card-present/...\`) are called by a payment terminal with its own device token
(\`Authorization: Bearer DEVICE_TOKEN\`, issued by \`POST /device\`) and carry no \`signature\`.

## Answers
Every answer is a JSON envelope: \`message\` (\`OK\` on success), \`code\` (the HTTP status), \`current_time\`,
then the operation's fields. Errors carry \`details\`, a sentence saying what went wrong, and requests
that fail validation also list every problem in \`errors: [{field, problem}]\`. A path called with a
method it does not have is 405 with an \`Allow\` header. Amounts are integers in the currency's minor
unit (1050 = 10.50 EUR). Clients must tolerate new fields in any answer.

An optional \`Idempotency-Key\` header on a POST replays the first answer for 24 hours.`;

export interface OpenApiOptions {
  publicUrl: string;
}

/** The `openapi` option of @fastify/swagger. */
export function openapiDefinition(opts: OpenApiOptions) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'paygate API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: `${opts.publicUrl}/v1/sandbox`, description: 'Sandbox (no real money)' },
      { url: `${opts.publicUrl}/v1`, description: 'Production' },
    ],
    tags: [
      { name: 'auth', description: 'Check a key and its profiles' },
      { name: 'payments', description: 'Create orders, pay them, and follow up: confirm, cancel, refund, payout' },
      { name: 'orders', description: 'Read, expire and list orders and their transactions' },
      { name: 'pages', description: 'The customer-facing pages an order links to (HTML, no API key)' },
      { name: 'customers', description: 'Customers, their accounts, addresses and profiles' },
      { name: 'sources', description: 'Stored payment methods: cards and bank accounts' },
      { name: 'events', description: 'Notifications sent to url_post, with their delivery attempts' },
      { name: 'templates', description: 'The look of the payment pages, and where they may be framed' },
      { name: 'merchants', description: 'Partner operations: child merchants, promotion, dashboard users' },
      { name: 'services', description: 'Services and terminals that connect a merchant to a processor' },
      { name: 'checkouts', description: 'Checkout configurations: the payment methods and look offered to customers' },
      { name: 'security-lists', description: 'Security lists: blocked or allowed cards, emails, IPs, countries and BINs, applied to services' },
      { name: 'antifraud', description: 'Antifraud rules: the score thresholds that decide review, 3-D Secure or refusal' },
      { name: 'devices', description: 'Physical devices (payment terminals): register them, send them payments, follow up; the device socket and the simulated device' },
      { name: 'card-present', description: 'Card-present operations a payment terminal makes with its own bearer token: payments, refunds, voids, lookups by STAN and RRN' },
      { name: 'moto', description: 'MoTo campaigns: payment links in bulk by SMS or e-mail, with evidence of delivery and opening' },
      { name: 'batch', description: 'Batch files: payments with stored cards and refunds from a CSV file' },
      { name: 'subscriptions', description: 'Recurring billing: products, plans, subscriptions and their scheduled charges' },
      { name: 'payment-methods', description: 'Alternative payment methods (APMs) by kind (redirect, push, voucher): which a service offers, and PUSH payments' },
      { name: 'wallets', description: 'Google Pay and Apple Pay (B14): wallet payments with the wallets\' encrypted tokens, the merchant\'s wallet keys, and which services offer each wallet' },
      { name: 'reconciliation', description: 'Reconciliation (ours, beyond the payment API): the acquirers\' settlement reports matched to transactions, payouts expected and received, bank statements (camt.053, Norma 43)' },
      { name: 'disputes', description: 'Disputes and chargebacks (ours, beyond the payment API): disputes of payments entered by hand, imported from an acquirer\'s file or raised by the sandbox, their evidence, submission and acceptance, their deadlines and outcomes' },
      { name: 'routing', description: 'Routing and cascading (ours, beyond the payment API): routing profiles that pick, per payment, the services to try in order (rules over the card, amount, currency, countries, channel and metadata; weighted splits; fallbacks), a profile tried on a hypothetical payment, and the services\' health and circuit breakers' },
      { name: 'sandbox', description: 'Sandbox tools: the test clock, the sandbox APM provider that completes APM payments, and how the simulator behaves for each sandbox service' },
    ],
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'The API key as user name, empty password' },
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as bearer token' },
        deviceToken: { type: 'http', scheme: 'bearer', description: 'Card-present routes: the bearer token issued when the device was registered (POST /device)' },
      },
    },
    security: [{ basicAuth: [] }, { bearerAuth: [] }],
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = Record<string, any>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Placeholder for a string with nothing to go on; the OpenAPI test fails on it (give an example). */
export const EXAMPLE_PLACEHOLDER = 'string';

/**
 * An example value for a schema: its own example, else one built from its parts. Optional properties
 * are shown when they are records (titled) or carry an example of their own.
 */
export function exampleOf(schema: unknown, depth = 0): Json {
  if (!isObj(schema) || depth > 12) return null;
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema && schema.default !== null) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    const chosen = branches.find((b) => !(isObj(b) && b.type === 'null')) ?? branches[0];
    return exampleOf(chosen, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'object' || isObj(schema.properties)) {
    const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
    const out: Obj = {};
    for (const [k, v] of Object.entries((schema.properties ?? {}) as Obj)) {
      const shown = required.has(k) || (isObj(v) && (typeof v.title === 'string' || 'example' in v || Array.isArray(v.examples)));
      if (shown) out[k] = exampleOf(v, depth + 1);
    }
    return out;
  }
  if (type === 'array') return isObj(schema.items) ? [exampleOf(schema.items, depth + 1)] : [];
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 0;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  if (type === 'string') {
    if (schema.format === 'uuid') return '5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10';
    if (schema.format === 'date-time') return '2026-03-14T09:21:07.000Z';
    if (schema.format === 'email') return 'shop@example.com';
    if (schema.format === 'uri') return 'https://shop.example/';
    return EXAMPLE_PLACEHOLDER;
  }
  return null;
}

/**
 * What a customer page answers, in short: the example of every `text/html` answer that has none (the
 * pages are documented in docs/pages.md; the reference shows the shape, not each page).
 */
const EXAMPLE_PAGE = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Pay Shop</title></head>\n<body><main><h1>Pay 10.50 € to Shop</h1><form method="post">…</form></main></body></html>';

/** Adds an example to every JSON request body and response that has none, and to every page answer. */
function addExamples(doc: Obj): void {
  for (const item of Object.values((doc.paths ?? {}) as Obj)) {
    for (const method of METHODS) {
      const op = (item as Obj)[method];
      if (!isObj(op)) continue;
      for (const res of Object.values((op.responses ?? {}) as Obj)) {
        const html = (res as Obj)?.content?.['text/html'];
        if (isObj(html) && !('example' in html) && !('examples' in html)) html.example = EXAMPLE_PAGE;
      }
    }
  }
  addJsonExamples(doc);
  addParameterExamples(doc);
}

/**
 * Examples of the path parameters and headers that have none, by name (the same value wherever the name
 * is used), so every operation's example request is complete; other parameters from their schema.
 */
const PARAMETER_EXAMPLES: Record<string, unknown> = {
  token: '9d6e9383690b1ef767b4ad981c1f46f1d440f8bb',
  external_id: 'plan-gold',
  ext_id: 'customer-42',
  id: '5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10',
  connector: 'redsys',
  reference: '260314000123',
  stan: '000123',
  rrn: '604218377215',
  'x-service-mid': '999008881',
  'x-service-tid': '40213377',
  'last-event-id': '1773480067000-1742',
  campaign_uuid: '7c2e9a41-5b3d-4f6e-8a1c-2d4b6e8f0a13',
  moto_payment_uuid: '1e3c5a7b-9d2f-4b6a-8c0e-3f5a7c9e1b2d',
  batch_uuid: '4e7a9c1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d',
};

function addParameterExamples(doc: Obj): void {
  for (const item of Object.values((doc.paths ?? {}) as Obj)) {
    for (const method of METHODS) {
      const op = (item as Obj)[method];
      if (!isObj(op) || !Array.isArray(op.parameters)) continue;
      for (const prm of op.parameters as Obj[]) {
        const schema = (prm.schema ?? {}) as Obj;
        if ('example' in prm || 'examples' in prm || 'examples' in schema || 'example' in schema || 'default' in schema) continue;
        const byName = PARAMETER_EXAMPLES[String(prm.name).toLowerCase()];
        if (byName !== undefined && (prm.in === 'path' || prm.in === 'header')) prm.example = byName;
        else if (prm.in === 'path') {
          const v = exampleOf(schema);
          if (v !== EXAMPLE_PLACEHOLDER) prm.example = v;
        }
      }
    }
  }
}

function addJsonExamples(doc: Obj): void {
  for (const item of Object.values((doc.paths ?? {}) as Obj)) {
    for (const method of METHODS) {
      const op = (item as Obj)[method];
      if (!isObj(op)) continue;
      const media: Obj[] = [];
      const body = op.requestBody?.content?.['application/json'];
      if (isObj(body)) media.push(body);
      for (const res of Object.values((op.responses ?? {}) as Obj)) {
        const m = (res as Obj)?.content?.['application/json'];
        if (isObj(m)) media.push(m);
      }
      for (const m of media) {
        if ('example' in m || 'examples' in m) continue;
        m.example = exampleOf(m.schema);
      }
    }
  }
}

const SCHEMA_KEYS = ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'enum', 'items'];
const isNamedSchema = (v: Obj) => typeof v.title === 'string' && SCHEMA_KEYS.some((k) => k in v);

/** The schema without the keys that may differ between two uses of one record. */
function comparable(v: Obj): Obj {
  const { examples: _e, example: _x, ...rest } = v;
  return rest;
}

/** Replaces every named (titled) schema by a `$ref` to `components.schemas`. */
function hoistNamedSchemas(doc: Obj): void {
  const components = (doc.components ??= {});
  const schemas: Obj = (components.schemas ??= {});
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObj(node)) return node;
    const copy: Obj = {};
    for (const [k, v] of Object.entries(node)) copy[k] = visit(v);
    if (!isNamedSchema(copy)) return copy;
    const name = copy.title as string;
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`OpenAPI: schema title "${name}" is not a valid component name`);
    const existing = schemas[name] as Obj | undefined;
    if (existing && !isDeepStrictEqual(comparable(existing), comparable(copy))) {
      throw new Error(`OpenAPI: two different schemas are named ${name}; give one another title`);
    }
    if (!existing || (!existing.examples && copy.examples)) schemas[name] = copy;
    return { $ref: `#/components/schemas/${name}` };
  };
  doc.paths = visit(doc.paths ?? {});
  const sorted: Obj = {};
  for (const key of Object.keys(schemas).sort()) sorted[key] = schemas[key];
  components.schemas = sorted;
}

/** The `transformObject` of @fastify/swagger: examples first (on whole schemas), then components. */
export function finishDocument(doc: Obj): Obj {
  addExamples(doc);
  hoistNamedSchemas(doc);
  return doc;
}
