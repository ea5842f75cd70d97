/** The session cookie and the caller of a request of the dashboard's JSON API. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../dashboard.core.js';

export const COOKIE = 'paygate_dashboard';
export const SECURE_COOKIE = '__Host-paygate_dashboard';

/** The session token a request carries in its cookie. */
export function tokenOf(req: FastifyRequest): string | undefined {
  return req.cookies?.[SECURE_COOKIE] ?? req.cookies?.[COOKIE];
}

/** The session cookie: HttpOnly, SameSite=Strict, Secure over HTTPS (`__Host-` then), scoped to /dashboard. */
export function setSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string | null) {
  const secure = req.protocol === 'https';
  const name = secure ? SECURE_COOKIE : COOKIE;
  // __Host- cookies must have Path=/ (and no Domain); the plain one is kept to /dashboard
  const base = { httpOnly: true, sameSite: 'strict' as const, secure, path: secure ? '/' : '/dashboard' };
  if (token === null) {
    reply.clearCookie(name, base);
    return;
  }
  reply.setCookie(name, token, base);
}

/** Where a request comes from (its address and browser). */
export function caller(req: FastifyRequest): Caller {
  const ua = req.headers['user-agent'];
  return { ip: req.ip ?? null, userAgent: typeof ua === 'string' ? ua : null };
}
