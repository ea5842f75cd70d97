/** The APM table, the sandbox APM provider's decisions and the voucher codes drawn on the pages. */
import { describe, expect, it } from 'vitest';
import { APM_CATALOGUE, apmInfo, parsePushPhone } from '../../src/processors/index.js';
import { clabeOf, clabeValid, crc16, decideApmComplete, decideApmStart, pixPayload } from '../../src/processors/sandbox-apm.js';
import { itfWidths } from '../../src/modules/pages/codes.js';
import { chooseApm, offeredApms } from '../../src/modules/payment-methods/payment-methods.domain.js';

const base = { reference: '5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10', terminal: { serviceType: 'REDSYSPSD2', terminalId: null }, now: new Date('2026-03-01T10:00:00Z'), amount: 1250, currency: 'EUR', description: 'Order 7' };

describe('the APM table', () => {
  it('has the 28 APMs of the API, each once, with a kind; vouchers say what they carry', () => {
    expect(APM_CATALOGUE).toHaveLength(28);
    expect(new Set(APM_CATALOGUE.map((a) => a.apm)).size).toBe(28);
    for (const a of APM_CATALOGUE) {
      expect(['redirect', 'push', 'voucher']).toContain(a.kind);
      expect(!!a.voucher, a.apm).toBe(a.kind === 'voucher');
    }
    expect(apmInfo(' mbway ')?.kind).toBe('push');
    expect(apmInfo('nope')).toBeNull();
    expect(apmInfo(7)).toBeNull();
  });

  it('push phones: Spanish mobiles for Bizum, Portuguese for MB WAY, with or without the country code', () => {
    expect(parsePushPhone('BIZUM', '+34 700 000 000')).toBe('700000000');
    expect(parsePushPhone('BIZUM', '912000000')).toBeNull();
    expect(parsePushPhone('MBWAY', '00351 912-000-000')).toBe('912000000');
    expect(parsePushPhone('MBWAY', '612345678')).toBeNull();
    expect(parsePushPhone('MBWAY', null)).toBeNull();
  });

  it('a service offers its list plus Bizum when its switch is on; B13 needs `apm` when it offers several', () => {
    const offered = offeredApms(['PIX', 'IDEAL'], { bizumEnabled: true, redsysFamily: true });
    expect(offered.map((a) => a.apm)).toEqual(['BIZUM', 'IDEAL', 'PIX']);
    expect(offeredApms([], { bizumEnabled: true, redsysFamily: false })).toEqual([]);
    expect(chooseApm(null, offered)).toEqual({ error: expect.stringContaining('apm is required') });
    expect(chooseApm('', offered.slice(1, 2))).toEqual({ apm: expect.objectContaining({ apm: 'IDEAL' }) });
    expect(chooseApm('klarna', offered)).toEqual({ error: expect.stringContaining('does not offer KLARNA') });
  });
});

describe('the sandbox APM provider', () => {
  it('redirect and push wait for the customer with their expiry; a push phone ending in 1 is refused at once', () => {
    const r = decideApmStart({ ...base, apm: 'IDEAL', kind: 'redirect' });
    expect(r).toMatchObject({ outcome: 'PENDING', redirectUrl: null, voucher: null, expiresAt: new Date('2026-03-01T10:30:00Z') });
    expect(decideApmStart({ ...base, apm: 'MBWAY', kind: 'push', phone: '912000000' })).toMatchObject({ outcome: 'PENDING', expiresAt: new Date('2026-03-01T10:10:00Z') });
    expect(decideApmStart({ ...base, apm: 'MBWAY', kind: 'push', phone: '912000001' })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(decideApmStart({ ...base, apm: 'BIZUM', kind: 'push', phone: '12' })).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
  });

  it('vouchers are deterministic per payment and valid in their format', () => {
    const a = decideApmStart({ ...base, apm: 'SPEI', kind: 'voucher' });
    const b = decideApmStart({ ...base, apm: 'SPEI', kind: 'voucher' });
    expect(a).toEqual(b);
    if (a.outcome !== 'PENDING') throw new Error('pending expected');
    expect(clabeValid(a.voucher!.clabe!)).toBe(true);
    const other = decideApmStart({ ...base, reference: '00000000-0000-4000-8000-000000000001', apm: 'SPEI', kind: 'voucher' });
    expect(other.outcome === 'PENDING' && other.voucher!.clabe).not.toBe(a.voucher!.clabe);
    const t = decideApmStart({ ...base, apm: 'TRANSFER', kind: 'voucher' });
    expect(t.outcome === 'PENDING' && t.voucher).toMatchObject({ format: 'BANK_TRANSFER', concept: 'Order 7', expires_at: '2026-03-08T10:00:00.000Z' });
  });

  it('the customer action decides the result', () => {
    const req = { ...base, apm: 'IDEAL', processorId: 'SIMX' };
    expect(decideApmComplete({ ...req, action: 'PAID' })).toMatchObject({ outcome: 'APPROVED', amount: 1250, processorId: 'SIMX' });
    expect(decideApmComplete({ ...req, action: 'REFUSED' })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
  });

  it('CLABE check digits, CRC-16/CCITT-FALSE and the PIX payload', () => {
    // published examples: CLABE 032180000118359719; CRC-16/CCITT-FALSE("123456789") = 29B1
    expect(clabeOf('03218000011835971')).toBe('032180000118359719');
    expect(clabeValid('032180000118359718')).toBe(false);
    expect(crc16('123456789')).toBe('29B1');
    const p = pixPayload('key@example.com', 1250, 'TX1');
    expect(p).toMatch(/^000201/);
    expect(p).toContain('5303986');
    expect(p).toContain('540512.50');
    expect(p.slice(-8, -4)).toBe('6304');
    expect(crc16(p.slice(0, -4))).toBe(p.slice(-4));
  });
});

describe('Interleaved 2 of 5', () => {
  it('start, two digits per 10 elements, stop; narrow 1, wide 3', () => {
    // "12": 1 = wnnnw (bars), 2 = nwnnw (spaces)
    expect(itfWidths('12')).toEqual([1, 1, 1, 1, 3, 1, 1, 3, 1, 1, 1, 1, 3, 3, 3, 1, 1]);
    // an odd count gets a leading zero
    expect(itfWidths('5')).toEqual(itfWidths('05'));
    expect(() => itfWidths('1a')).toThrow();
  });
});
