/**
 * Disputes end to end in the sandbox: raised on a paid order, evidence added (text and a PDF), refused
 * when it carries a card number or is not a PDF/PNG/JPEG, submitted, won and lost on the test clock (the
 * sandbox's decision job), expired when the deadline passes with no answer, accepted; the order's
 * amounts (disputed, lost, won back); the deadline reminder e-mail to the dashboard users 3 days before;
 * the dispute events (on the event log always, signed delivery on opt-in); a CSV import (created, updated, refused whole);
 * a manual dispute on a Redsys payment; another merchant sees none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { advance, paidOrder, TEST_CARDS } from '../helpers/payments.js';
import { createUser } from '../helpers/dashboard.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { validationHash } from '../../src/modules/events/index.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let rx: Receiver;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Dispute Shop' });
  b = await t.merchant({ name: 'Other Shop' });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

const DAY = 86400;
const b64 = (x: string | Buffer) => Buffer.from(x).toString('base64');

/** A small PDF whose page text is `text`, its content stream FlateDecode-compressed as PDF writers do. */
function pdf(text: string): Buffer {
  const content = deflateSync(Buffer.from(`BT /F1 12 Tf 72 712 Td (${text}) Tj ET`, 'latin1'));
  const head = '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> endobj\n';
  return Buffer.concat([
    Buffer.from(`${head}4 0 obj << /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    content,
    Buffer.from('\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1'),
  ]);
}
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

async function sandboxDispute(m: TestMerchant, amount: number, body: Record<string, unknown> = {}) {
  const order = await paidOrder(t, m, { amount });
  const r = await m.api.post('/disputes/simulate', { order_uuid: order.uuid, ...body });
  expect(r.status, r.raw).toBe(200);
  return { order, d: r.body.dispute, totals: r.body.order_totals };
}

async function drain() {
  await t.p.jobs.drain();
}

describe('sandbox disputes on the test clock', () => {
  it('raised, evidence, submitted and WON: the order shows it won back', async () => {
    const { order, d, totals } = await sandboxDispute(a, 2500, { reason_code: '13.1', category: 'PRODUCT_NOT_RECEIVED' });
    expect(d).toMatchObject({ order_uuid: order.uuid, transaction_uuid: order.transactions[0].uuid, source: 'SANDBOX', acquirer: 'SANDBOX', status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', amount: 2500, currency: 'EUR', category: 'PRODUCT_NOT_RECEIVED', actions: ['SUBMIT', 'ACCEPT'] });
    expect(d.evidence_fields).toContain('shipping_tracking_number');
    expect(totals).toMatchObject({ order_uuid: order.uuid, disputes: 1, disputed: 2500, lost: 0, won: 0 });
    // the order shows it (an order never disputed has no `disputes`: it is presented as it always was)
    expect(order).not.toHaveProperty('disputes');
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.disputes).toEqual({ disputed: 2500, lost: 0, won: 0 });
    const clock = await a.api.get('/test-clock');
    // its deadline and its reminder are durable jobs of the merchant (moved with its test clock)
    const { rows: jobs } = await sql<{ queue: string; merchant_id: string }>`select queue, merchant_id from jobs where payload::jsonb ->> 'disputeId' = ${d.uuid} order by queue`.execute(t.p.database.db);
    expect(jobs).toEqual([{ queue: 'disputes.deadline', merchant_id: a.client_uuid }, { queue: 'disputes.reminder', merchant_id: a.client_uuid }]);
    // due 7 days from now on the merchant's clock
    expect(Date.parse(d.evidence_due_at) - Date.parse(d.created_at)).toBe(7 * DAY * 1000);
    expect(clock.status).toBe(200);

    // submitting without evidence is refused
    const early = await a.api.post(`/disputes/${d.uuid}/submit`, {});
    expect(early.status, early.raw).toBe(409);

    const ev = await a.api.post(`/disputes/${d.uuid}/evidence`, {
      fields: { product_description: 'Concert tickets sent by e-mail', shipping_tracking_number: '1Z999AA10123456784' },
      documents: [{ filename: 'receipt.pdf', data: b64(pdf('Delivered to Ana Perez on 14 March')) }, { filename: 'photo.png', data: `data:image/png;base64,${b64(PNG)}` }],
    });
    expect(ev.status, ev.raw).toBe(200);
    expect(ev.body.dispute.evidence.map((e: any) => [e.kind, e.name, e.content_type])).toEqual(expect.arrayContaining([
      ['TEXT', 'product_description', null], ['TEXT', 'shipping_tracking_number', null], ['DOCUMENT', 'receipt.pdf', 'application/pdf'], ['DOCUMENT', 'photo.png', 'image/png'],
    ]));
    // the document comes back as it was sent
    const doc = ev.body.dispute.evidence.find((e: any) => e.name === 'photo.png');
    const got = await a.api.get(`/disputes/${d.uuid}/documents/${doc.uuid}`);
    expect(got.status, got.raw).toBe(200);
    expect(got.body.document).toMatchObject({ filename: 'photo.png', content_type: 'image/png', size: PNG.length });
    expect(Buffer.from(got.body.document.data, 'base64').equals(PNG)).toBe(true);
    expect((await b.api.get(`/disputes/${d.uuid}/documents/${doc.uuid}`)).status).toBe(404);

    const sub = await a.api.post(`/disputes/${d.uuid}/submit`, {});
    expect(sub.status, sub.raw).toBe(200);
    expect(sub.body.dispute).toMatchObject({ status: 'UNDER_REVIEW', actions: [] });
    // evidence after submission is refused
    const late = await a.api.post(`/disputes/${d.uuid}/evidence`, { fields: { additional_information: 'more' } });
    expect(late.status, late.raw).toBe(409);

    // the sandbox decides 2 days later on the test clock, not before
    await advance(a, DAY);
    await drain();
    expect((await a.api.get(`/disputes/${d.uuid}`)).body.dispute.status).toBe('UNDER_REVIEW');
    await advance(a, DAY + 60);
    await drain();
    const won = await a.api.get(`/disputes/${d.uuid}`);
    expect(won.body.dispute).toMatchObject({ status: 'WON', money: { disputed: 0, lost: 0, won: 2500 } });
    expect(won.body.order_totals).toMatchObject({ disputed: 0, lost: 0, won: 2500 });
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.disputes).toEqual({ disputed: 0, lost: 0, won: 2500 });
    expect(won.body.dispute.history.map((h: any) => [h.event, h.to_status, h.actor.split(':')[0]])).toEqual([
      ['CREATE', 'NEEDS_RESPONSE', 'sandbox'], ['EVIDENCE', 'NEEDS_RESPONSE', 'api'], ['SUBMIT', 'UNDER_REVIEW', 'api'], ['WIN', 'WON', 'sandbox'],
    ]);
    // the history's times are the merchant's clock: the decision is 2 days after the submission
    const [, , submitted, decided] = won.body.dispute.history;
    expect(Date.parse(decided.at) - Date.parse(submitted.at)).toBeGreaterThanOrEqual(2 * DAY * 1000);
  });

  it('submitted and LOST: the amount is lost', async () => {
    const { order, d } = await sandboxDispute(a, 1800, { outcome: 'LOST', amount: 1000 });
    expect(d.amount).toBe(1000);
    expect((await a.api.post(`/disputes/${d.uuid}/evidence`, { fields: { customer_name: 'Ana Perez' } })).status).toBe(200);
    expect((await a.api.post(`/disputes/${d.uuid}/submit`, {})).status).toBe(200);
    await advance(a, 2 * DAY + 60);
    await drain();
    const r = await a.api.get(`/disputes/${d.uuid}`);
    expect(r.body.dispute).toMatchObject({ status: 'LOST', money: { disputed: 0, lost: 1000, won: 0 } });
    expect(r.body.order_totals).toMatchObject({ disputes: 1, lost: 1000 });
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.disputes).toEqual({ disputed: 0, lost: 1000, won: 0 });
  });

  it('no response by the deadline: EXPIRED (lost), by the durable job on the test clock', async () => {
    const { d } = await sandboxDispute(a, 900);
    await advance(a, 7 * DAY - 3600);
    await drain();
    expect((await a.api.get(`/disputes/${d.uuid}`)).body.dispute.status).toBe('NEEDS_RESPONSE');
    await advance(a, 7200);
    await drain();
    const r = await a.api.get(`/disputes/${d.uuid}`);
    expect(r.body.dispute).toMatchObject({ status: 'EXPIRED', money: { lost: 900 } });
    expect(r.body.dispute.history.at(-1)).toMatchObject({ event: 'EXPIRE', actor: 'system', from_status: 'NEEDS_RESPONSE', to_status: 'EXPIRED' });
    // decided: nothing more can be done
    expect((await a.api.post(`/disputes/${d.uuid}/accept`, {})).status).toBe(409);
  });

  it('accepted: lost at once; a second open dispute of the same payment is refused', async () => {
    const { order, d } = await sandboxDispute(a, 700);
    const again = await a.api.post('/disputes/simulate', { order_uuid: order.uuid });
    expect(again.status, again.raw).toBe(409);
    const r = await a.api.post(`/disputes/${d.uuid}/accept`, {});
    expect(r.status, r.raw).toBe(200);
    expect(r.body.dispute).toMatchObject({ status: 'ACCEPTED', money: { lost: 700 } });
    expect(r.body.dispute.resolved_at).not.toBeNull();
  });

  it('the list filters and pages; another merchant sees nothing', async () => {
    const all = await a.api.get('/disputes', { limit: '2' });
    expect(all.status, all.raw).toBe(200);
    expect(all.body.disputes).toHaveLength(2);
    const seen = [...all.body.disputes];
    let cursor = all.body.next_cursor;
    while (cursor) {
      const page = await a.api.get('/disputes', { limit: '2', cursor });
      seen.push(...page.body.disputes);
      cursor = page.body.next_cursor;
    }
    expect(new Set(seen.map((x) => x.uuid)).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    const lost = await a.api.get('/disputes', { status: 'LOST' });
    expect(lost.body.disputes.every((x: any) => x.status === 'LOST')).toBe(true);
    expect(lost.body.disputes.length).toBeGreaterThanOrEqual(1);

    const theirs = await b.api.get('/disputes');
    expect(theirs.body.disputes).toEqual([]);
    const one = seen[0];
    expect((await b.api.get(`/disputes/${one.uuid}`)).status).toBe(404);
    expect((await b.api.post(`/disputes/${one.uuid}/accept`, {})).status).toBe(404);
    expect((await b.api.post(`/disputes/${one.uuid}/evidence`, { fields: { additional_information: 'x' } })).status).toBe(404);
    // nor raise one on another merchant's order
    expect((await b.api.post('/disputes', { order_uuid: one.order_uuid, reason_code: '10.4', category: 'FRAUD' })).status).toBe(404);
    expect((await b.api.get('/disputes', { order_uuid: one.order_uuid })).body.disputes).toEqual([]);
  });
});

describe('evidence rules', () => {
  let id: string;
  beforeAll(async () => {
    id = (await sandboxDispute(a, 1200)).d.uuid;
  });
  const count = async () => Number((await sql<{ n: number }>`select count(*)::int as n from dispute_evidence where dispute_id = ${id}`.execute(t.p.database.db)).rows[0].n);

  it('text with a card number is refused, and nothing of the request is kept', async () => {
    const r = await a.api.post(`/disputes/${id}/evidence`, { fields: { additional_information: 'customer paid with 4111 1111 1111 1111' }, documents: [{ filename: 'ok.png', data: b64(PNG) }] });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/card number/);
    expect(await count()).toBe(0);
  });

  it('a PDF whose text holds a card number is refused', async () => {
    const r = await a.api.post(`/disputes/${id}/evidence`, { documents: [{ filename: 'statement.pdf', data: b64(pdf('Card 4111111111111111 charged')) }] });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/statement\.pdf.*card number/);
    expect(await count()).toBe(0);
  });

  it('a file that is not a PDF, PNG or JPEG is refused, whatever its name', async () => {
    const r = await a.api.post(`/disputes/${id}/evidence`, { documents: [{ filename: 'receipt.pdf', data: b64('<html>not a pdf</html>') }] });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/not a PDF, PNG or JPEG/);
    const gif = await a.api.post(`/disputes/${id}/evidence`, { documents: [{ filename: 'x.gif', data: b64('GIF89a\x01\x00\x01\x00') }] });
    expect(gif.status).toBe(400);
    expect(await count()).toBe(0);
  });

  it('a field the category does not take is refused; sizes are limited', async () => {
    const r = await a.api.post(`/disputes/${id}/evidence`, { fields: { shipping_tracking_number: '1Z' } });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/not evidence of a FRAUD dispute/);
    const big = Buffer.alloc(4 * 1024 * 1024 + 1, 0);
    PNG.copy(big);
    const tooBig = await a.api.post(`/disputes/${id}/evidence`, { documents: [{ filename: 'big.png', data: b64(big) }] });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.details).toMatch(/4 MiB/);
    // three documents of 3.5 MiB: the third passes the 10 MiB of the dispute
    // filled with 0xab: the database dump (hex) holds no long run of digits for the card-data scan to read
    const doc = Buffer.alloc(3.5 * 1024 * 1024, 0xab);
    PNG.copy(doc);
    expect((await a.api.post(`/disputes/${id}/evidence`, { documents: [{ filename: 'a.png', data: b64(doc) }, { filename: 'b.png', data: b64(doc) }] })).status).toBe(200);
    const third = await a.api.post(`/disputes/${id}/evidence`, { documents: [{ filename: 'c.png', data: b64(doc) }] });
    expect(third.status, third.raw).toBe(400);
    expect(third.body.details).toMatch(/10 MiB/);
    expect(await count()).toBe(2);
  });
});

describe('the deadline reminder e-mail', () => {
  it('goes to the dashboard users 3 days before the deadline, on the test clock, once', async () => {
    const m = await t.merchant({ name: 'Reminded Shop' });
    const user = await createUser(m, 'MANAGER');
    const mails = async () => t.p.database.db.selectFrom('mail_outbox').select(['recipient', 'subject']).where('recipient', '=', user.email).where('subject', 'like', 'Dispute%').execute();
    const { d } = await sandboxDispute(m, 3100);
    await advance(m, 4 * DAY - 3600);
    await drain();
    expect(await mails()).toEqual([]);
    await advance(m, 7200);
    await drain();
    const sent = await mails();
    expect(sent).toHaveLength(1);
    expect(sent[0].subject).toMatch(/3100 EUR .*due in 3 days/);
    const h = (await m.api.get(`/disputes/${d.uuid}`)).body.dispute.history;
    expect(h.at(-1)).toMatchObject({ event: 'REMINDER', actor: 'system' });
    await advance(m, DAY);
    await drain();
    expect(await mails()).toHaveLength(1);
  });
});

describe('dispute events (posted on opt-in)', () => {
  it('without a URL on the event log only (NOT_SENT); with one, signed delivery to the URL', async () => {
    const m = await t.merchant({ name: 'Notified Shop' });
    const quiet = await sandboxDispute(m, 500);
    const unsent = (await m.api.get('/events', { order_uuid: quiet.order.uuid })).body.events.filter((e: any) => e.type.startsWith('DISPUTE'));
    expect(unsent.map((e: any) => [e.type, e.status, e.url])).toEqual([['DISPUTE_CREATED', 'NOT_SENT', '']]);
    const s = await m.api.put('/disputes/settings', { notification_url: `${rx.url}/disputes` });
    expect(s.status, s.raw).toBe(200);
    expect(s.body.dispute_settings).toMatchObject({ notification_url: `${rx.url}/disputes`, reminder_days: 3 });
    const { order, d } = await sandboxDispute(m, 600);
    expect((await m.api.post(`/disputes/${d.uuid}/accept`, {})).status).toBe(200);
    await drain();
    const events = (await m.api.get('/events', { order_uuid: order.uuid })).body.events.filter((e: any) => e.type.startsWith('DISPUTE'));
    expect(events.map((e: any) => e.type).sort()).toEqual(['DISPUTE_ACCEPTED', 'DISPUTE_CREATED']);
    expect(events.every((e: any) => e.status === 'DELIVERED')).toBe(true);
    const got = rx.received.filter((x) => x.path === '/disputes').map((x) => JSON.parse(x.body));
    expect(got.map((x) => x.dispute.status)).toEqual(['NEEDS_RESPONSE', 'ACCEPTED']);
    // signed as every notification: validation_hash over the payload with the key's signature
    const payload = JSON.stringify({ dispute: got[1].dispute });
    expect(got[1].validation_hash).toBe(validationHash(payload, m.signature));
  });
});

describe('CSV import of an acquirer\'s disputes', () => {
  const header = 'DISPUTE_ID,TRANSACTION,REASON_CODE,CATEGORY,AMOUNT,CURRENCY,STAGE,STATUS,EVIDENCE_DUE';

  it('creates, then updates by the acquirer\'s id; a file with a bad line leaves nothing', async () => {
    const o1 = await paidOrder(t, a, { amount: 4000 });
    const o2 = await paidOrder(t, a, { amount: 4100 });
    const tx1 = o1.transactions[0].uuid;
    const tx2 = o2.transactions[0].uuid;
    const before = Number((await sql<{ n: number }>`select count(*)::int as n from disputes`.execute(t.p.database.db)).rows[0].n);
    const bad = [header, `CB-1,${tx1},10.4,FRAUD,4000,EUR,CHARGEBACK,NEEDS_RESPONSE,2030-01-31`, `CB-2,${tx2},4837,NOPE,5000,EUR,CHARGEBACK,NEEDS_RESPONSE,2030-01-31`].join('\n');
    const r = await a.api.post('/disputes/import', { data: b64(bad), filename: 'bank.csv', acquirer: 'REDSYS' });
    expect(r.status, r.raw).toBe(422);
    // a line is checked against the payment only once it reads well
    expect(r.body.errors).toEqual([{ line: 3, msg: expect.stringMatching(/^CATEGORY must be one of/) }]);
    expect(Number((await sql<{ n: number }>`select count(*)::int as n from disputes`.execute(t.p.database.db)).rows[0].n)).toBe(before);

    const good = [header, `CB-1,${tx1},10.4,FRAUD,4000,EUR,CHARGEBACK,NEEDS_RESPONSE,2030-01-31`, `CB-2,${tx2},4837,FRAUD,4100,EUR,CHARGEBACK,LOST,2030-01-31`].join('\n');
    const ok = await a.api.post('/disputes/import', { data: b64(good), filename: 'bank.csv', acquirer: 'REDSYS' });
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body.import).toEqual({ filename: 'bank.csv', lines: 2, created: 2, updated: 0, unchanged: 0 });
    const list = (await a.api.get('/disputes', { order_uuid: o1.uuid })).body;
    expect(list.disputes[0]).toMatchObject({ source: 'IMPORT', acquirer: 'REDSYS', provider_id: 'CB-1', status: 'NEEDS_RESPONSE', evidence_due_at: '2030-01-31T23:59:59.999Z' });

    // the next file reports CB-1 won and CB-2 unchanged; an impossible move (LOST to WON) refuses the whole file
    const impossible = [header, `CB-1,${tx1},10.4,FRAUD,4000,EUR,CHARGEBACK,WON,2030-01-31`, `CB-2,${tx2},4837,FRAUD,4100,EUR,CHARGEBACK,WON,2030-01-31`].join('\n');
    const no = await a.api.post('/disputes/import', { data: b64(impossible), filename: 'bank2.csv', acquirer: 'REDSYS' });
    expect(no.status, no.raw).toBe(422);
    expect(no.body.errors).toEqual([{ line: 3, msg: 'the dispute is LOST at CHARGEBACK: it cannot become WON at CHARGEBACK' }]);
    expect((await a.api.get('/disputes', { order_uuid: o1.uuid })).body.disputes[0].status).toBe('NEEDS_RESPONSE');
    const next = [header, `CB-1,${tx1},10.4,FRAUD,4000,EUR,CHARGEBACK,WON,2030-01-31`, `CB-2,${tx2},4837,FRAUD,4100,EUR,CHARGEBACK,LOST,2030-01-31`].join('\n');
    const upd = await a.api.post('/disputes/import', { data: b64(next), filename: 'bank2.csv', acquirer: 'REDSYS' });
    expect(upd.status, upd.raw).toBe(200);
    expect(upd.body.import).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    const d1 = (await a.api.get('/disputes', { order_uuid: o1.uuid })).body;
    expect(d1.disputes[0].status).toBe('WON');
    expect(d1.order_totals).toMatchObject({ won: 4000, lost: 0, disputed: 0 });
  });

  it('a card number anywhere in the file is 400; another merchant\'s payment is a problem of its line', async () => {
    const o = await paidOrder(t, b, { amount: 1000 });
    const pan = [header, `CB-9,${o.transactions[0].uuid},10.4,FRAUD,1000,EUR,CHARGEBACK,NEEDS_RESPONSE,4111111111111111`].join('\n');
    const r = await a.api.post('/disputes/import', { data: b64(pan), filename: 'x.csv', acquirer: 'REDSYS' });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/line 2, column EVIDENCE_DUE, must not contain a card number/);
    const other = [header, `CB-9,${o.transactions[0].uuid},10.4,FRAUD,1000,EUR,CHARGEBACK,NEEDS_RESPONSE,2030-01-31`].join('\n');
    const r2 = await a.api.post('/disputes/import', { data: b64(other), filename: 'x.csv', acquirer: 'REDSYS' });
    expect(r2.status, r2.raw).toBe(422);
    expect(r2.body.errors[0].msg).toMatch(/is not a successful payment of this merchant/);
  });
});

describe('validation', () => {
  it('bad input is a clear 400, never a 500', async () => {
    const o = await paidOrder(t, a, { amount: 1000 });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ order_uuid: o.uuid, reason_code: '10.4', category: 'FRAUD', amount: 1001 }, /more than the disputed payment's amount/],
      [{ order_uuid: o.uuid, reason_code: '10.4', category: 'NOT_A_CATEGORY' }, /category/],
      [{ order_uuid: o.uuid, reason_code: '10.4', category: 'FRAUD', evidence_due_at: '2001-01-01T00:00:00Z' }, /future/],
      [{ order_uuid: o.uuid, reason_code: '10.4', category: 'FRAUD', evidence_due_at: 'tomorrow' }, /ISO 8601/],
      [{ order_uuid: o.uuid, transaction_uuid: '00000000-0000-4000-8000-000000000000', reason_code: '10.4', category: 'FRAUD' }, /not a transaction of the order/],
    ];
    for (const [body, re] of cases) {
      const r = await a.api.post('/disputes', body);
      expect([400, 404], r.raw).toContain(r.status);
      expect(r.body.details).toMatch(re);
    }
    const unpaid = await a.api.post('/payment', { amount: 500, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, customer_ext_id: 'c' });
    const r = await a.api.post('/disputes', { order_uuid: unpaid.body.order.uuid, reason_code: '10.4', category: 'FRAUD' });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/no successful payment/);
    expect((await a.api.get('/disputes', { cursor: 'nonsense' })).status).toBe(400);
  });
});

describe('the dispute ratio against the schemes\' programmes', () => {
  it('per month and scheme: Visa against the month\'s sales, Mastercard against the month before', async () => {
    const m = await t.merchant({ name: 'Ratio Shop' });
    // this month: 4 Visa sales (1 disputed), 2 Mastercard sales (1 disputed); a retrieval is not counted
    const visa = [];
    for (let i = 0; i < 4; i++) visa.push(await paidOrder(t, m, { amount: 1000 + i, customer_ext_id: `v${i}` }, TEST_CARDS.APPROVED));
    const mc = [];
    for (let i = 0; i < 2; i++) mc.push(await paidOrder(t, m, { amount: 2000 + i, customer_ext_id: `m${i}` }, TEST_CARDS.NON_3DS_OK));
    expect((await m.api.post('/disputes/simulate', { order_uuid: visa[0].uuid })).status).toBe(200);
    expect((await m.api.post('/disputes/simulate', { order_uuid: visa[1].uuid, stage: 'RETRIEVAL' })).status).toBe(200);
    expect((await m.api.post('/disputes/simulate', { order_uuid: mc[0].uuid })).status).toBe(200);
    const r = await m.api.get('/disputes/ratios', { months: '2' });
    expect(r.status, r.raw).toBe(200);
    const month = r.body.ratios.at(-1).month;
    const of = (scheme: string) => r.body.ratios.find((x: any) => x.month === month && x.scheme === scheme);
    expect(of('VISA')).toMatchObject({ disputes: 1, sales: 4, sales_month: month, ratio: 0.25, programme: 'VDMP', threshold_ratio: 0.009, threshold_count: 100, standing: 'WARNING' });
    // Mastercard divides by the month before, which had no sales
    expect(of('MASTERCARD')).toMatchObject({ disputes: 1, sales: 0, ratio: 1, programme: 'ECM', threshold_ratio: 0.015, standing: 'WARNING' });
    expect(of('MASTERCARD').sales_month < month).toBe(true);
    expect(of('OTHER')).toMatchObject({ disputes: 0, standing: 'NOT_MONITORED' });
    // the month before: nothing
    expect(r.body.ratios.filter((x: any) => x.month !== month).every((x: any) => x.disputes === 0)).toBe(true);
    // another merchant's figures are its own
    const other = await b.api.get('/disputes/ratios', { months: '1' });
    expect(other.body.ratios.find((x: any) => x.scheme === 'MASTERCARD').disputes).toBe(0);
  });
});
