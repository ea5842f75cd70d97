import { describe, expect, it } from 'vitest';
import { secret } from '../../src/platform/security/secret.js';
import { CONTACTLESS_CVM_LIMIT, ProcessorRegistry, SimulatorConnector, TEST_CARDS, terminalActionFor, type CardData, type Connector, type PaymentRequest } from '../../src/processors/index.js';
import { decideHolderMatch, decidePayment, luhnValid, authorizationCode, processorId } from '../../src/processors/simulator.rules.js';

const NOW = new Date('2026-05-10T10:00:00Z');
const terminal = { serviceType: 'REDSYSPSD2', terminalId: null };

function card(pan: string, o: Partial<{ cvv: string | null; month: number; year: number }> = {}): CardData {
  return { pan: secret(pan), expiryMonth: o.month ?? 12, expiryYear: o.year ?? 2030, cvv: o.cvv === null ? null : secret(o.cvv ?? '123'), holder: 'Ana Pérez' };
}

let refs = 0;
function pay(pan: string, o: Partial<PaymentRequest> = {}): PaymentRequest {
  return { reference: `ref-${++refs}`, terminal, now: NOW, amount: 1000, currency: 'EUR', card: card(pan), channel: 'ECOMMERCE', ...o };
}

describe('simulator rules (decisions §5)', () => {
  it('Luhn', () => {
    for (const c of Object.values(TEST_CARDS)) expect(luhnValid(c), c).toBe(true);
    expect(luhnValid('4548812049400005')).toBe(false);
    expect(luhnValid('1234')).toBe(false);
    expect(luhnValid('45488120494000a4')).toBe(false);
  });

  it('every test card gives its outcome', () => {
    const base = { reference: 'r1', mode: 'SALE' as const, amount: 1000, channel: 'ECOMMERCE' as const, threeds: null, now: NOW };
    const c = (pan: string, cvv: string | null = '123') => ({ pan, expiryMonth: 12, expiryYear: 2030, cvv });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.APPROVED) })).toMatchObject({ outcome: 'APPROVED', amount: 1000 });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.NON_3DS_OK) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.THREEDS_OK) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.REFUSED) })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.REFUSED_VISA) })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.SOFT_DECLINE) })).toMatchObject({ outcome: 'CHALLENGE' });
    expect(decidePayment({ ...base, channel: 'MOTO', card: c(TEST_CARDS.SOFT_DECLINE) })).toMatchObject({ outcome: 'APPROVED' });
    const ts = { version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'x', dsTransId: 'y' };
    expect(decidePayment({ ...base, threeds: ts, card: c(TEST_CARDS.SOFT_DECLINE) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, threeds: { ...ts, transStatus: 'N' }, card: c(TEST_CARDS.APPROVED) })).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' });
    expect(decidePayment({ ...base, mode: 'PARTIAL', amount: 1001, card: c(TEST_CARDS.PARTIAL) })).toMatchObject({ outcome: 'APPROVED', amount: 500 });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.PARTIAL) })).toMatchObject({ outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS' });
    expect(decidePayment({ ...base, card: c('4000000000000002') })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: c('4000000000000003') })).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
    // any CVV of the brand's length passes (decisions §5); the wrong length fails the CVV check
    for (const cvv of ['999', '000', '481']) expect(decidePayment({ ...base, card: c(TEST_CARDS.APPROVED, cvv) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.APPROVED, '1234') })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'CVV check failed' });
    expect(decidePayment({ ...base, card: c('378282246310005', '1234') })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: c('378282246310005', '123') })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    // the CVV-fail card fails with any CVV, and only when a CVV is given
    for (const cvv of ['123', '999']) expect(decidePayment({ ...base, card: c(TEST_CARDS.CVV_FAIL, cvv) })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'CVV check failed' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.CVV_FAIL, null) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: c(TEST_CARDS.APPROVED, null) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, card: { ...c(TEST_CARDS.APPROVED), expiryMonth: 4, expiryYear: 2026 } })).toMatchObject({ outcome: 'DECLINED', error: 'EXPIRED_CARD' });
    expect(decidePayment({ ...base, card: { ...c(TEST_CARDS.APPROVED), expiryMonth: 5, expiryYear: 2026 } })).toMatchObject({ outcome: 'APPROVED' });
  });

  it('SCA on the terminal (card-present): contactless above the CVM limit without PIN, and the switch-interface card', () => {
    const base = { reference: 'r2', mode: 'SALE' as const, channel: 'CARD_PRESENT' as const, threeds: null, now: NOW };
    const c = (pan: string) => ({ pan, expiryMonth: 12, expiryYear: 2030, cvv: null });
    const cp = (readingMethod: 'NFC' | 'ICC' | 'MAGNETIC_STRIPE' | null, pinEntered: boolean) => ({ readingMethod, pinEntered });
    expect(CONTACTLESS_CVM_LIMIT).toBe(5000);
    // the limit itself is fine; one unit above needs the PIN
    expect(decidePayment({ ...base, amount: 5000, card: c(TEST_CARDS.APPROVED), cardPresent: cp('NFC', false) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, amount: 5001, card: c(TEST_CARDS.APPROVED), cardPresent: cp('NFC', false) })).toEqual({ outcome: 'CHALLENGE', terminalAction: 'REQUEST_PIN', details: expect.stringContaining('PIN') });
    expect(decidePayment({ ...base, amount: 5001, card: c(TEST_CARDS.APPROVED), cardPresent: cp('NFC', true) })).toMatchObject({ outcome: 'APPROVED' });
    expect(decidePayment({ ...base, amount: 90000, card: c(TEST_CARDS.APPROVED), cardPresent: cp('ICC', false) })).toMatchObject({ outcome: 'APPROVED' });
    // the switch-interface card wants the chip, whatever the amount and PIN
    for (const m of ['NFC', 'MAGNETIC_STRIPE', null] as const) {
      expect(decidePayment({ ...base, amount: 100, card: c(TEST_CARDS.SCA_SWITCH_INTERFACE), cardPresent: cp(m, true) })).toMatchObject({ outcome: 'CHALLENGE', terminalAction: 'SWITCH_INTERFACE' });
    }
    expect(decidePayment({ ...base, amount: 100, card: c(TEST_CARDS.SCA_SWITCH_INTERFACE), cardPresent: cp('ICC', false) })).toMatchObject({ outcome: 'APPROVED' });
    // a refused card tapped above the limit is asked for the PIN first (the issuer decides after SCA)
    expect(decidePayment({ ...base, amount: 6000, card: c(TEST_CARDS.REFUSED), cardPresent: cp('NFC', false) })).toMatchObject({ terminalAction: 'REQUEST_PIN' });
    expect(decidePayment({ ...base, amount: 6000, card: c(TEST_CARDS.REFUSED), cardPresent: cp('NFC', true) })).toMatchObject({ outcome: 'DECLINED' });
    // other channels never get a terminal action
    expect(decidePayment({ ...base, channel: 'ECOMMERCE', amount: 9000, card: c(TEST_CARDS.SCA_SWITCH_INTERFACE), cardPresent: cp('NFC', false) })).toMatchObject({ outcome: 'APPROVED' });
    expect(terminalActionFor(TEST_CARDS.APPROVED, 9000, null)).toBeNull();
  });

  it('is deterministic: same reference, same codes', () => {
    expect(authorizationCode('abc')).toBe(authorizationCode('abc'));
    expect(authorizationCode('abc')).toMatch(/^\d{6}$/);
    expect(processorId('abc')).not.toBe(processorId('abd'));
  });

  it('holder verification', () => {
    expect(decideHolderMatch('Ana Pérez', { name: 'ANA PEREZ' })).toBe('MATCH');
    expect(decideHolderMatch('Ana Pérez', { first_name: 'Perez', last_name: 'Ana' })).toBe('MATCH');
    expect(decideHolderMatch('Ana Pérez García', { name: 'Ana Lopez' })).toBe('PARTIAL_MATCH');
    expect(decideHolderMatch('Ana Pérez', { name: 'John Smith' })).toBe('NO_MATCH');
    expect(decideHolderMatch('Ana Pérez', {})).toBe('NO_MATCH');
  });
});

