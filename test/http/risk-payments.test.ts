/**
 * Security lists and antifraud on payments: every list type through B10, B3 and the hosted page, each
 * item type, linked services, disabled lists; each default rule; what MoTo and merchant-initiated
 * payments do; the rules API; cards under suspected fraud (F2); the black-list flag of card listings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { TEST_CARDS, advance, storeCard } from '../helpers/payments.js';
import { cardNumber, direct, freshCard, newList, newService, onPage, single, tx } from '../helpers/risk.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const pci = () => t.merchant({ isPci: true });
const authorizeCalls = () => t.m.processors.simulator.callCount('authorize');

describe('list types through B10, B3 and the hosted page', () => {
  it('black list: REFUSED/BLACKLISTED, order BLACKLISTED, the processor is not called', async () => {
    const m = await pci();
    const pan = freshCard();
    await newList(m, 'BLACKLIST', [{ type: 'CARD', value: pan }]);
    const before = authorizeCalls();
    const b10 = await direct(t, m, { pan });
    expect(b10.status, b10.raw).toBe(200);
    expect(b10.body.order).toMatchObject({ status: 'BLACKLISTED', paid: false });
    expect(tx(b10.body.order)).toMatchObject({ status: 'REFUSED', error: 'BLACKLISTED', antifraud: { evaluation: 'REJECT', triggered_rules: ['BLACKLIST'] } });
    const b3 = await single(m, { pan });
    expect(b3.body.order.status).toBe('BLACKLISTED');
    expect(tx(b3.body.order)).toMatchObject({ status: 'REFUSED', error: 'BLACKLISTED' });
    const page = await onPage(t, m, { pan });
    expect(page.location).toContain('result=ko');
    expect(page.order.status).toBe('BLACKLISTED');
    expect(authorizeCalls()).toBe(before);
    // BLACKLISTED is final: the order cannot be paid again
    const again = await m.api.post('/payment/direct', { order_uuid: b10.body.order.uuid, card_uuid: await storeCard(t, m, freshCard(), 'risk-cust') });
    expect(again.status).toBe(400);
  });

  it('grey list: 3-D Secure (303 on B3 and B10, the challenge on the page)', async () => {
    const m = await pci();
    await newList(m, 'GREYLIST', [{ type: 'IP', value: '192.0.2.0/24' }]);
    const b10 = await direct(t, m, { ip: '192.0.2.10' });
    expect(b10.status, b10.raw).toBe(303);
    expect(b10.body.details ?? b10.body.url).toContain('/payment/tokenized/');
    expect(b10.body.order.status).toBe('PENDING_3DS_RESPONSE');
    expect(tx(b10.body.order).antifraud).toMatchObject({ evaluation: 'CHALLENGE', triggered_rules: ['GREYLIST'] });
    const b3 = await single(m, { ip: '192.0.2.11', pan: TEST_CARDS.FRICTIONLESS });
    // even the frictionless card: the challenge is required, not asked for
    expect(b3.status).toBe(303);
    const page = await onPage(t, m, { ip: '192.0.2.12' });
    expect(page.location).toContain('/payment/tokenized/');
    expect(page.order.status).toBe('PENDING_3DS_RESPONSE');
    // another address is not on the list
    expect((await direct(t, m, { ip: '192.0.3.10' })).body.order.status).toBe('SUCCESS');
  });

  it('white list: antifraud skipped (a sandbox reject trigger passes), recorded as ACCEPT', async () => {
    const m = await pci();
    await newList(m, 'WHITELIST', [{ type: 'CUSTOMER', value: 'vip' }, { type: 'IP', value: '203.0.113.99' }]);
    const b10 = await direct(t, m, { customer: 'vip', ip: '203.0.113.99' });
    expect(b10.body.order.status).toBe('SUCCESS');
    expect(tx(b10.body.order).antifraud).toEqual({ evaluation: 'ACCEPT', score: 0, risk_score: 0, fraud_score: 0, triggered_rules: ['WHITELIST'] });
    const b3 = await single(m, { customer: 'vip', ip: '203.0.113.99' });
    expect(b3.body.order.status).toBe('SUCCESS');
    const page = await onPage(t, m, { ip: '203.0.113.99' });
    expect(page.order.status).toBe('SUCCESS');
    // without the white list the same traffic is fraud
    const n = await pci();
    const refused = await direct(t, n, { customer: 'vip', ip: '203.0.113.99' });
    expect(refused.body.order.status).toBe('FRAUD');
    expect(tx(refused.body.order)).toMatchObject({ status: 'REFUSED', error: 'FRAUD_SUSPECTED', antifraud: { evaluation: 'REJECT', triggered_rules: ['SANDBOX_REJECT'] } });
    expect((await onPage(t, n, { ip: '203.0.113.99' })).order.status).toBe('FRAUD');
  });
});

describe('each item type matches', () => {
  it('CARD, CARD_UUID (every stored entry of the card), BIN, EMAIL, IP, COUNTRY, CUSTOMER, PHONE', async () => {
    const m = await pci();
    const card = freshCard();
    const storedTwice = freshCard();
    const firstEntry = await storeCard(t, m, storedTwice, 'c-uuid');
    const spanish = cardNumber('40000724');
    for (const id of ['c-email', 'c-phone']) {
      await m.api.post('/customer', { customer_ext_id: id });
      const r = await m.api.post('/customer/profile', {
        external_id: id, first_name: 'Ana', last_name: 'Pérez', email: id === 'c-email' ? 'Stolen@Example.com' : 'ok@example.com',
        phone: id === 'c-phone' ? { number: '600000002', prefix: '+34' } : null, work_phone: null, home_phone: null, mobile_phone: null,
      });
      expect([200], r.raw).toContain(r.status);
    }
    await newList(m, 'BLACKLIST', [
      { type: 'CARD', value: card },
      { type: 'CARD_UUID', value: firstEntry },
      { type: 'BIN', value: '5105105' },
      { type: 'EMAIL', value: 'stolen@example.com' },
      { type: 'IP', value: '2001:db8:bad::/48' },
      { type: 'COUNTRY', value: 'ES' },
      { type: 'CUSTOMER', value: 'c-banned' },
      { type: 'PHONE', value: '+34600000002' },
    ]);
    const blocked = async (p: Parameters<typeof direct>[2], label: string) => {
      const r = await direct(t, m, p);
      expect(r.body.order.status, label).toBe('BLACKLISTED');
    };
    await blocked({ pan: card }, 'CARD');
    await blocked({ pan: storedTwice, customer: 'c-uuid' }, 'CARD_UUID, a new entry of the same card');
    await blocked({ pan: cardNumber('51051051') }, 'BIN');
    await blocked({ customer: 'c-email' }, 'EMAIL of the profile');
    await blocked({ ip: '2001:db8:bad:1::5' }, 'IP in a network');
    await blocked({ pan: spanish }, 'COUNTRY of the card');
    await blocked({ ip: '192.0.2.40' }, 'COUNTRY of the IP');
    await blocked({ customer: 'c-banned' }, 'CUSTOMER');
    await blocked({ customer: 'c-phone' }, 'PHONE of the profile');
    const ok = await direct(t, m, { pan: cardNumber('51051061'), customer: 'c-fine', ip: '198.51.100.40' });
    expect(ok.body.order.status).toBe('SUCCESS');
  });
});

describe('which payments a list applies to', () => {
  it('a linked list applies only to its services; unlinked, disabled or deleted it stops', async () => {
    const m = await pci();
    // the same card pays again and again here: no velocity rules in the way (lists apply without antifraud)
    await m.api.put('/antifraud/rules', { enabled: false });
    const second = await newService(m);
    const pan = freshCard();
    const list = await newList(m, 'BLACKLIST', [{ type: 'CARD', value: pan }], [second]);
    expect((await single(m, { pan })).body.order.status).toBe('SUCCESS');
    expect((await single(m, { pan, service: second })).body.order.status).toBe('BLACKLISTED');
    await m.api.put(`/security-list/${list}/enabled`, { enabled: false });
    expect((await single(m, { pan, service: second })).body.order.status).toBe('SUCCESS');
    await m.api.put(`/security-list/${list}/enabled`, { enabled: true });
    expect((await single(m, { pan, service: second })).body.order.status).toBe('BLACKLISTED');
    await m.api.delete(`/security-list/${list}/service`, { service_uuid: second });
    expect((await single(m, { pan, service: second })).body.order.status).toBe('SUCCESS');
    await m.api.post(`/security-list/${list}/service`, { service_uuid: second });
    await m.api.delete(`/security-list/${list}/items`, { items: [pan] });
    expect((await single(m, { pan, service: second })).body.order.status).toBe('SUCCESS');
    await m.api.post(`/security-list/${list}/items`, { items: [{ type: 'CARD', value: pan }] });
    await m.api.delete(`/security-list/${list}`);
    expect((await single(m, { pan, service: second })).body.order.status).toBe('SUCCESS');
  });
});

describe('default antifraud rules', () => {
  const triggered = (r: { body: { order: any } }) => tx(r.body.order).antifraud?.triggered_rules ?? [];

  it('CARD_VELOCITY: the 6th payment of a card within an hour is challenged; an hour later it is not', async () => {
    const m = await pci();
    const pan = freshCard();
    for (let i = 0; i < 5; i++) {
      const r = await single(m, { pan });
      expect(r.status, `payment ${i + 1}`).toBe(200);
      expect(triggered(r)).toEqual([]);
    }
    const sixth = await single(m, { pan });
    expect(sixth.status).toBe(303);
    expect(tx(sixth.body.order).antifraud).toMatchObject({ evaluation: 'CHALLENGE', fraud_score: 50, triggered_rules: ['CARD_VELOCITY'] });
    await advance(m, 3601);
    expect((await single(m, { pan })).status).toBe(200);
  });

  it('IP_VELOCITY, CUSTOMER_VELOCITY and EMAIL_VELOCITY: the 11th in an hour', async () => {
    const m = await pci();
    const run = async (p: (i: number) => Parameters<typeof single>[1], rule: string) => {
      for (let i = 0; i < 10; i++) expect(triggered(await single(m, p(i))), `${rule} ${i + 1}`).toEqual([]);
      const r = await single(m, p(10));
      expect(r.status).toBe(303);
      expect(triggered(r)).toEqual([rule]);
    };
    await run((i) => ({ ip: '198.51.100.77', customer: `ip-${i}` }), 'IP_VELOCITY');
    await run(() => ({ customer: 'busy' }), 'CUSTOMER_VELOCITY');
    for (let i = 0; i < 11; i++) {
      await m.api.post('/customer', { customer_ext_id: `mail-${i}` });
      await m.api.post('/customer/profile', { external_id: `mail-${i}`, first_name: 'A', last_name: 'B', email: 'shared@example.com', phone: null, work_phone: null, home_phone: null, mobile_phone: null });
    }
    await run((i) => ({ customer: `mail-${i}` }), 'EMAIL_VELOCITY');
  });

  it('AMOUNT_HIGH, AMOUNT_VERY_HIGH, NEW_CARD_HIGH_AMOUNT', async () => {
    const m = await pci();
    const pan = freshCard();
    const first = await single(m, { pan, amount: 100_000 });
    expect(first.status).toBe(200);
    expect(tx(first.body.order).antifraud).toMatchObject({ evaluation: 'ACCEPT', risk_score: 30, triggered_rules: ['NEW_CARD_HIGH_AMOUNT'] });
    const newHigh = await single(m, { pan: freshCard(), amount: 250_000 });
    expect(newHigh.status).toBe(303);
    expect(triggered(newHigh)).toEqual(['AMOUNT_HIGH', 'NEW_CARD_HIGH_AMOUNT']);
    await advance(m, 86_401);
    const high = await single(m, { pan, amount: 250_000 });
    expect(high.status).toBe(200);
    expect(tx(high.body.order).antifraud).toMatchObject({ evaluation: 'ACCEPT', score: 20, triggered_rules: ['AMOUNT_HIGH'] });
    const veryHigh = await single(m, { pan, amount: 1_000_000 });
    expect(veryHigh.status).toBe(303);
    expect(tx(veryHigh.body.order).antifraud).toMatchObject({ evaluation: 'CHALLENGE', score: 50, triggered_rules: ['AMOUNT_HIGH', 'AMOUNT_VERY_HIGH'] });
  });

  it('COUNTRY_MISMATCH: a Spanish sandbox card from a French address, not from a Spanish one', async () => {
    const m = await pci();
    const spanish = cardNumber('40000724');
    expect(triggered(await single(m, { pan: spanish, ip: '192.0.2.8' }))).toEqual([]);
    const r = await single(m, { pan: spanish, ip: '198.51.100.8' });
    expect(r.status).toBe(200);
    expect(tx(r.body.order).antifraud).toMatchObject({ evaluation: 'ACCEPT', fraud_score: 40, triggered_rules: ['COUNTRY_MISMATCH'] });
  });

  it('sandbox triggers: 203.0.113.66 challenges, 203.0.113.99 rejects (FRAUD, no processor call)', async () => {
    const m = await pci();
    const c = await single(m, { ip: '203.0.113.66' });
    expect(c.status).toBe(303);
    expect(tx(c.body.order).antifraud).toMatchObject({ evaluation: 'CHALLENGE', triggered_rules: ['SANDBOX_CHALLENGE'] });
    const before = authorizeCalls();
    const r = await direct(t, m, { ip: '203.0.113.99' });
    expect(r.body.order).toMatchObject({ status: 'FRAUD', paid: false });
    expect(authorizeCalls()).toBe(before);
    // sandbox test cards are not subject to the rules (merchants' test suites reuse them), but to the triggers
    for (let i = 0; i < 8; i++) expect((await single(m, { pan: TEST_CARDS.APPROVED, amount: 5_000_000 })).status).toBe(200);
    expect((await single(m, { pan: TEST_CARDS.APPROVED, ip: '203.0.113.99' })).body.order.status).toBe('FRAUD');
  });
});

describe('channels', () => {
  it('MoTo records the evaluation and is not restricted; a black list still refuses it', async () => {
    const m = await pci();
    await m.api.put('/antifraud/rules', { rules: { CARD_VELOCITY: { max_payments: 1, score: 100 } } });
    const pan = freshCard();
    const moto = async () => {
      const o = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'moto', service: m.service_uuid, customer_ext_id: 'phone-cust' });
      return m.api.post('/payment/moto', { order_uuid: o.body.order.uuid, method: 'PHONE', card_holder: 'Ana', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030' });
    };
    expect((await moto()).body.order.status).toBe('SUCCESS');
    const second = await moto();
    expect(second.body.order.status).toBe('SUCCESS');
    expect(tx(second.body.order).antifraud).toMatchObject({ evaluation: 'REJECT', triggered_rules: ['CARD_VELOCITY'] });
    await newList(m, 'BLACKLIST', [{ type: 'CARD', value: pan }]);
    expect((await moto()).body.order.status).toBe('BLACKLISTED');
  });

  it('merchant-initiated payments: black list refuses, grey list and CHALLENGE proceed (recorded), REJECT refuses', async () => {
    const m = await pci();
    const ctx = await t.m.merchants.contextForKey(m.key_id);
    const mit = async (pan: string, customer = 'sub-1') => {
      const card = await storeCard(t, m, pan, customer);
      const o = await t.m.payments.create(ctx, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'recurring', service: m.service_uuid, customer_ext_id: customer });
      return t.m.payments.pay(ctx, o.order.uuid, { channel: 'MIT', card: { kind: 'source', sourceUuid: card } });
    };
    const black = freshCard();
    const grey = freshCard();
    await newList(m, 'BLACKLIST', [{ type: 'CARD', value: black }]);
    await newList(m, 'GREYLIST', [{ type: 'CARD', value: grey }]);
    expect((await mit(black)).order.status).toBe('BLACKLISTED');
    const g = await mit(grey);
    expect(g.redirect).toBeNull();
    expect(g.order.status).toBe('SUCCESS');
    expect(tx(g.order).antifraud).toMatchObject({ evaluation: 'CHALLENGE', triggered_rules: ['GREYLIST'] });
    expect(g.order.threeds_data).toEqual({ version: '2.2.0', flow: 'EXEMPTED', sca_requested: false, status: 'EXEMPTED', eci: null, exemption: 'MERCHANT_INITIATED' });
    await m.api.put('/antifraud/rules', { rules: { CUSTOMER_VELOCITY: { max_payments: 1, score: 95 } } });
    await mit(freshCard(), 'sub-2');
    const rejected = await mit(freshCard(), 'sub-2');
    expect(rejected.order.status).toBe('FRAUD');
  });
});

describe('rules API', () => {
  it('GET gives the defaults; PUT replaces (left out: defaults); bad documents are 400', async () => {
    const m = await pci();
    const g = await m.api.get('/antifraud/rules');
    expect(g.status, g.raw).toBe(200);
    expect(g.body.antifraud).toMatchObject({ enabled: true, challenge_threshold: 50, reject_threshold: 90, rules: { CARD_VELOCITY: { enabled: true, score: 50, max_payments: 5, window_seconds: 3600 } }, low_value_exemption: { enabled: false, max_amounts: { EUR: 3000 } } });
    const put = await m.api.put('/antifraud/rules', { rules: { CARD_VELOCITY: { max_payments: 2, window_seconds: 600 } } });
    expect(put.status, put.raw).toBe(200);
    expect(put.body.antifraud.rules.CARD_VELOCITY).toEqual({ enabled: true, score: 50, max_payments: 2, window_seconds: 600 });
    const pan = freshCard();
    expect((await single(m, { pan })).status).toBe(200);
    expect((await single(m, { pan })).status).toBe(200);
    expect((await single(m, { pan })).status).toBe(303);
    // the window is sliding: ten minutes later the card is clear again
    await advance(m, 601);
    expect((await single(m, { pan })).status).toBe(200);
    expect((await m.api.put('/antifraud/rules', { challenge_threshold: 80, reject_threshold: 60 })).status).toBe(400);
    expect((await m.api.put('/antifraud/rules', { rules: { AMOUNT_HIGH: { amounts: { EURO: 5 } } } })).status).toBe(400);
    expect((await m.api.put('/antifraud/rules', { rules: { AMOUNT_HIGH: { amounts: { ZZZ: 5 } } } })).body.details).toMatch(/ZZZ/);
    expect((await m.api.put('/antifraud/rules', { rules: { CARD_VELOCITY: { score: 101 } } })).status).toBe(400);
    // {} restores every default
    expect((await m.api.put('/antifraud/rules', {})).body.antifraud).toEqual(g.body.antifraud);
    // antifraud off: nothing recorded, the sandbox triggers do not fire, the lists still apply
    await m.api.put('/antifraud/rules', { enabled: false });
    const off = await single(m, { ip: '203.0.113.99' });
    expect(off.body.order.status).toBe('SUCCESS');
    expect(tx(off.body.order).antifraud).toBeNull();
    // rules are per merchant
    const other = await pci();
    expect((await single(other, { ip: '203.0.113.99' })).body.order.status).toBe('FRAUD');
  });
});

describe('cards outside payments', () => {
  it('F2 refuses to store a card under suspected fraud (REJECT) or on a black list; others are stored', async () => {
    const m = await pci();
    const pan = freshCard();
    expect((await direct(t, m, { pan, ip: '203.0.113.99' })).body.order.status).toBe('FRAUD');
    const store = (card: string, customer = 'f2') => m.api.post('/payment-method/card', { card_holder: 'Ana', card_pan: card, card_expiry_month: '12', card_expiry_year: '2030', customer_ext_id: customer });
    const refused = await store(pan);
    expect(refused.status).toBe(400);
    expect(refused.body.details).toMatch(/cannot be tokenized: suspected fraud/);
    const many = await m.api.post('/payment-method/cards', { cards: [{ card_holder: 'A', card_pan: freshCard(), card_expiry_month: '12', card_expiry_year: '2030', customer_ext_id: 'f2' }, { card_holder: 'A', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', customer_ext_id: 'f2' }] });
    expect(many.status).toBe(400);
    expect(many.body.details).toMatch(/^cards\[1\]: The card cannot be tokenized/);
    const listed = freshCard();
    await newList(m, 'BLACKLIST', [{ type: 'CARD', value: listed }, { type: 'CUSTOMER', value: 'f2-banned' }]);
    expect((await store(listed)).status).toBe(400);
    expect((await store(freshCard(), 'f2-banned')).status).toBe(400);
    expect((await store(freshCard())).status).toBe(200);
    // a week later the rejected card may be stored again
    await advance(m, 7 * 86_400 + 1);
    expect((await store(pan)).status).toBe(200);
  });

  it('card listings: a card is black-listed by a black list of its tokenization service (or any, without one)', async () => {
    const m = await pci();
    const second = await newService(m);
    const owner = { merchantId: m.client_uuid, env: 'sandbox' as const };
    const [a, b, c] = [freshCard(), freshCard(), cardNumber('37828224')];
    const card = (id: string, pan: string, serviceId: string | null) => ({ sourceId: id, fingerprint: t.p.vault.fingerprint('pan', pan), bin: pan.slice(0, 6), serviceId });
    const list = await newList(m, 'BLACKLIST', [{ type: 'CARD', value: a }, { type: 'BIN', value: c.slice(0, 6) }], [second]);
    const check = (cards: ReturnType<typeof card>[]) => t.m.risk.blacklistCheck(owner, cards);
    expect([...(await check([card('s1', a, second), card('s2', a, m.service_uuid!), card('s3', a, null), card('s4', b, second), card('s5', c, second)]))].sort()).toEqual(['s1', 's3', 's5']);
    await m.api.put(`/security-list/${list}/enabled`, { enabled: false });
    expect((await check([card('s1', a, second), card('s3', a, null)])).size).toBe(0);
  });
});
