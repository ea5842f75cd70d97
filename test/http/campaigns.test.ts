/**
 * MoTo campaigns (G1, G2, G5): a CSV campaign of 200 rows by e-mail to a real SMTP server started here,
 * a JSON campaign by SMS (the sandbox log provider), a custom-delivery campaign; each message carries a
 * working link; a customer opens one (evidence recorded) and pays it on the hosted page; files with
 * problems are refused whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';
import { payOnPage } from '../helpers/pages.js';
import { advance, merchantDay } from '../helpers/payments.js';
import { LogSmsProvider } from '../../src/modules/links/index.js';
import { verifyCertificate } from '../../src/modules/campaigns/index.js';
import { PDFDocument, PDFHexString, PDFName } from 'pdf-lib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

const PUBLIC = 'https://pay.gateway.test';

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ PAYGATE_SMTP_URL: smtp.url, PAYGATE_MAIL_FROM: 'Pagos <pagos@gateway.test>', PAYGATE_PUBLIC_URL: PUBLIC });
  a = await t.merchant({ name: 'Tienda Ñandú SL' });
  b = await t.merchant({ name: 'Other' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close().catch(() => {});
});

const csv = (text: string) => `data:text/csv;base64,${Buffer.from(text, 'utf8').toString('base64')}`;
/** A date some days ahead, YYYY-MM-DD. */
const inDays = (n: number) => new Date(Date.now() + n * 86400_000).toISOString().slice(0, 10);

function decoded(raw: string): string {
  return Buffer.from(raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
}

function linkIn(text: string): string {
  const m = /https:\/\/pay\.gateway\.test\/v1\/sandbox\/moto\/open\/[A-Za-z0-9_-]+(?:\?lang=[a-z]{2})?/.exec(text);
  if (!m) throw new Error(`no link in:\n${text.slice(0, 2000)}`);
  return m[0];
}

/** Opens a campaign link: its page goes on to the hosted payment page; returns that page's URL. */
async function openLink(link: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'GET', url: link.replace(PUBLIC, ''), headers });
  expect(res.statusCode, res.body).toBe(200);
  expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
  const m = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(res.body);
  expect(m, res.body).not.toBeNull();
  const to = m![1].replace(/&amp;/g, '&');
  expect(res.body).toContain(`<a href="${m![1]}">`);
  return to;
}

async function drain() {
  await t.m.campaigns.drain();
}

