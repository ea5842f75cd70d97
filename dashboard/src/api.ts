/**
 * The dashboard API client: JSON over fetch with the session cookie (same origin), the CSRF token on
 * every change, and the API's error envelope turned into an ApiError whose `details` the pages show as
 * the server wrote it (the contract's own words for a refused refund).
 *
 * The answers' types are not written here by hand: they come from the OpenAPI documents, generated from
 * the server's route schemas: `Answer<'/orders', 'get'>` from docs/dashboard-openapi.json (schema.ts,
 * `npm run openapi`), `V1Answer<'/payment', 'post'>` from docs/openapi.json (the API's typed client,
 * clients/typescript/schema.ts, `npm run client`). A server change that breaks the app fails `tsc`.
 */
import type { paths } from './schema';
import type { components as V1Components, paths as V1Paths } from '../../clients/typescript/schema';

export const API = '/dashboard/api';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The JSON body of an operation's success answer (200, else 201). */
type Success<Op> = Op extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;
/** The methods of a path item whose success answer is JSON (a CSV export or an event stream is no `Answer`). */
type MethodOf<Item> = { [M in Method]: [Success<Item[M & keyof Item]>] extends [never] ? never : M }[Method];

/** What a dashboard API route answers, by its path in docs/dashboard-openapi.json and its method: `Answer<'/orders', 'get'>`. */
export type Answer<P extends keyof paths, M extends MethodOf<paths[P]>> = Success<paths[P][M & keyof paths[P]]>;
/** What a merchant API route answers through the bridge (`v1`), by its path in docs/openapi.json and its method: `V1Answer<'/payment', 'post'>`. */
export type V1Answer<P extends keyof V1Paths, M extends MethodOf<V1Paths[P]>> = Success<V1Paths[P][M & keyof V1Paths[P]]>;
/** A named record of the merchant API's document (e.g. the `LineProblem` of a refused file's 422): `V1Schema<'LineProblem'>`. */
export type V1Schema<Name extends keyof V1Components['schemas']> = V1Components['schemas'][Name];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly details: string,
    /** the whole error answer (e.g. a file's `errors: [{line, msg}]`) */
    readonly body: any = null,
  ) {
    super(details);
  }
}

let csrf: string | null = null;

export function setCsrf(token: string | null) {
  csrf = token;
}

/**
 * Whether a person acted (a click, a key, a touch) since the last request: only then is a request a use
 * of the session. A page's own refresh or the list read again after a live change is sent marked
 * `X-Dashboard-Background`, so an open tab alone lets the session idle out (PAYGATE_DASHBOARD_IDLE_MINUTES).
 * Loading the page is a person's action.
 */
let acted = true;
for (const type of ['pointerdown', 'keydown', 'input', 'touchstart', 'wheel']) window.addEventListener(type, () => { acted = true; }, { capture: true, passive: true });
function activity(headers: Record<string, string>) {
  if (!acted) headers['x-dashboard-background'] = '1';
  acted = false;
}

/** Told when the server says the session is over (401 outside the sign-in steps): the app shows the sign-in. */
let sessionEnded: (() => void) | null = null;
export function onSessionEnd(fn: (() => void) | null) {
  sessionEnded = fn;
}

/**
 * A call of the dashboard API. `T` is what it answers, `Answer<path, method>`; without it the answer is
 * `unknown` (never guessed from where the answer goes, so an answer the page reads is always typed).
 */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<NoInfer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  activity(headers);
  const res = await fetch(`${API}${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 401 && !path.startsWith('/session') && !path.startsWith('/password-reset')) sessionEnded?.();
  if (!res.ok) throw new ApiError(res.status, data?.details ?? `${res.status} ${res.statusText}`, data);
  if (data && typeof data.csrf_token === 'string') csrf = data.csrf_token;
  return data as T;
}

/** Query string of a filter object (arrays repeat the parameter; empty values are left out). */
export function qs(params: Record<string, unknown>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => u.append(k, String(x)));
    else u.append(k, String(v));
  }
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** The signed-in user, the stage, the CSRF token, the merchant and environment looked at (GET /session; the sign-in steps and switches answer the same). */
export type Me = Answer<'/session', 'get'>;

/** What a user's group may do (the server's role table). */
export type Permission = Me['permissions'][number];

/** An order of the payments list. */
export type OrderRow = Answer<'/orders', 'get'>['orders'][number];

/** The payments list's filters: the query of `GET /orders` but its paging. */
export type Filters = Omit<NonNullable<paths['/orders']['get']['parameters']['query']>, 'limit' | 'cursor'>;

/**
 * The merchant API through the dashboard's bridge: `v1('POST', '/payment', body)` is the API's B1 for the
 * merchant and environment looked at (no signature: the session stands for the key). The answer is the
 * API's own envelope (type it with `V1Answer<path, method>`: the dashboard document only says the bridge
 * answers an object); a refusal throws ApiError with the API's `details`.
 */
export function v1<T = unknown>(method: string, path: string, body?: unknown): Promise<NoInfer<T>> {
  return api<T>(method, `/v1${path}`, body ?? (method === 'GET' ? undefined : {}));
}

/** Downloads what a GET of the dashboard API answers (a CSV, a PDF) as a file named by the server. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const headers: Record<string, string> = {};
  activity(headers);
  const res = await fetch(`${API}${path}`, { credentials: 'same-origin', headers });
  if (!res.ok) {
    let details = `${res.status} ${res.statusText}`;
    try {
      details = (await res.json()).details ?? details;
    } catch {
      /* not JSON */
    }
    throw new ApiError(res.status, details);
  }
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
