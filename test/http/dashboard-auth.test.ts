/**
 * The dashboard's sign-in and sessions: a D3 user signs in with the generated password and must change
 * it; the cookie is HttpOnly/SameSite/Secure; a change without the CSRF token is refused; a session token
 * a browser had before signing in is never kept (no fixation); failed sign-ins lock the user and the
 * address with a clear message; a disabled user's session ends; idle and absolute timeouts; sign-out
 * everywhere; the role table holds on the server; another merchant's order is 404.
 */
import { sql } from 'kysely';
import { generateSecret } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { DashClient, createUser, signedIn, type DashUser } from '../helpers/dashboard.js';
import { paidOrder } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '3', PAYGATE_DASHBOARD_LOCKOUT_FAILURES_PER_ADDRESS: '6' });
  a = await t.merchant({ name: 'Shop A' });
  b = await t.merchant({ name: 'Shop B' });
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.p.database.db;

describe('sign-in and the first password change', () => {
  it('signs in with the generated password, is held to the password change, then reaches the dashboard', async () => {
    const u = await createUser(a, 'MANAGER');
    const c = new DashClient(t.app);
    const r = await c.signIn(u.username, u.password);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.stage).toBe('PASSWORD_CHANGE');
    expect(r.body.permissions).toEqual([]);
    // the cookie: HttpOnly, SameSite=Strict, Secure (over HTTPS, with the __Host- prefix)
    const cookie = String([r.headers['set-cookie']].flat()[0]);
    expect(cookie).toMatch(/^__Host-paygate_dashboard=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Secure/i);
    // nothing of the dashboard before the password change
    const blocked = await c.get('/orders');
    expect(blocked.status, blocked.raw).toBe(403);
    expect(blocked.body.details).toMatch(/Change your password first/);
    // a weak new password is refused with the reason
    const weak = await c.post('/session/password', { current_password: u.password, new_password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.details).toMatch(/at least 12 characters/);
    // long enough but among the commonest passwords, or one group repeated (NIST SP 800-63B)
    const common = await c.post('/session/password', { current_password: u.password, new_password: 'password1234' });
    expect(common.status).toBe(400);
    expect(common.body.details).toMatch(/most common/);
    const repeated = await c.post('/session/password', { current_password: u.password, new_password: 'abababababab' });
    expect(repeated.status).toBe(400);
    expect(repeated.body.details).toMatch(/repeated/);
    const wrong = await c.post('/session/password', { current_password: 'not-it', new_password: 'a much longer passphrase' });
    expect(wrong.status).toBe(400);
    const before = c.cookieHeader();
    const ok = await c.post('/session/password', { current_password: u.password, new_password: 'a much longer passphrase' });
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body.stage).toBe('ACTIVE');
    expect(ok.body.permissions).toContain('users.manage');
    // a new session token after the change; the old one is dead
    expect(c.cookieHeader()).not.toBe(before);
    const old = new DashClient(t.app);
    old.extra.cookie = before;
    expect((await old.get('/session')).status).toBe(401);
    expect((await c.get('/orders')).status).toBe(200);
    // the next sign-in goes straight in, with the new password only
    const again = new DashClient(t.app);
    expect((await again.signIn(u.username, u.password)).status).toBe(401);
    const next = await again.signIn(u.email, 'a much longer passphrase');
    expect(next.status, next.raw).toBe(200);
    expect(next.body.stage).toBe('ACTIVE');
    // the password is stored hashed (scrypt), never in clear
    const row = await db().selectFrom('dashboard_users').select(['password_hash', 'must_change_password']).where('id', '=', u.uuid).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.must_change_password).toBe(false);
  });

  it('answers a plain-HTTP sign-in on loopback with a cookie that is not Secure (local development)', async () => {
    const u = await createUser(a, 'VIEWER');
    const r = await t.app.inject({ method: 'POST', url: '/dashboard/api/session', payload: { login: u.username, password: u.password } });
    expect(r.statusCode, r.body).toBe(200);
    const cookie = String([r.headers['set-cookie']].flat()[0]);
    expect(cookie).toMatch(/^paygate_dashboard=/);
    expect(cookie).not.toMatch(/Secure/i);
    expect(cookie).toMatch(/HttpOnly/i);
  });
});

