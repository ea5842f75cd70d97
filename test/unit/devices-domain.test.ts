/** The device lifecycles and the reading of card data reported by a device (pure). */
import { describe, expect, it } from 'vitest';
import { isCardNumber } from '../../src/platform/security/card-numbers.js';
import {
  DEVICE_TABLE, OPERATION_STATUSES, OPERATION_TABLE, canOperation, deviceTransition, eventForOrder, newRrn, operationTransition, pinBlockProblem, posOf, readCard,
} from '../../src/modules/devices/index.js';
import { SIMULATED_DEVICE_AMOUNTS, TEST_CARDS, simulatedDeviceReport } from '../../src/processors/index.js';

describe('operation lifecycle', () => {
  it('a card is read only for an open operation, and every final status is final', () => {
    expect(operationTransition('QUEUED', 'DELIVERED')).toBe('SENT');
    expect(operationTransition('SENT', 'CARD_READ')).toBe('CARD_READ');
    expect(operationTransition('CARD_READ', 'APPROVED')).toBe('APPROVED');
    expect(operationTransition('CARD_READ', 'DECLINED')).toBe('REFUSED');
    expect(operationTransition('SENT', 'TIMED_OUT')).toBe('TIMED_OUT');
    // once the card is read, the charge decides: neither a cancellation nor the deadline cuts in
    expect(canOperation('CARD_READ', 'CANCELLED')).toBe(false);
    expect(canOperation('CARD_READ', 'TIMED_OUT')).toBe(false);
    for (const final of ['APPROVED', 'REFUSED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const) {
      for (const event of Object.keys(OPERATION_TABLE) as Array<keyof typeof OPERATION_TABLE>) expect(canOperation(final, event), `${final} ${event}`).toBe(false);
    }
    expect(() => operationTransition('TIMED_OUT', 'CARD_READ')).toThrow(/does not accept/);
    // SCA on the terminal: the charge asks for the card again; it is read again, or the operation ends
    expect(operationTransition('CARD_READ', 'SCA_REQUIRED')).toBe('AUTHENTICATION_REQUIRED');
    expect(operationTransition('AUTHENTICATION_REQUIRED', 'CARD_READ')).toBe('CARD_READ');
    expect(operationTransition('AUTHENTICATION_REQUIRED', 'TIMED_OUT')).toBe('TIMED_OUT');
    expect(operationTransition('AUTHENTICATION_REQUIRED', 'CANCELLED')).toBe('CANCELLED');
    expect(canOperation('AUTHENTICATION_REQUIRED', 'DELIVERED')).toBe(false);
    expect(canOperation('AUTHENTICATION_REQUIRED', 'APPROVED')).toBe(false);
    expect(canOperation('SENT', 'SCA_REQUIRED')).toBe(false);
    for (const row of Object.values(OPERATION_TABLE)) for (const [from, to] of Object.entries(row)) {
      expect(OPERATION_STATUSES).toContain(from);
      expect(OPERATION_STATUSES).toContain(to);
    }
  });

  it('the order a charge left behind settles the operation; an order still in flight does not', () => {
    expect(eventForOrder('SUCCESS')).toBe('APPROVED');
    expect(eventForOrder('PENDING_CONFIRMATION')).toBe('APPROVED');
    expect(eventForOrder('REFUSED')).toBe('DECLINED');
    expect(eventForOrder('FRAUD')).toBe('DECLINED');
    expect(eventForOrder('ERROR')).toBe('FAILED');
    expect(eventForOrder('AUTHENTICATION_REQUIRED')).toBe('SCA_REQUIRED');
    expect(eventForOrder('PENDING_PROCESSOR_RESPONSE')).toBeNull();
    expect(eventForOrder('CREATED')).toBeNull();
  });

  it('device connection: a socket opening or closing is always accepted', () => {
    expect(deviceTransition('OFFLINE', 'CONNECTED')).toBe('ONLINE');
    expect(deviceTransition('ONLINE', 'DISCONNECTED')).toBe('OFFLINE');
    expect(Object.keys(DEVICE_TABLE.CONNECTED).sort()).toEqual(['OFFLINE', 'ONLINE']);
  });
});

describe('retrieval reference numbers', () => {
  it('an rrn the gateway gives is never a card number: such a draw is drawn again', () => {
    // 600000100005 is Luhn-valid and in Maestro's ranges (12 digits): the first draw, refused
    expect(isCardNumber('600000100005')).toBe(true);
    const halves = [600000, 100005, 123456, 123456];
    expect(newRrn(() => halves.shift()!)).toBe('123456123456');
    // with the real source: about 1.6% of random 12-digit numbers are card numbers, none comes out
    for (let i = 0; i < 5000; i++) {
      const rrn = newRrn();
      expect(rrn).toMatch(/^[1-9][0-9]{11}$/);
      expect(isCardNumber(rrn), rrn).toBe(false);
    }
  });
});

describe('card data from a device', () => {
  it('reads track 2 or PAN + YYMM, keeps BIN and last 4, and never echoes the card in an error', () => {
    const t = readCard({ track2: `;${TEST_CARDS.APPROVED}=49122010000?` });
    expect(t).toMatchObject({ bin: '454881', last4: '0004', expMonth: 12, expYear: 2049 });
    expect('pan' in t && t.pan.reveal()).toBe(TEST_CARDS.APPROVED);
    expect(readCard({ track2: `${TEST_CARDS.APPROVED}D2701` })).toMatchObject({ expMonth: 1, expYear: 2027 });
    expect(readCard({ pan: TEST_CARDS.APPROVED, expiration_date: '3012' })).toMatchObject({ expMonth: 12, expYear: 2030 });
    const errors = [
      readCard({}),
      readCard({ track2: 'garbage' }),
      readCard({ track2: `${TEST_CARDS.APPROVED}=4912`, pan: TEST_CARDS.APPROVED }),
      readCard({ pan: TEST_CARDS.APPROVED }),
      readCard({ pan: TEST_CARDS.APPROVED, expiration_date: '3013' }),
      readCard({ pan: '12ab' }),
    ];
    for (const e of errors) {
      expect(e).toHaveProperty('error');
      expect(JSON.stringify(e)).not.toContain('4548812049');
    }
  });

  it('PIN blocks: ISO 9564 format 0 (16 hex) or 4 (32 hex)', () => {
    expect(pinBlockProblem(null)).toBeNull();
    expect(pinBlockProblem({ block: '041234FFFFFFFFFF', format: 0 })).toBeNull();
    expect(pinBlockProblem({ block: 'A'.repeat(32), format: 4 })).toBeNull();
    expect(pinBlockProblem({ block: '041234FFFFFFFFFF', format: 4 })).toMatch(/32/);
    expect(pinBlockProblem({ block: '1234', format: 0 })).toMatch(/16/);
    expect(pinBlockProblem({ block: '041234FFFFFFFFFF', format: 1 })).toMatch(/format/);
  });

  it('the simulated device: 100 cancelled on the terminal, 200 a refused card, others an approved chip card with PIN', () => {
    const op = (amount: number) => ({ uuid: 'u', kind: 'PAYMENT' as const, order_uuid: 'o', amount, currency: 'EUR', description: '' });
    expect(simulatedDeviceReport(op(SIMULATED_DEVICE_AMOUNTS.CANCELLED)).kind).toBe('CANCELLED');
    const refused = simulatedDeviceReport(op(SIMULATED_DEVICE_AMOUNTS.REFUSED));
    const paid = simulatedDeviceReport(op(1500));
    expect(refused.kind === 'CARD' && readCard(refused.card)).toMatchObject({ last4: TEST_CARDS.REFUSED_VISA.slice(-4) });
    expect(paid).toMatchObject({ kind: 'CARD', card_reading_method: 'ICC' });
    expect(paid.kind === 'CARD' && readCard(paid.card)).toMatchObject({ last4: TEST_CARDS.APPROVED.slice(-4) });
    expect(paid.kind === 'CARD' && pinBlockProblem(paid.pin)).toBeNull();
  });

  it('pos: the device and the STAN/RRN of the call; the entry mode of the reading method', () => {
    const device = { id: 'd', terminal_id: '12345678', mid: 'M1' };
    expect(posOf(device, {})).toEqual({ device_id: 'd', tid: '12345678', mid: 'M1', stan: null, rrn: null, card_reading_method: null, entry_mode: null });
    expect(posOf(device, { stan: '000001', rrn: '123456789012', card_reading_method: 'NFC' })).toMatchObject({ stan: '000001', rrn: '123456789012', entry_mode: '07' });
    expect(posOf(device, { card_reading_method: 'ICC' }).entry_mode).toBe('05');
    expect(posOf(device, { card_reading_method: 'MAGNETIC_STRIPE' }).entry_mode).toBe('90');
  });
});
