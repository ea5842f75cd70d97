/**
 * Two-factor sign-in (TOTP, with recovery codes) and password reset by e-mail (the outbox).
 */
import { generate } from 'otplib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { DashClient, createUser, signedIn, type DashUser } from '../helpers/dashboard.js';
import { startSmtp } from '../helpers/smtp.js';

let t: TestApp;
let a: TestMerchant;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ PAYGATE_SMTP_URL: smtp.url, PAYGATE_PUBLIC_URL: 'https://pay.example', PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '4' });
  a = await t.merchant({ name: '2FA Shop' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close().catch(() => {});
});

/** The code of the next time step (a code is good once: the current one may have been used). */
async function code(secret: string, stepsAhead = 0) {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });
}

describe('two-factor sign-in', () => {
  let u: DashUser;
  let secret: string;
  let recovery: string[];

  it('enrols: a secret and QR code, proven by a code from the app; recovery codes shown once', async () => {
    u = await createUser(a, 'MANAGER');
    const c = await signedIn(t.app, u);
    const setup = await c.post('/account/totp/setup');
    expect(setup.status, setup.raw).toBe(200);
    secret = setup.body.secret;
    expect(setup.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/paygate:/);
    expect(setup.body.qr_code).toMatch(/^data:image\/png;base64,/);
    // stored sealed, not in force yet
    const row = await t.p.database.db.selectFrom('dashboard_users').select(['totp_secret_sealed', 'totp_enabled_at']).where('id', '=', u.uuid).executeTakeFirstOrThrow();
    expect(row.totp_secret_sealed).not.toContain(secret);
    expect(row.totp_enabled_at).toBeNull();
    expect((await c.post('/account/totp/enable', { code: '000000' })).status).toBe(400);
    const on = await c.post('/account/totp/enable', { code: await code(secret) });
    expect(on.status, on.raw).toBe(200);
    recovery = on.body.recovery_codes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    expect((await c.get('/session')).body.user.totp_enabled).toBe(true);
  });

  it('asks for the code after the password; a wrong or replayed code is refused; the right one signs in', async () => {
    const c = new DashClient(t.app);
    const r = await c.signIn(u.username, u.password);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.stage).toBe('TOTP');
    expect((await c.get('/orders')).status).toBe(403);
    expect((await c.post('/session/totp', { code: '123456' })).status).toBe(401);
    const half = c.cookieHeader();
    const good = await code(secret, 1);
    const ok = await c.post('/session/totp', { code: good });
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body.stage).toBe('ACTIVE');
    expect(c.cookieHeader()).not.toBe(half);
    expect((await c.get('/orders')).status).toBe(200);
    // the same code again, in another sign-in: refused (good once)
    const other = new DashClient(t.app);
    await other.signIn(u.username, u.password);
    expect((await other.post('/session/totp', { code: good })).status).toBe(401);
  });

  it('takes a recovery code once instead', async () => {
    const c = new DashClient(t.app);
    await c.signIn(u.username, u.password);
    const ok = await c.post('/session/totp', { recovery_code: recovery[0].toLowerCase() });
    expect(ok.status, ok.raw).toBe(200);
    const again = new DashClient(t.app);
    await again.signIn(u.username, u.password);
    expect((await again.post('/session/totp', { recovery_code: recovery[0] })).status).toBe(401);
  });

  it('locks the user after repeated wrong codes', async () => {
    await sql`delete from dashboard_signin_failures`.execute(t.p.database.db);
    const c = new DashClient(t.app);
    await c.signIn(u.username, u.password);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await c.post('/session/totp', { code: '000000' })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await c.post('/session/totp', { code: await code(secret, 2) })).status).toBe(429);
    await sql`delete from dashboard_signin_failures`.execute(t.p.database.db);
  });

  it('turns off with the password and a code', async () => {
    const c = new DashClient(t.app);
    await c.signIn(u.username, u.password);
    await c.post('/session/totp', { recovery_code: recovery[1] });
    expect((await c.post('/account/totp/disable', { password: 'wrong', code: recovery[2] })).status).toBe(400);
    const off = await c.post('/account/totp/disable', { password: u.password, code: recovery[2] });
    expect(off.status, off.raw).toBe(200);
    const next = new DashClient(t.app);
    expect((await next.signIn(u.username, u.password)).body.stage).toBe('ACTIVE');
  });
});

describe('password reset by e-mail', () => {
  it('e-mails a link in the user\'s language; the link sets a new password once and ends every session', async () => {
    const u = await createUser(a, 'USER', { language: 'PT' });
    const c = await signedIn(t.app, u);
    const anon = new DashClient(t.app);
    expect((await anon.post('/password-reset', { login: u.email })).status).toBe(200);
    // an unknown name: the same answer, no mail
    const unknown = await anon.post('/password-reset', { login: 'nobody@nowhere.example' });
    expect(unknown.status).toBe(200);
    await t.p.jobs.drain();
    const mails = smtp.mails.filter((m) => m.to.includes(u.email));
    expect(mails).toHaveLength(1);
    const text = mails[0].raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(text).toContain('Redefina');
    const token = /https:\/\/pay\.example\/dashboard\/reset\?token=([A-Za-z0-9_-]+)/.exec(text)![1];
    expect(smtp.mails.some((m) => m.to.includes('nobody@nowhere.example'))).toBe(false);
    const weak = await anon.post('/password-reset/confirm', { token, new_password: 'short' });
    expect(weak.status).toBe(400);
    const ok = await anon.post('/password-reset/confirm', { token, new_password: 'a brand new passphrase' });
    expect(ok.status, ok.raw).toBe(200);
    expect((await c.get('/session')).status).toBe(401);
    expect((await anon.post('/password-reset/confirm', { token, new_password: 'another new passphrase' })).status).toBe(400);
    expect((await new DashClient(t.app).signIn(u.username, u.password)).status).toBe(401);
    const s = await new DashClient(t.app).signIn(u.username, 'a brand new passphrase');
    expect(s.status).toBe(200);
    expect(s.body.stage).toBe('ACTIVE');
  });

  it('refuses an expired link, and sends at most 3 links an hour', async () => {
    const u = await createUser(a, 'USER');
    const anon = new DashClient(t.app);
    for (let i = 0; i < 5; i++) expect((await anon.post('/password-reset', { login: u.username })).status).toBe(200);
    const n = await t.p.database.db.selectFrom('dashboard_password_resets').select('token_hash').where('user_id', '=', u.uuid).execute();
    expect(n).toHaveLength(3);
    await t.p.jobs.drain();
    const text = smtp.mails.filter((m) => m.to.includes(u.email))[0].raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const token = /reset\?token=([A-Za-z0-9_-]+)/.exec(text)![1];
    await sql`update dashboard_password_resets set expires_at = now() - interval '1 second' where user_id = ${u.uuid}`.execute(t.p.database.db);
    expect((await anon.post('/password-reset/confirm', { token, new_password: 'a brand new passphrase' })).status).toBe(400);
  });
});