describe('CSRF and session fixation', () => {
  let u: DashUser;
  let c: DashClient;
  beforeAll(async () => {
    u = await createUser(a, 'MANAGER');
    c = await signedIn(t.app, u);
  });

  it('refuses a change without the CSRF token, with a wrong one, and from another origin', async () => {
    const none = await c.request('PUT', '/session/language', { body: { language: 'ES' }, csrf: null });
    expect(none.status).toBe(403);
    expect(none.body.details).toMatch(/CSRF/);
    const wrong = await c.request('PUT', '/session/language', { body: { language: 'ES' }, csrf: 'x'.repeat(64) });
    expect(wrong.status).toBe(403);
    const foreign = await c.request('PUT', '/session/language', { body: { language: 'ES' }, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const ok = await c.put('/session/language', { language: 'ES' });
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body.user.language).toBe('ES');
    // the token of another session does not do either
    const other = await signedIn(t.app, u);
    const crossed = await c.request('PUT', '/session/language', { body: { language: 'PT' }, csrf: other.csrf });
    expect(crossed.status).toBe(403);
  });

  it('never keeps a session token the browser had before signing in', async () => {
    const planted = 'planted-token-chosen-by-an-attacker';
    const victim = new DashClient(t.app);
    victim.cookies.set('__Host-paygate_dashboard', planted);
    const r = await victim.signIn(u.username, u.password);
    expect(r.status, r.raw).toBe(200);
    expect(victim.cookies.get('__Host-paygate_dashboard')).not.toBe(planted);
    const attacker = new DashClient(t.app);
    attacker.cookies.set('__Host-paygate_dashboard', planted);
    expect((await attacker.get('/session')).status).toBe(401);
    // and signing in twice gives two different sessions
    const second = new DashClient(t.app);
    await second.signIn(u.username, u.password);
    expect(second.cookies.get('__Host-paygate_dashboard')).not.toBe(victim.cookies.get('__Host-paygate_dashboard'));
  });
});

describe('throttling and lockout', () => {
  /** A sign-in client from one address (the gateway trusts X-Forwarded-For here). */
  const from = (ip: string) => {
    const c = new DashClient(t.app);
    c.extra['x-forwarded-for'] = ip;
    return c;
  };
  /** The lapse of every count of these keys (as 15 minutes passing would). */
  const lapse = (userId: string) => sql`update dashboard_signin_failures set locked_until = now() - interval '1 second', slowed_until = null, window_started_at = now() - interval '1 hour' where user_id = ${userId}`.execute(db());

  it('locks a user at the address that failed only: the right password from the user\'s own address still signs in, and a lock lapses', async () => {
    const u = await createUser(a, 'VIEWER');
    // the user's own address: signed in from before
    expect((await from('198.51.100.50').signIn(u.username, u.password)).status).toBe(200);
    const attacker = from('203.0.113.66');
    for (let i = 0; i < 2; i++) expect((await attacker.signIn(u.username, 'wrong password')).status).toBe(401);
    const third = await attacker.signIn(u.username, 'wrong password');
    expect(third.status).toBe(429);
    expect(third.body.details).toMatch(/from this address: it is locked here for 15 minutes/);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    // the lock holds at that address, even for the right password
    expect((await attacker.signIn(u.username, u.password)).status).toBe(429);
    // the user at their own address is not locked out (the old lock was the user's everywhere)
    expect((await from('198.51.100.50').signIn(u.username, u.password)).status).toBe(200);
    // the lock lapses
    await lapse(u.uuid);
    expect((await attacker.signIn(u.username, u.password)).status).toBe(200);
    const audit = await db().selectFrom('dashboard_audit').select(['action', 'ip']).where('user_id', '=', u.uuid).orderBy('id').execute();
    expect(audit.map((x) => x.action)).toEqual(['signin.password', 'signin.failed', 'signin.failed', 'signin.failed', 'signin.locked', 'signin.password', 'signin.password']);
    expect(audit[1].ip).toBe('203.0.113.66');
  });

  it('slows down, never locks, the addresses a user never signed in from while it fails from many; counts the attempts refused', async () => {
    const u = await createUser(a, 'VIEWER');
    expect((await from('198.51.100.60').signIn(u.username, u.password)).status).toBe(200);
    // failures from three addresses, one each: no address is locked, the user's count reaches the limit (3)
    // and from then on a new address waits between tries (1 s, doubling with each failure: the unit test)
    for (let i = 11; i <= 13; i++) expect((await from(`192.0.2.${i}`).signIn(u.username, 'guess')).status).toBe(401);
    const state = await db().selectFrom('dashboard_signin_failures').select(['slowed_until', 'locked_until']).where('key', '=', `user:${u.uuid}`).executeTakeFirstOrThrow();
    expect(state.locked_until).toBeNull();
    expect(state.slowed_until).not.toBeNull();
    // (the wait a few more failures would give, so that this machine's speed does not matter)
    await sql`update dashboard_signin_failures set slowed_until = now() + interval '1 minute' where key = ${`user:${u.uuid}`}`.execute(db());
    const slowed = await from('192.0.2.20').signIn(u.username, u.password);
    expect(slowed.status).toBe(429);
    expect(slowed.body.details).toMatch(/from a new address, wait \d+ seconds? before trying again/);
    expect(Number(slowed.headers['retry-after'])).toBeLessThanOrEqual(60);
    // the address the user signed in from before goes straight in
    expect((await from('198.51.100.60').signIn(u.username, u.password)).status).toBe(200);
    const row = await db().selectFrom('dashboard_signin_failures').select(['blocked', 'failures']).where('key', '=', `user:${u.uuid}`).executeTakeFirstOrThrow();
    expect(row).toEqual({ failures: 3, blocked: 1 });
    // the wait over, the new address signs in (a slow-down, not a lock)
    await sql`update dashboard_signin_failures set slowed_until = now() - interval '1 second' where key = ${`user:${u.uuid}`}`.execute(db());
    expect((await from('192.0.2.20').signIn(u.username, u.password)).status).toBe(200);
  });

  it('answers a name that is no user as it answers a user, and a name tried before its user exists never locks that user', async () => {
    const name = `future.staff.${Date.now().toString(36)}`;
    const known = await createUser(a, 'VIEWER');
    const answers = async (login: string, ip: string) => {
      const out: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await from(ip).signIn(login, 'guess');
        out.push(`${r.status} ${String(r.body.details).replace(/\d+/g, 'N')}`);
      }
      return out;
    };
    expect(await answers(name, '192.0.2.77')).toEqual(await answers(known.username, '192.0.2.78'));
    // the user with that name, invited later, signs in from that very address
    const later = await createUser(a, 'VIEWER', { username: name });
    expect((await from('192.0.2.77').signIn(later.username, later.password)).status).toBe(200);
  });

  it('counts wrong second-factor codes toward the lock at that address', async () => {
    const u = await createUser(a, 'VIEWER');
    await db().updateTable('dashboard_users').set({ totp_enabled_at: new Date(), totp_secret_sealed: t.p.vault.seal(generateSecret(), `totp:${u.uuid}`) }).where('id', '=', u.uuid).execute();
    const c = from('192.0.2.90');
    expect((await c.signIn(u.username, u.password)).body.stage).toBe('TOTP');
    expect((await c.post('/session/totp', { code: '000000' })).status).toBe(401);
    expect((await c.post('/session/totp', { code: '000001' })).status).toBe(401);
    const third = await c.post('/session/totp', { code: '000002' });
    expect(third.status).toBe(429);
    expect((await from('192.0.2.90').signIn(u.username, u.password)).status).toBe(429);
  });

  it('locks an address that tries many names', async () => {
    const c = from('192.0.2.44');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await c.signIn(`nobody-${i}`, 'guess')).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    const last = await c.signIn('nobody-x', 'guess');
    expect(last.body.details).toMatch(/from this address/);
  });
});

