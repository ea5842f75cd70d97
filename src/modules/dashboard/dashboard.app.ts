/**
 * The dashboard web app at /dashboard: the built files (dist/dashboard) with their security headers,
 * compressed copies and caching.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/errors/errors.js';
import { redactCardNumbersInUrl } from '../../platform/logging.js';


/**
 * The dashboard's pages: its own script only, talking to this origin only, never framed. Styles may also
 * be set inline (the dialogs' scroll lock adds a small style element).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the built web app is: beside the bundle (dist/server.js → dist/dashboard) or dist/ of the sources. */
export function findDashboardBuild(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'dashboard'), path.resolve(here, '../../../dist/dashboard'), path.resolve('dist/dashboard')];
  return candidates.find((d) => fs.existsSync(path.join(d, 'index.html'))) ?? null;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>paygate dashboard</title>
<p>The dashboard web app has not been built. <code>npm start</code> builds it; or run <code>node scripts/build-dashboard.mjs</code>.</p></html>`;

/**
 * What the dashboard's answers carry besides their Content-Security-Policy: the browser features the
 * pages never use are off (camera, microphone, geolocation, payment, USB, …), for the app and any frame.
 */
export const DASHBOARD_PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=(), bluetooth=(), midi=(), magnetometer=(), gyroscope=(), accelerometer=(), display-capture=(), interest-cohort=()';

/**
 * The encoding of a build file to send: the brotli or gzip copy the build wrote beside it
 * (scripts/build-dashboard.mjs), when the browser accepts it (`Accept-Encoding`, not refused with q=0).
 */
export function pickEncoding(acceptEncoding: string | undefined, exists: (suffix: '.br' | '.gz') => boolean): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((x) => /^\s*q=([0-9.]+)\s*$/.exec(x)?.[1]).find((x) => x !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br') && exists('.br')) return 'br';
  if (ok('gzip') && exists('.gz')) return 'gzip';
  return null;
}

/**
 * Serves the web app at /dashboard: its files, and its page for every path of the app (it routes itself).
 * The scripts and styles have hashed names: cached for good (`immutable`); the page is checked at each
 * load (`no-cache`), so a new build is picked up at the next one. Each goes out compressed when the
 * browser accepts it, from the copies the build wrote.
 */
export async function installDashboardApp(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    const dir = () => findDashboardBuild();
    const send = (req: FastifyRequest, reply: FastifyReply, file: string, type: string) => {
      const encoding = pickEncoding(typeof req.headers['accept-encoding'] === 'string' ? req.headers['accept-encoding'] : undefined, (suffix) => fs.existsSync(file + suffix));
      const chosen = encoding === 'br' ? `${file}.br` : encoding === 'gzip' ? `${file}.gz` : file;
      reply.type(type).header('Vary', 'Accept-Encoding').header('Content-Length', String(fs.statSync(chosen).size));
      if (encoding) reply.header('Content-Encoding', encoding);
      return reply.send(fs.createReadStream(chosen));
    };
    const page = (req: FastifyRequest, reply: FastifyReply) => {
      const d = dir();
      reply.header('Content-Security-Policy', DASHBOARD_CSP).header('Permissions-Policy', DASHBOARD_PERMISSIONS_POLICY).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin').header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'no-cache');
      if (!d) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      return send(req, reply, path.join(d, 'index.html'), 'text/html; charset=utf-8');
    };
    scope.get('/dashboard', { schema: { hide: true } }, async (req, reply) => page(req, reply));
    scope.get('/dashboard/*', { schema: { hide: true } }, async (req, reply) => {
      const rest = (req.params as { '*': string })['*'] ?? '';
      if (rest === 'api' || rest.startsWith('api/')) throw notFound(`No route ${req.method} ${redactCardNumbersInUrl(req.url.split('?')[0])}`);
      if (rest.startsWith('assets/') || /^[\w.-]+\.(svg|png|ico|txt|webmanifest)$/.test(rest)) {
        const d = dir();
        const file = d ? path.resolve(d, rest) : null;
        // the compressed copies are sent for their file, never asked for by name
        if (!d || !file || !file.startsWith(d + path.sep) || /\.(br|gz)$/.test(file) || !fs.existsSync(file) || !fs.statSync(file).isFile()) throw notFound(`No file ${rest}`);
        const type = MIME[path.extname(file)] ?? 'application/octet-stream';
        // hashed names: cached for good
        reply.header('Cache-Control', rest.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
        reply.header('Content-Security-Policy', DASHBOARD_CSP).header('Permissions-Policy', DASHBOARD_PERMISSIONS_POLICY).header('X-Content-Type-Options', 'nosniff');
        return send(req, reply, file, type);
      }
      return page(req, reply);
    });
  });
}

const MIME: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};