describe('simulator connector', () => {
  it('authorizes, holds, captures, refunds; lookup finds what it did', async () => {
    const s = new SimulatorConnector();
    const req = pay(TEST_CARDS.APPROVED);
    const r = await s.authorize(req);
    expect(r).toMatchObject({ outcome: 'APPROVED', amount: 1000 });
    expect(await s.lookup({ reference: req.reference, operation: 'authorize', terminal })).toEqual({ found: true, result: r });
    expect(await s.lookup({ reference: 'nope', operation: 'authorize', terminal })).toEqual({ found: false });
    const pre = await s.preauthorize(pay(TEST_CARDS.APPROVED));
    expect(pre.outcome).toBe('APPROVED');
    const original = { reference: req.reference, processorId: 'p', authorization: 'a' };
    expect(await s.capture({ reference: 'c1', terminal, now: NOW, amount: 400, currency: 'EUR', original })).toMatchObject({ outcome: 'APPROVED', amount: 400 });
    expect(await s.refund({ reference: 'r1', terminal, now: NOW, amount: 300, currency: 'EUR', original })).toMatchObject({ outcome: 'APPROVED', amount: 300 });
    expect(await s.cancel({ reference: 'x1', terminal, now: NOW, amount: 1000, currency: 'EUR', original })).toMatchObject({ outcome: 'APPROVED' });
    expect(await s.partialAuthorize(pay(TEST_CARDS.PARTIAL))).toMatchObject({ outcome: 'APPROVED', amount: 500 });
    expect(await s.payout({ reference: 'po', terminal, now: NOW, amount: 100, currency: 'EUR', card: card(TEST_CARDS.APPROVED) })).toMatchObject({ outcome: 'APPROVED' });
    expect(await s.payout({ reference: 'po2', terminal, now: NOW, amount: 100, currency: 'EUR', card: card(TEST_CARDS.REFUSED) })).toMatchObject({ outcome: 'DECLINED' });
  });

  it('3DS authentication, card verification, holder verification', async () => {
    const s = new SimulatorConnector();
    const base = { reference: 'a', terminal, now: NOW, amount: 100, currency: 'EUR' };
    const ok = await s.authenticate({ ...base, card: card(TEST_CARDS.THREEDS_OK) });
    expect(ok.outcome).toBe('AUTHENTICATED');
    if (ok.outcome === 'AUTHENTICATED') expect(ok.threeds).toMatchObject({ transStatus: 'Y', eci: '05' });
    expect((await s.authenticate({ ...base, card: card(TEST_CARDS.THREEDS_FAIL) })).outcome).toBe('FAILED');
    expect(await s.verifyCard({ reference: 'v', terminal, now: NOW, currency: 'EUR', card: card(TEST_CARDS.APPROVED) })).toMatchObject({ outcome: 'VERIFIED' });
    expect(await s.verifyCard({ reference: 'v', terminal, now: NOW, currency: 'EUR', card: card(TEST_CARDS.APPROVED, { cvv: null }) })).toMatchObject({ outcome: 'VERIFIED' });
    expect(await s.verifyCard({ reference: 'v', terminal, now: NOW, currency: 'EUR', card: card(TEST_CARDS.REFUSED) })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(await s.verifyCard({ reference: 'v', terminal, now: NOW, currency: 'EUR', card: card(TEST_CARDS.APPROVED, { year: 2020 }) })).toMatchObject({ outcome: 'DECLINED', error: 'EXPIRED_CARD' });
    expect(await s.verifyHolder({ reference: 'h', terminal, now: NOW, registeredHolder: 'Ana Pérez', holder: { name: 'ana perez' } })).toEqual({ outcome: 'DONE', result: 'MATCH' });
  });

  it('injected faults: timeout after doing it, lost before, decline', async () => {
    const reg = new ProcessorRegistry({ timeoutMs: 1000 });
    const c: Connector = reg.forService('REDSYSPSD2', 'sandbox');
    reg.simulator.injectFault({ operation: 'authorize', kind: 'timeout' });
    const done = pay(TEST_CARDS.APPROVED);
    expect((await c.authorize(done)).outcome).toBe('UNKNOWN');
    expect(await c.lookup({ reference: done.reference, operation: 'authorize', terminal })).toMatchObject({ found: true, result: { outcome: 'APPROVED' } });
    reg.simulator.injectFault({ operation: 'authorize', kind: 'lost' });
    const lost = pay(TEST_CARDS.APPROVED);
    expect((await c.authorize(lost)).outcome).toBe('UNKNOWN');
    expect(await c.lookup({ reference: lost.reference, operation: 'authorize', terminal })).toEqual({ found: false });
    reg.simulator.injectFault({ operation: 'refund', kind: 'decline', times: 2 });
    const fr = { reference: 'f', terminal, now: NOW, amount: 1, currency: 'EUR', original: { reference: 'x', processorId: null, authorization: '' } };
    expect(await c.refund(fr)).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    expect(await c.refund({ ...fr, reference: 'g' })).toMatchObject({ outcome: 'DECLINED' });
    expect(await c.refund({ ...fr, reference: 'h' })).toMatchObject({ outcome: 'APPROVED' });
    // the fault applied only to refunds
    expect((await c.authorize(pay(TEST_CARDS.APPROVED))).outcome).toBe('APPROVED');
  });

  it('a slow processor is UNKNOWN at the deadline', async () => {
    const reg = new ProcessorRegistry({ timeoutMs: 30, simulatorLatencyMs: 200 });
    const t0 = Date.now();
    expect((await reg.forService('CREDORAX', 'sandbox').authorize(pay(TEST_CARDS.APPROVED))).outcome).toBe('UNKNOWN');
    expect(Date.now() - t0).toBeLessThan(190);
  });

  it('production has no connector unless configured', () => {
    expect(() => new ProcessorRegistry({ timeoutMs: 10 }).forService('REDSYSPSD2', 'production')).toThrow(/No processor connector/);
    expect(new ProcessorRegistry({ timeoutMs: 10, productionSimulator: true }).forService('REDSYSPSD2', 'production').name).toBe('simulator');
  });

  it('card data never shows in JSON', () => {
    expect(JSON.stringify(pay(TEST_CARDS.APPROVED))).not.toContain(TEST_CARDS.APPROVED);
  });
});