describe('sessions end', () => {
  it('ends the session of a user who is disabled', async () => {
    const u = await createUser(a, 'USER');
    const c = await signedIn(t.app, u);
    expect((await c.get('/orders')).status).toBe(200);
    await db().updateTable('dashboard_users').set({ status: 'DISABLED' }).where('id', '=', u.uuid).execute();
    const r = await c.get('/orders');
    expect(r.status).toBe(401);
    expect(r.body.details).toMatch(/disabled/);
    const s = await db().selectFrom('dashboard_sessions').select(['ended_at', 'end_reason']).where('user_id', '=', u.uuid).where('stage', '=', 'ACTIVE').executeTakeFirstOrThrow();
    expect(s.end_reason).toBe('USER_DISABLED');
    // enabled again, the ended session stays ended; and signing in again works
    await db().updateTable('dashboard_users').set({ status: 'ACTIVE' }).where('id', '=', u.uuid).execute();
    expect((await c.get('/orders')).status).toBe(401);
    expect((await new DashClient(t.app).signIn(u.username, u.password)).status).toBe(200);
    // a disabled user cannot sign in
    await db().updateTable('dashboard_users').set({ status: 'DISABLED' }).where('id', '=', u.uuid).execute();
    const refused = await new DashClient(t.app).signIn(u.username, u.password);
    expect(refused.status).toBe(403);
  });

  it('ends an idle session and a session past its absolute end', async () => {
    const u = await createUser(a, 'VIEWER');
    const idle = await signedIn(t.app, u);
    const old = await signedIn(t.app, u);
    const hash = (c: DashClient) => c.cookies.get('__Host-paygate_dashboard')!;
    const { sha256Hex } = await import('../../src/platform/security/hashing.js');
    // 31 minutes without use (PAYGATE_DASHBOARD_IDLE_MINUTES is 30)
    await db().updateTable('dashboard_sessions').set({ last_seen_at: new Date(Date.now() - 31 * 60_000) }).where('token_hash', '=', sha256Hex(hash(idle))).execute();
    const r1 = await idle.get('/orders');
    expect(r1.status).toBe(401);
    expect(r1.body.details).toMatch(/without use/);
    // used a second ago but signed in 13 hours ago (PAYGATE_DASHBOARD_SESSION_MINUTES is 720)
    await db().updateTable('dashboard_sessions').set({ created_at: new Date(Date.now() - 13 * 3600_000) }).where('token_hash', '=', sha256Hex(hash(old))).execute();
    const r2 = await old.get('/orders');
    expect(r2.status).toBe(401);
    expect(r2.body.details).toMatch(/has ended/);
  });

  it('a password changed later ends the user\'s other sessions; this one goes on', async () => {
    const u = await createUser(a, 'VIEWER');
    const here = await signedIn(t.app, u);
    const there = await signedIn(t.app, u);
    const r = await here.post('/session/password', { current_password: u.password, new_password: 'yet another long passphrase' });
    expect(r.status, r.raw).toBe(200);
    expect((await here.get('/session')).status).toBe(200);
    expect((await there.get('/session')).status).toBe(401);
  });

  it('signs out here, and everywhere', async () => {
    const u = await createUser(a, 'VIEWER');
    const one = await signedIn(t.app, u);
    const two = await signedIn(t.app, u);
    const three = await signedIn(t.app, u);
    expect((await one.delete('/session')).status).toBe(200);
    expect((await one.get('/session')).status).toBe(401);
    expect((await two.get('/session')).status).toBe(200);
    const all = await two.post('/session/everywhere');
    expect(all.status, all.raw).toBe(200);
    expect(all.body.sessions_ended).toBe(2);
    expect((await two.get('/session')).status).toBe(401);
    expect((await three.get('/session')).status).toBe(401);
  });
});

