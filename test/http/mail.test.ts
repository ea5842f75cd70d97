import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';

let t: TestApp;
let a: TestMerchant;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ PAYGATE_SMTP_URL: smtp.url, PAYGATE_MAIL_FROM: 'paygate <no-reply@paygate.test>' });
  a = await t.merchant();
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

describe('the credentials e-mail goes through the outbox', () => {
  it('is delivered over SMTP by the job queue, in the user\'s language, with the password', async () => {
    const r = await a.api.post('/client/user', {
      email: 'lucia@example.com', username: 'lucia', language: 'PT', environment: 'SANDBOX', send_email_with_credentials: true, group: 'VIEWER',
    });
    expect(r.status).toBe(200);
    expect(smtp.mails).toHaveLength(0); // not sent inside the request
    expect(await t.p.jobs.drain()).toBeGreaterThanOrEqual(1);
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0];
    expect(mail.to).toEqual(['lucia@example.com']);
    expect(mail.from).toBe('no-reply@paygate.test');
    expect(mail.raw).toContain('credenciais');
    expect(mail.raw).toContain(r.body.password);
    const row = await t.p.database.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', 'lucia@example.com').executeTakeFirstOrThrow();
    expect(row.status).toBe('sent');
    expect(row.sent_at).not.toBeNull();
  });

  it('no e-mail when send_email_with_credentials is false', async () => {
    await a.api.post('/client/user', {
      email: 'silent@example.com', username: 'silent', language: 'EN', environment: 'SANDBOX', send_email_with_credentials: false, group: 'USER',
    });
    await t.p.jobs.drain();
    expect(smtp.mails.map((m) => m.to[0])).not.toContain('silent@example.com');
  });
});
