/**
 * A typed client of the paygate API: the types are generated from the OpenAPI document
 * (docs/openapi.json → schema.ts, `npm run client`), the runtime is openapi-fetch.
 *
 *   const paygate = createPaygateClient({ baseUrl: 'http://127.0.0.1:8080/v1/sandbox', apiKey });
 *   const { data, error } = await paygate.POST('/payment', { body: { signature, amount: 1050, ... } });
 *
 * Every path, body, parameter and answer is typed from the document; `error` is the error envelope
 * (`details`, and `errors` when the request failed validation).
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export type PaygateClient = Client<paths>;
/** A named record of the API, e.g. `Schema<'Order'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface PaygateClientOptions {
  /** The API root with its environment: `https://gateway.example/v1/sandbox` or `.../v1`. */
  baseUrl: string;
  /** The API key, sent by HTTP Basic authentication (the key as user name, empty password). */
  apiKey: string;
  /** Another fetch (tests, proxies); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

export function createPaygateClient(options: PaygateClientOptions): PaygateClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return client;
}
