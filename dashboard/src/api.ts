/**
 * The dashboard API client: JSON over fetch with the session cookie (same origin), the CSRF token on
 * every change, and the API's error envelope turned into an ApiError whose `details` the pages show as
 * the server wrote it (the contract's own words for a refused refund).
 */
export const API = '/dashboard/api';

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

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  const res = await fetch(`${API}${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
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

export type Permission = string;

export interface Me {
  user: { uuid: string; username: string; email: string; language: string; group: string; totp_enabled: boolean };
  stage: 'PASSWORD_CHANGE' | 'TOTP' | 'ACTIVE';
  csrf_token: string;
  env: 'sandbox' | 'production';
  envs: ('sandbox' | 'production')[];
  merchant: { uuid: string; name: string; timezone: string };
  merchants: { uuid: string; name: string; parent_uuid: string | null }[];
  permissions: Permission[];
  idle_timeout_s: number;
}

export interface OrderRow {
  uuid: string;
  created_at: string;
  status: string;
  operative: string;
  amount: number;
  currency: string;
  refunded: number;
  captured: number;
  reference: string | null;
  customer: string | null;
  description: string;
  service_uuid: string;
  method: string | null;
  card: { bin: string | null; last4: string; brand: string } | null;
}

export interface Filters {
  q?: string;
  status?: string[];
  operative?: string[];
  from?: string;
  to?: string;
  amount_min?: number;
  amount_max?: number;
  customer?: string;
  email?: string;
  reference?: string;
  last4?: string;
  method?: string;
  service?: string;
}

/**
 * The merchant API through the dashboard's bridge: `v1('POST', '/payment', body)` is the API's B1 for the
 * merchant and environment looked at (no signature: the session stands for the key). The answer is the
 * API's own envelope; a refusal throws ApiError with the API's `details`.
 */
export function v1<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  return api<T>(method, `/v1${path}`, body ?? (method === 'GET' ? undefined : {}));
}

/** Downloads what a GET of the dashboard API answers (a CSV, a PDF) as a file named by the server. */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await fetch(`${API}${path}`, { credentials: 'same-origin' });
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