describe('roles and merchants', () => {
  it("answers 404 for another merchant's order, and 403 for what the group may not do", async () => {
    const own = await paidOrder(t, a);
    const foreign = await paidOrder(t, b);
    const viewer = await signedIn(t.app, await createUser(a, 'VIEWER'));
    expect((await viewer.get(`/orders/${own.uuid}`)).status).toBe(200);
    const r = await viewer.get(`/orders/${foreign.uuid}`);
    expect(r.status).toBe(404);
    const refund = await viewer.post(`/orders/${own.uuid}/refund`, { amount: 100 });
    expect(refund.status).toBe(403);
    expect(refund.body.details).toMatch(/VIEWER/);
    // a signed-in user refused: Forbidden (the API's "Unauthenticated" is for a wrong key or signature)
    expect(refund.body.message).toBe('Forbidden');
    const bridged = await viewer.post('/v1/payment', { amount: 100, currency: 'EUR', operative: 'AUTHORIZATION', secure: false, description: 'x' });
    expect(bridged.status).toBe(403);
    expect(bridged.body.message).toBe('Forbidden');
    const batch = await signedIn(t.app, await createUser(a, 'BATCH'));
    expect((await batch.get('/orders')).status).toBe(403);
    // a manager's refund of another merchant's order: 404, nothing refunded
    const manager = await signedIn(t.app, await createUser(a, 'MANAGER'));
    const cross = await manager.post(`/orders/${foreign.uuid}/refund`, { amount: 100 });
    expect(cross.status).toBe(404);
    const after = await b.api.get(`/order/${foreign.uuid}`);
    expect(after.body.order.refunded).toBe(0);
  });

  it('a signed-out request is 401 on every route but the sign-in', async () => {
    const { listDashboardRoutes } = await import('../../src/modules/dashboard/index.js');
    const anon = new DashClient(t.app);
    for (const r of listDashboardRoutes(t.app)) {
      const url = r.url.replace('/dashboard/api', '').replace(/:uuid/g, '00000000-0000-4000-8000-000000000000');
      const res = await anon.request(r.method, url, { body: r.hasBody ? {} : undefined });
      if (r.dashboard.public) expect(res.status, `${r.method} ${r.url}`).not.toBe(401);
      else expect(res.status, `${r.method} ${r.url}`).toBe(401);
    }
  });
});
