/**
 * A dashboard user in HTTP tests: created with D3 like a partner would, then signed in through
 * /dashboard/api with a cookie jar and the CSRF token, as the web app does.
 */
import type { FastifyInstance } from 'fastify';
import { toApiResponse, type ApiResponse, type TestMerchant } from './app.js';

export const DASH = '/dashboard/api';

export interface DashUser {
  username: string;
  email: string;
  password: string;
  uuid: string;
}

let n = 0;

/** D3: a user of `m` in `group` (the password is the generated one). */
export async function createUser(m: TestMerchant, group: string, opts: { language?: string; environment?: 'SANDBOX' | 'PRODUCTION'; username?: string } = {}): Promise<DashUser> {
  const username = opts.username ?? `user${++n}.${Math.random().toString(36).slice(2, 8)}`;
  const res = await m.api.post('/client/user', {
    email: `${username}@shop.example`,
    username,
    language: opts.language ?? 'EN',
    environment: opts.environment ?? 'SANDBOX',
    send_email_with_credentials: false,
    group,
  });
  if (res.status !== 200) throw new Error(`D3 failed: ${res.status} ${res.raw}`);
  return { username, email: res.body.email, password: res.body.password, uuid: res.body.user.uuid };
}

/** A browser of the dashboard: keeps the cookies it is given and sends the CSRF token on changes. */
export class DashClient {
  cookies = new Map<string, string>();
  csrf: string | null = null;
  /** headers added to every request (e.g. a client address through X-Forwarded-For) */
  extra: Record<string, string> = {};

  constructor(readonly app: FastifyInstance) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, opts: { body?: unknown; query?: Record<string, string | string[]>; csrf?: string | null; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { 'x-forwarded-proto': 'https', ...this.extra, ...(opts.headers ?? {}) };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await this.app.inject({ method: method as any, url: `${DASH}${path}`, query: opts.query, headers, payload });
    for (const c of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attrs] = String(c).split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const out = toApiResponse(res);
    if (out.status === 200 && out.body && typeof out.body.csrf_token === 'string') this.csrf = out.body.csrf_token;
    return out;
  }

  get(path: string, query?: Record<string, string | string[]>) {
    return this.request('GET', path, { query });
  }
  post(path: string, body: unknown = {}) {
    return this.request('POST', path, { body });
  }
  put(path: string, body: unknown = {}) {
    return this.request('PUT', path, { body });
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }

  signIn(login: string, password: string) {
    return this.post('/session', { login, password });
  }
}

/** Signs `u` in and, when the stage asks for it, changes the generated password. Returns the client. */
export async function signedIn(app: FastifyInstance, u: DashUser): Promise<DashClient> {
  const c = new DashClient(app);
  const r = await c.signIn(u.username, u.password);
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.raw}`);
  if (r.body.stage === 'PASSWORD_CHANGE') {
    const next = `${u.password}-Renewed!9`;
    const p = await c.post('/session/password', { current_password: u.password, new_password: next });
    if (p.status !== 200) throw new Error(`password change failed: ${p.status} ${p.raw}`);
    u.password = next;
  }
  return c;
}