describe('G1 by e-mail: 200 rows', () => {
  it('every message arrives with a working link; one is opened (evidence) and paid on the hosted page', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${1000 + i},AUTHORIZATION,client${i}@example.com,cust-${i},"inv, ${i}",false,,,,,,`);
    const file = csv(`amount,Operative,DESTINATION,CUSTOMER_EXT_ID,ADDITIONAL,SECURE,URL_POST,URL_OK,URL_KO,CARD_TEMPLATE,MOTO_TEMPLATE,DCC_TEMPLATE\n${rows.join('\n')}\n`);
    const r = await a.api.post('/moto/campaign/file', { description: 'Facturas de marzo', expires_at: inDays(10), service_uuid: a.service_uuid, subject: 'Su factura', type: 'MAIL', file, filename: 'marzo.csv' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.detail).toMatchObject({ status: 'PENDING', type: 'MAIL', entry: 'FILE', filename: 'marzo.csv', paymentCount: 200, serviceUUID: a.service_uuid });
    expect(r.body.payments).toHaveLength(200);
    expect(r.body.payments[0]).toMatchObject({ line: 2, amount: 1000, destination: 'client0@example.com', externalID: 'cust-0', additional: 'inv, 0', status: 'PENDING' });
    const campaignId = r.body.detail.uuid;

    const before = smtp.mails.length;
    const connectionsBefore = smtp.connections;
    await drain();
    const mails = smtp.mails.slice(before);
    expect(mails).toHaveLength(200);
    // sent on a few reused SMTP connections (the pool's at most 5), not one each
    expect(smtp.connections - connectionsBefore).toBeGreaterThan(0);
    expect(smtp.connections - connectionsBefore).toBeLessThanOrEqual(5);
    const recipients = new Set(mails.map((m) => m.to[0]));
    expect(recipients.size).toBe(200);

    const status = await a.api.get(`/moto/campaign/${campaignId}`);
    expect(status.status, status.raw).toBe(200);
    expect(status.body.detail.status).toBe('COMPLETED');
    expect(status.body.progress).toMatchObject({ total: 200, processed: 200, SENT: 200 });
    for (const p of status.body.payments) {
      expect(p.sentAt).not.toBeNull();
      expect(p.deliveredAt).not.toBeNull();
      expect(p.openedAt).toBeNull();
    }

    // every link works (opens the payment page of its own order)
    const links = new Map<string, string>();
    for (const m of mails) {
      const text = decoded(m.raw);
      expect(text).toContain('Subject: Su factura');
      links.set(m.to[0], linkIn(text));
    }
    const byDest = new Map<string, any>(status.body.payments.map((p: any) => [p.destination, p]));
    for (const [dest, link] of links) expect(link.startsWith(byDest.get(dest).link)).toBe(true);

    // the customer of row 7 opens the link (IP and user agent recorded) and pays
    const link = links.get('client7@example.com')!;
    const page = await openLink(link, { 'user-agent': 'Mozilla/5.0 (Test)', 'x-forwarded-for': '198.51.100.23' });
    expect(page).toMatch(new RegExp(`^${PUBLIC}/v1/sandbox/payment/process/[0-9a-f]+`));
    // a second opening does not change the evidence
    await t.app.inject({ method: 'GET', url: link.replace(PUBLIC, ''), headers: { 'user-agent': 'Other', 'x-forwarded-for': '203.0.113.1' } });
    const paid = await payOnPage(t, page.replace(PUBLIC, ''));
    expect([200, 303]).toContain(paid.statusCode);

    const after = await a.api.get(`/moto/campaign/${campaignId}`);
    const p7 = after.body.payments.find((p: any) => p.destination === 'client7@example.com');
    expect(p7).toMatchObject({ status: 'PAID' });
    expect(p7.openedAt).not.toBeNull();
    expect(p7.paidAt).not.toBeNull();
    const row = await t.p.database.db.selectFrom('moto_payments').selectAll().where('id', '=', p7.uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ opened_ip: '198.51.100.23', opened_user_agent: 'Mozilla/5.0 (Test)' });
    expect(after.body.progress).toMatchObject({ SENT: 199, PAID: 1 });

    // the order is a real order of the merchant, paid with a transaction
    const order = await a.api.get(`/order/${p7.orderUUID}`);
    expect(order.status).toBe(200);
    expect(order.body.order).toMatchObject({ amount: 1007, paid: true, status: 'SUCCESS', additional: 'inv, 7', customer: 'cust-7' });
    expect(order.body.order.transactions).toHaveLength(1);

    // G5
    const g5 = await a.api.get(`/moto/campaign/${campaignId}/orders`);
    expect(g5.status, g5.raw).toBe(200);
    expect(g5.body.orders).toHaveLength(200);
    const o7 = g5.body.orders.find((o: any) => o.orderUUID === p7.orderUUID);
    expect(o7).toMatchObject({ moToPaymentStatus: 'COMPLETED', isPaid: true, amount: 1007, filename: 'marzo.csv', destination: 'client7@example.com' });
    expect(g5.body.orders.filter((o: any) => o.moToPaymentStatus === 'PENDING')).toHaveLength(199);

    // another merchant sees none of it
    expect((await b.api.get(`/moto/campaign/${campaignId}`)).status).toBe(404);
    expect((await b.api.get(`/moto/campaign/${campaignId}/orders`)).status).toBe(404);
  }, 120_000);

  it('a job run twice creates one order and sends one message', async () => {
    const r = await a.api.post('/moto/campaign/file', { description: 'Once', expires_at: inDays(5), service_uuid: a.service_uuid, subject: 'Once', type: 'MAIL', file: csv('AMOUNT,DESTINATION\n500,once@example.com\n') });
    expect(r.status, r.raw).toBe(200);
    const pay = r.body.payments[0];
    const before = smtp.mails.length;
    await drain();
    // the same job again (as after a crash between its steps): nothing more happens
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'moto.payment', payload: { id: pay.uuid } });
    await drain();
    expect(smtp.mails.length - before).toBe(1);
    const orders = await t.p.database.db.selectFrom('orders').select('id').where('id', '=', pay.orderUUID).execute();
    expect(orders).toHaveLength(1);
  });
});

describe('G1 by SMS: 200 rows', () => {
  it('every row gets an SMS from the sandbox provider with a working link to its own order', async () => {
    const sms = t.m.links.sms as LogSmsProvider;
    const before = sms.sent.length;
    const rows = Array.from({ length: 200 }, (_, i) => `${500 + i},+34612${String(i).padStart(6, '0')},sms-${i}`);
    const file = csv(`AMOUNT,DESTINATION,CUSTOMER_EXT_ID\n${rows.join('\n')}\n`);
    const r = await a.api.post('/moto/campaign/file', { description: 'Recibos', expires_at: inDays(7), service_uuid: a.service_uuid, subject: 'Tienda', type: 'PHONE', file, filename: 'recibos.csv' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.detail).toMatchObject({ type: 'PHONE', entry: 'FILE', paymentCount: 200 });
    await drain();
    const sent = sms.sent.slice(before);
    expect(sent).toHaveLength(200);
    expect(new Set(sent.map((s) => s.to)).size).toBe(200);
    const status = await a.api.get(`/moto/campaign/${r.body.detail.uuid}`);
    expect(status.body.detail.status).toBe('COMPLETED');
    expect(status.body.progress).toMatchObject({ total: 200, processed: 200, SENT: 200 });
    const byDest = new Map<string, any>(status.body.payments.map((p: any) => [p.destination, p]));
    for (const s of sent) {
      expect(s.sender).toBe('Tienda');
      const p = byDest.get(s.to);
      expect(p, s.to).toBeTruthy();
      expect(linkIn(s.text).startsWith(p.link)).toBe(true);
    }
    // one opened: its page is the hosted payment page of that row's order
    const p42 = byDest.get('+34612000042');
    expect(p42).toMatchObject({ amount: 542, line: 44, externalID: 'sms-42' });
    const page = await openLink(linkIn(sent.find((s) => s.to === '+34612000042')!.text));
    expect(page).toMatch(/\/v1\/sandbox\/payment\/process\//);
    const order = await a.api.get(`/order/${p42.orderUUID}`);
    expect(order.body.order).toMatchObject({ amount: 542, customer: 'sms-42', paid: false });
  }, 120_000);
});

describe('G2 by SMS and custom delivery', () => {
  it('every SMS carries the link with the merchant name as sender (11 characters at most)', async () => {
    const sms = t.m.links.sms as LogSmsProvider;
    const before = sms.sent.length;
    const payments = Array.from({ length: 20 }, (_, i) => ({ amount: 100 + i, operative: 'AUTHORIZATION', secure: 'false', destination: `+3461234${String(i).padStart(4, '0')}` }));
    const r = await a.api.post('/moto/campaign', { description: 'Saldo pendiente', expires_at: inDays(3), service_uuid: a.service_uuid, subject: 'Tienda Ñand', type: 'PHONE', payments });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.payments.map((p: any) => p.line)).toEqual(payments.map((_, i) => i + 1));
    await drain();
    const sent = sms.sent.slice(before);
    expect(sent).toHaveLength(20);
    for (const s of sent) {
      expect(s.sender).toBe('Tienda Nand');
      const link = linkIn(s.text);
      await openLink(link);
    }
    const status = await a.api.get(`/moto/campaign/${r.body.detail.uuid}`);
    expect(status.body.progress).toMatchObject({ total: 20, OPENED: 20 });
    expect(status.body.payments.every((p: any) => p.channel === 'SMS' && p.deliveredAt && p.openedAt)).toBe(true);

    // the certificates of a payment verify with the public key; a tampered one does not
    const pay = status.body.payments[4];
    const key = await a.api.get('/certificates/public-key');
    expect(key.status, key.raw).toBe(200);
    expect(key.body.algorithm).toBe('Ed25519');
    for (const kind of ['opening', 'receipt']) {
      const c = await a.api.get(`/moto/payment/${pay.uuid}/${kind}-certificate`);
      expect(c.status, c.raw).toBe(200);
      const pdf = Buffer.from(c.body.certificate, 'base64');
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const v = await verifyCertificate(pdf, key.body.public_key);
      expect(v.valid, v.reason ?? '').toBe(true);
      expect(v.evidence).toMatchObject({
        certificate: kind === 'opening' ? 'LINK_OPENING' : 'RECEIPT',
        payment: { uuid: pay.uuid, order_uuid: pay.orderUUID, amount: 104 },
        campaign: { uuid: r.body.detail.uuid, type: 'PHONE' },
        channel: 'SMS',
        provider: 'log',
        sent_at: pay.sentAt,
        delivered_at: pay.deliveredAt,
        opened_at: pay.openedAt,
      });
      // the full number is not in the certificate
      expect(v.evidence!.destination).toMatch(/^\+3461\*+04$/);
      expect(pdf.toString('latin1')).not.toContain(pay.destination);

      // tampered: the opening time moved
      const doc = await PDFDocument.load(pdf);
      const info = (doc as any).getInfoDict();
      const forged = { ...v.evidence!, opened_at: '2020-01-01T00:00:00.000Z' };
      info.set(PDFName.of('PaygateEvidence'), PDFHexString.fromText(JSON.stringify(forged)));
      const tampered = Buffer.from(await doc.save());
      const bad = await verifyCertificate(tampered, key.body.public_key);
      expect(bad.valid).toBe(false);
      expect(bad.reason).toMatch(/signature/);
      // and another key does not verify the genuine one
      const { generateKeyPairSync } = await import('node:crypto');
      const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
      expect((await verifyCertificate(pdf, other)).valid).toBe(false);

      // the documented command: `paygate certificate verify FILE --public-key PEM`
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-'));
      fs.writeFileSync(path.join(dir, 'c.pdf'), pdf);
      fs.writeFileSync(path.join(dir, 't.pdf'), tampered);
      fs.writeFileSync(path.join(dir, 'key.pem'), key.body.public_key);
      const out: string[] = [];
      const write = process.stdout.write;
      (process.stdout as any).write = (chunk: string) => (out.push(String(chunk)), true);
      try {
        expect(await runCli(['certificate', 'verify', path.join(dir, 'c.pdf'), '--public-key', path.join(dir, 'key.pem'), '--json'])).toBe(0);
        expect(process.exitCode ?? 0).toBe(0);
        await runCli(['certificate', 'verify', path.join(dir, 't.pdf'), '--public-key', path.join(dir, 'key.pem'), '--json']);
        expect(process.exitCode).toBe(2);
      } finally {
        (process.stdout as any).write = write;
        process.exitCode = 0;
        fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(JSON.parse(out[0])).toMatchObject({ valid: true });
      expect(JSON.parse(out[1])).toMatchObject({ valid: false });
    }
    // no opening certificate for e-mail campaigns; none before the link was opened
    const c2 = await a.api.get(`/moto/payment/00000000-0000-4000-8000-000000000000/opening-certificate`);
    expect(c2.status).toBe(404);
    expect((await b.api.get(`/moto/payment/${pay.uuid}/receipt-certificate`)).status).toBe(404);
  });

  it('CUSTOM_DELIVERY sends nothing and returns each link; the link works before the job ran', async () => {
    const mails = smtp.mails.length;
    const sms = (t.m.links.sms as LogSmsProvider).sent.length;
    const r = await a.api.post('/moto/campaign', { description: 'Own channel', expires_at: inDays(2), service_uuid: a.service_uuid, type: 'CUSTOM_DELIVERY', payments: [{ amount: 700 }, { amount: 800, destination: 'whatsapp:me' }] });
    expect(r.status, r.raw).toBe(200);
    const [p1] = r.body.payments;
    expect(p1.link).toMatch(/^https:\/\/pay\.gateway\.test\/v1\/sandbox\/moto\/open\//);
    expect(await openLink(p1.link)).toMatch(/\/v1\/sandbox\/payment\/process\//);
    await drain();
    expect(smtp.mails.length).toBe(mails);
    expect((t.m.links.sms as LogSmsProvider).sent.length).toBe(sms);
    const status = await a.api.get(`/moto/campaign/${r.body.detail.uuid}`);
    expect(status.body.detail.status).toBe('COMPLETED');
    expect(status.body.progress).toMatchObject({ total: 2, processed: 2, PENDING: 1, OPENED: 1 });
    const orders = await t.p.database.db.selectFrom('orders').select('id').where('id', 'in', r.body.payments.map((p: any) => p.orderUUID)).execute();
    expect(orders).toHaveLength(2);
  });

  it('links expire at 00:00 of expires_at in the merchant\'s timezone: afterwards 410 and EXPIRED', async () => {
    const r = await a.api.post('/moto/campaign', { description: 'Short', expires_at: inDays(2), service_uuid: a.service_uuid, type: 'CUSTOM_DELIVERY', payments: [{ amount: 300 }] });
    expect(r.status, r.raw).toBe(200);
    const expires = new Date(r.body.detail.expiresAt);
    // Europe/Madrid midnight is 22:00 or 23:00 UTC
    expect([22, 23]).toContain(expires.getUTCHours());
    await drain();
    await advance(a, 3 * 86400);
    const res = await t.app.inject({ method: 'GET', url: r.body.payments[0].link.replace(PUBLIC, '') });
    expect(res.statusCode).toBe(410);
    expect(res.body).toMatch(/^<!doctype html>/);
    expect(res.body).toContain('expired');
    const status = await a.api.get(`/moto/campaign/${r.body.detail.uuid}`);
    expect(status.body.payments[0].status).toBe('EXPIRED');
  });
});

describe('bad input', () => {
  // four days ahead of the merchant's clock, which earlier tests moved
  let later = '';
  beforeAll(async () => {
    later = await merchantDay(a, 4);
  });
  const base = () => ({ description: 'x', expires_at: later, service_uuid: a.service_uuid, subject: 'S', type: 'MAIL' });

  it('rows with problems: 422 listing each line, nothing created', async () => {
    const count = async () => Number((await t.p.database.db.selectFrom('moto_campaigns').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const file = csv('AMOUNT,DESTINATION,SECURE,URL_OK\n100,ok@example.com,,\n-5,ok2@example.com,,\n200,not-an-address,,\n300,x@example.com,maybe,ftp://x\n,y@example.com,,\n');
    const r = await a.api.post('/moto/campaign/file', { ...base(), file });
    expect(r.status, r.raw).toBe(422);
    expect(r.body.errors).toEqual([
      { line: 3, msg: expect.stringContaining('AMOUNT') },
      { line: 4, msg: expect.stringContaining('DESTINATION') },
      { line: 5, msg: expect.stringContaining('SECURE') },
      { line: 5, msg: expect.stringContaining('URL_OK') },
      { line: 6, msg: 'AMOUNT is required' },
    ]);
    expect(await count()).toBe(before);
    const phone = await a.api.post('/moto/campaign', { ...base(), type: 'PHONE', payments: [{ amount: 1, destination: 'a@example.com' }] });
    expect(phone.status).toBe(422);
    expect(phone.body.errors).toEqual([{ line: 1, msg: expect.stringContaining('mobile') }]);
  });

  it('unreadable files: 400 with a clear details', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['no prefix', Buffer.from('AMOUNT\n1\n').toString('base64'), /data:text\/csv;base64,/],
      ['not base64', 'data:text/csv;base64,@@@###', /not valid base64/],
      ['not text', `data:text/csv;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]).toString('base64')}`, /not UTF-8|binary/],
      ['wrong header', csv('AMOUNTS,DESTINATION\n1,a@example.com\n'), /unknown column "AMOUNTS"/],
      ['missing column', csv('DESTINATION\na@example.com\n'), /lacks the column AMOUNT/],
      ['header only', csv('AMOUNT,DESTINATION\n'), /no rows/],
      ['broken quotes', csv('AMOUNT,DESTINATION\n1,"a@example.com\n'), /not a readable CSV/],
      ['too many rows', csv(`AMOUNT,DESTINATION\n${'1,a@example.com\n'.repeat(10_001)}`), /more than 10000 rows/],
      ['too large', csv(`AMOUNT,DESTINATION,ADDITIONAL\n1,a@example.com,${'x'.repeat(50_000)}\n`.repeat(212)), /larger than|more than|readable/],
    ];
    for (const [label, file, re] of cases) {
      const r = await a.api.post('/moto/campaign/file', { ...base(), file });
      expect(r.status, `${label}: ${r.raw.slice(0, 300)}`).toBe(400);
      expect(r.body.details, label).toMatch(re);
    }
  }, 60_000);

  it('campaign fields: expiry, service, type, profile', async () => {
    const file = csv('AMOUNT,DESTINATION\n1,a@example.com\n');
    expect((await a.api.post('/moto/campaign/file', { ...base(), file, expires_at: '2020-01-01' })).body.details).toMatch(/less than 10 minutes/);
    expect((await a.api.post('/moto/campaign/file', { ...base(), file, expires_at: '2026-02-30' })).status).toBe(400);
    expect((await a.api.post('/moto/campaign/file', { ...base(), file, expires_at: inDays(400) })).body.details).toMatch(/more than a year/);
    expect((await a.api.post('/moto/campaign/file', { ...base(), file, service_uuid: b.service_uuid })).status).toBe(404);
    expect((await a.api.post('/moto/campaign/file', { ...base(), file, type: 'FAX' })).status).toBe(400);
    expect((await a.api.post('/moto/campaign', { ...base(), payments: [] })).status).toBe(400);
    expect((await a.api.get('/moto/campaign/not-a-uuid')).status).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/v1/sandbox/moto/open/unknown-token' })).statusCode).toBe(404);
  });
});
