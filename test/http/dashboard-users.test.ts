/**
 * Users and audit (MANAGER): list the merchant's users, invite one (D3 itself: the credentials e-mail
 * goes through the outbox), change a group, disable a user (their sessions end at once); the audit log of
 * every staff action and sign-in (who, what, when, from where), read-only and exportable as CSV.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { DashClient, createUser, signedIn } from '../helpers/dashboard.js';
import { startSmtp } from '../helpers/smtp.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let manager: DashClient;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ PAYGATE_SMTP_URL: smtp.url, PAYGATE_PUBLIC_URL: 'https://pay.example', PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '3' });
  a = await t.merchant({ name: 'Users Shop' });
  b = await t.merchant({ name: 'Other Shop' });
  manager = await signedIn(t.app, await createUser(a, 'MANAGER', { username: 'boss.users' }));
});
afterAll(async () => {
  await t?.close();
  await smtp?.close().catch(() => {});
});

describe('users', () => {
  it('invites a user through D3: the credentials e-mail says where to sign in, and the password works there', async () => {
    const r = await manager.post('/users', { username: 'nuevo.cajero', email: 'cajero@shop.example', language: 'ES', group: 'VIEWER' });
    expect(r.status, r.raw).toBe(200);
    // with e-mail, the password goes by e-mail only
    expect(r.body).toMatchObject({ delivery: 'EMAIL', password: null });
    const pending = (await manager.get('/users')).body.users.find((u: any) => u.username === 'nuevo.cajero');
    expect(pending.invitation).toMatchObject({ delivery: 'EMAIL', mail_status: 'PENDING' });
    await t.p.jobs.drain();
    const sent = (await manager.get('/users')).body.users.find((u: any) => u.username === 'nuevo.cajero');
    expect(sent.invitation).toMatchObject({ delivery: 'EMAIL', mail_status: 'SENT', mail_error: null });
    const mail = smtp.mails.find((m) => m.to.includes('cajero@shop.example'))!;
    // quoted-printable, soft line breaks undone
    const text = mail.raw.replace(/=\r?\n/g, '');
    expect(text).toContain('https://pay.example/dashboard');
    const password = /Contrase(?:=C3=B1|ñ)a: ([A-Za-z0-9]{16})/.exec(text)?.[1];
    expect(password).toBeTruthy();
    const c = new DashClient(t.app);
    const s = await c.signIn('nuevo.cajero', password!);
    expect(s.status, s.raw).toBe(200);
    expect(s.body.stage).toBe('PASSWORD_CHANGE');
    expect(s.body.user.language).toBe('ES');
    const list = await manager.get('/users');
    const invited = list.body.users.find((u: any) => u.username === 'nuevo.cajero');
    expect(invited).toMatchObject({ group: 'VIEWER', status: 'ACTIVE', language: 'ES', must_change_password: true });
    // a taken username: the D3 answer
    const again = await manager.post('/users', { username: 'nuevo.cajero', email: 'x@shop.example', language: 'EN', group: 'USER' });
    expect(again.status).toBe(409);
  });

  it('changes a group and disables a user, whose sessions end at once; not one\'s own, never another merchant\'s', async () => {
    const u = await createUser(a, 'VIEWER');
    const c = await signedIn(t.app, u);
    expect((await c.post('/orders/00000000-0000-4000-8000-000000000000/refund', { amount: 1 })).status).toBe(403);
    const g = await manager.put(`/users/${u.uuid}`, { group: 'USER' });
    expect(g.status, g.raw).toBe(200);
    // the role is read at each request
    expect((await c.post('/orders/00000000-0000-4000-8000-000000000000/refund', { amount: 1 })).status).toBe(404);
    expect((await c.get('/session')).body.permissions).toContain('payments.refund');
    const d = await manager.put(`/users/${u.uuid}`, { status: 'DISABLED' });
    expect(d.status, d.raw).toBe(200);
    expect((await c.get('/session')).status).toBe(401);
    expect((await new DashClient(t.app).signIn(u.username, u.password)).status).toBe(403);
    expect((await manager.put(`/users/${u.uuid}`, { status: 'ACTIVE' })).status).toBe(200);
    expect((await new DashClient(t.app).signIn(u.username, u.password)).status).toBe(200);
    const me = (await manager.get('/session')).body.user.uuid;
    expect((await manager.put(`/users/${me}`, { group: 'VIEWER' })).status).toBe(400);
    const other = await createUser(b, 'MANAGER');
    expect((await manager.put(`/users/${other.uuid}`, { status: 'DISABLED' })).status).toBe(404);
    expect((await manager.get('/users')).body.users.map((x: any) => x.uuid)).not.toContain(other.uuid);
    expect((await manager.put(`/users/${u.uuid}`, { group: 'ROOT' })).status).toBe(400);
  });

  it('sends a user who has not signed in yet a new one-time password by e-mail: the one before stops working', async () => {
    const r = await manager.post('/users', { username: 'resend.me', email: 'resend@shop.example', language: 'EN', group: 'USER' });
    expect(r.status, r.raw).toBe(200);
    await t.p.jobs.drain();
    const firstMail = smtp.mails.filter((m) => m.to.includes('resend@shop.example')).at(-1)!.raw.replace(/=\r?\n/g, '');
    const first = /Password: ([A-Za-z0-9]{16})/.exec(firstMail)![1];
    const again = await manager.post(`/users/${r.body.uuid}/credentials`);
    expect(again.status, again.raw).toBe(200);
    expect(again.body).toMatchObject({ delivery: 'EMAIL', password: null });
    await t.p.jobs.drain();
    const mails = smtp.mails.filter((m) => m.to.includes('resend@shop.example'));
    expect(mails).toHaveLength(2);
    const second = /Password: ([A-Za-z0-9]{16})/.exec(mails[1].raw.replace(/=\r?\n/g, ''))![1];
    expect(second).not.toBe(first);
    expect((await new DashClient(t.app).signIn('resend.me', first)).status).toBe(401);
    const c = new DashClient(t.app);
    expect((await c.signIn('resend.me', second)).status).toBe(200);
    // once the user chose a password, there is nothing to resend (the reset link is theirs)
    await c.post('/session/password', { current_password: second, new_password: 'a fine passphrase of mine' });
    const late = await manager.post(`/users/${r.body.uuid}/credentials`);
    expect(late.status).toBe(409);
    expect(late.body.details).toMatch(/already chosen a password/);
  });

  it('e-mails the user when an address is locked, once, and managers see the lock with the attempts made during it, and lift it', async () => {
        const mt = t;
    try {
      const shop = await mt.merchant({ name: 'Locked Shop' });
      const manager = await signedIn(mt.app, await createUser(shop, 'MANAGER'));
      const u = await createUser(shop, 'USER', { language: 'ES' });
      const attacker = new DashClient(mt.app);
      attacker.extra['x-forwarded-for'] = '203.0.113.200';
      for (let i = 0; i < 3; i++) await attacker.signIn(u.username, 'wrong password');
      expect((await attacker.signIn(u.username, u.password)).status).toBe(429);
      expect((await attacker.signIn(u.username, 'another guess')).status).toBe(429);
      await mt.p.jobs.drain();
      const mails = smtp.mails.filter((x) => x.to.includes(u.email));
      expect(mails).toHaveLength(1);
      const text = mails[0].raw.replace(/=\r?\n/g, '');
      expect(text).toContain('203.0.113.200');
      const list = await manager.get('/users');
      const row = list.body.users.find((x: any) => x.uuid === u.uuid);
      expect(row.signin.locks).toEqual([{ address: '203.0.113.200', locked_until: expect.any(String), failures: 3, attempts_during_lock: 2 }]);
      expect(row.status).toBe('ACTIVE');
      const unlock = await manager.post(`/users/${u.uuid}/unlock`);
      expect(unlock.status, unlock.raw).toBe(200);
      expect((await manager.get('/users')).body.users.find((x: any) => x.uuid === u.uuid).signin.locks).toEqual([]);
      expect((await attacker.signIn(u.username, u.password)).status).toBe(200);
      const audit = await manager.get('/audit', { action: 'user.unlock' });
      expect(audit.body.entries[0]).toMatchObject({ target: u.uuid });
      // for managers only
      const other = await signedIn(mt.app, await createUser(shop, 'USER'));
      expect((await other.post(`/users/${u.uuid}/unlock`)).status).toBe(403);
    } finally {
      // the app is the file's
    }
  });

  it('is for managers only', async () => {
    const c = await signedIn(t.app, await createUser(a, 'USER'));
    expect((await c.get('/users')).status).toBe(403);
    expect((await c.post('/users', { username: 'sneaky', email: 's@shop.example', language: 'EN', group: 'MANAGER' })).status).toBe(403);
    expect((await c.get('/audit')).status).toBe(403);
  });
});

describe('the audit log', () => {
  it('records sign-ins and staff actions with who, what, when and where; pages; exports CSV', async () => {
    const u = await createUser(a, 'USER', { username: 'audited.user' });
    const c = new DashClient(t.app);
    c.extra['x-forwarded-for'] = '198.51.100.23';
    expect((await c.signIn(u.username, 'wrong')).status).toBe(401);
    expect((await c.signIn(u.username, u.password)).status).toBe(200);
    const r = await manager.get('/audit', { user: u.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.entries.map((e: any) => e.action)).toEqual(['signin.password', 'signin.failed']);
    expect(r.body.entries[0]).toMatchObject({ username: 'audited.user', ip: '198.51.100.23', user_uuid: u.uuid });
    expect(Date.now() - new Date(r.body.entries[0].created_at).getTime()).toBeLessThan(60_000);
    const invites = await manager.get('/audit', { action: 'user.invite' });
    expect(invites.body.entries[0]).toMatchObject({ username: 'boss.users', target: expect.any(String) });
    const page1 = await manager.get('/audit', { limit: '2' });
    const page2 = await manager.get('/audit', { limit: '2', cursor: page1.body.next_cursor });
    expect(page2.body.entries[0].id).not.toBe(page1.body.entries[1].id);
    expect(Number(page2.body.entries[0].id)).toBeLessThan(Number(page1.body.entries[1].id));
    const csv = await t.app.inject({ method: 'GET', url: `/dashboard/api/audit/export.csv?user=${u.uuid}`, headers: { cookie: manager.cookieHeader(), 'x-forwarded-proto': 'https' } });
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('id,created_at,username,user_uuid,action,target,ip,merchant_uuid,details');
    expect(lines.slice(1).map((l) => l.split(',')[4])).toEqual(['signin.password', 'signin.failed']);
    // another merchant's staff are not in it
    await signedIn(t.app, await createUser(b, 'VIEWER', { username: 'elsewhere.user' }));
    expect(JSON.stringify((await manager.get('/audit', { limit: '500' })).body)).not.toContain('elsewhere.user');
    // the audit log cannot be changed through the dashboard: no route writes it
    const { listDashboardRoutes } = await import('../../src/modules/dashboard/index.js');
    expect(listDashboardRoutes(t.app).filter((x) => x.url.includes('/audit') && x.method !== 'GET')).toEqual([]);
  });
});
