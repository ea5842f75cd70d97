/** The pure rules of MoTo campaigns and batch files: transition tables, row checks, dates. */
import { describe, expect, it } from 'vitest';
import { campaignTransition, paymentTransition, CAMPAIGN_STATUSES, PAYMENT_STATUSES, maskDestination } from '../../src/modules/campaigns/index.js';
import { campaignExpiry, validatePayment } from '../../src/modules/campaigns/campaigns.domain.js';
import { batchTransition, lineTransition, BATCH_STATUSES, LINE_STATUSES } from '../../src/modules/batch/index.js';
import { csvField, parseAuthRow, parseExecuteAt, parseRefundRow } from '../../src/modules/batch/batch.domain.js';

describe('transition tables', () => {
  it('campaign: PENDING → PROCESSING → COMPLETED or FAILED; final states take nothing', () => {
    expect(campaignTransition('PENDING', 'START')).toBe('PROCESSING');
    expect(campaignTransition('PROCESSING', 'ALL_PROCESSED')).toBe('COMPLETED');
    expect(campaignTransition('PROCESSING', 'ALL_FAILED')).toBe('FAILED');
    expect(campaignTransition('PROCESSING', 'START')).toBeNull();
    for (const s of ['COMPLETED', 'FAILED'] as const) for (const e of ['START', 'ALL_PROCESSED', 'ALL_FAILED'] as const) expect(campaignTransition(s, e)).toBeNull();
    expect(CAMPAIGN_STATUSES).toHaveLength(4);
  });

  it('payment: PENDING → SENT → OPENED → PAID, EXPIRED and FAILED; never back', () => {
    expect(paymentTransition('PENDING', 'SEND')).toBe('SENT');
    expect(paymentTransition('SENT', 'OPEN')).toBe('OPENED');
    expect(paymentTransition('OPENED', 'PAY')).toBe('PAID');
    expect(paymentTransition('PENDING', 'OPEN')).toBe('OPENED'); // custom delivery
    expect(paymentTransition('SENT', 'FAIL')).toBeNull(); // a sent message does not un-send
    expect(paymentTransition('OPENED', 'SEND')).toBeNull();
    expect(paymentTransition('PAID', 'EXPIRE')).toBeNull();
    for (const s of ['PAID', 'EXPIRED', 'FAILED'] as const) for (const e of ['SEND', 'OPEN', 'PAY', 'EXPIRE', 'FAIL'] as const) expect(paymentTransition(s, e)).toBeNull();
    expect(PAYMENT_STATUSES).toHaveLength(6);
  });

  it('batch file and line: a RUNNING line may be claimed again (its worker died); finished lines never', () => {
    expect(batchTransition('SCHEDULED', 'START')).toBe('PROCESSING');
    expect(batchTransition('PROCESSING', 'ALL_DONE')).toBe('COMPLETED');
    expect(batchTransition('COMPLETED', 'START')).toBeNull();
    expect(lineTransition('PENDING', 'CLAIM')).toBe('RUNNING');
    expect(lineTransition('RUNNING', 'CLAIM')).toBe('RUNNING');
    expect(lineTransition('PENDING', 'SUCCEED')).toBeNull();
    expect(lineTransition('SUCCEEDED', 'CLAIM')).toBeNull();
    expect(lineTransition('FAILED', 'CLAIM')).toBeNull();
    expect(BATCH_STATUSES).toHaveLength(3);
    expect(LINE_STATUSES).toHaveLength(4);
  });
});

describe('rows', () => {
  it('a campaign row: destinations by type, every problem of the row', () => {
    expect(validatePayment('PHONE', 2, { AMOUNT: '100', DESTINATION: '612 345 678' })).toMatchObject({ amount: 100, destination: '+34612345678', channel: 'SMS', operative: 'AUTHORIZATION', secure: false });
    expect(validatePayment('MAIL', 2, { AMOUNT: '100', DESTINATION: 'a@example.com', SECURE: 'TRUE' })).toMatchObject({ channel: 'EMAIL', secure: true });
    expect(validatePayment('PHONE', 5, { AMOUNT: '1.5', DESTINATION: '912345678', OPERATIVE: 'PAYOUT' })).toEqual([
      { line: 5, msg: expect.stringContaining('AMOUNT') },
      { line: 5, msg: expect.stringContaining('OPERATIVE') },
      { line: 5, msg: expect.stringContaining('not a mobile') },
    ]);
    expect(validatePayment('CUSTOM_DELIVERY', 2, { AMOUNT: '100' })).toMatchObject({ destination: null, channel: null });
  });

  it('H1 and H2 rows', () => {
    expect(parseAuthRow(2, { AMOUNT: '10', CARD: 'A0000000-0000-4000-8000-000000000000', SERVICE: 'b0000000-0000-4000-8000-000000000000' })).toMatchObject({ amount: 10, card: 'a0000000-0000-4000-8000-000000000000', operative: 'AUTHORIZATION' });
    expect(parseAuthRow(3, { AMOUNT: '0', CARD: '', SERVICE: 'x', URL_POST: 'ftp://a' })).toHaveLength(4);
    expect(parseRefundRow(2, { ORDER_UUID: 'a0000000-0000-4000-8000-000000000000', AMOUNT: '' })).toEqual({ order: 'a0000000-0000-4000-8000-000000000000', amount: null });
    expect(parseRefundRow(2, { ORDER_UUID: 'nope', AMOUNT: '-3' })).toHaveLength(2);
  });

  it('results CSV fields are quoted when needed', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField(null)).toBe('');
    expect(csvField(12)).toBe('12');
  });
});

describe('dates', () => {
  it('campaign links expire at 00:00 of the date in the merchant\'s timezone', () => {
    expect(campaignExpiry('2026-07-01', 'Europe/Madrid')!.at.toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(campaignExpiry('2026-01-15', 'Europe/Madrid')!.at.toISOString()).toBe('2026-01-14T23:00:00.000Z');
    expect(campaignExpiry('2026-01-15T10:00:00', 'America/New_York')!.at.toISOString()).toBe('2026-01-15T05:00:00.000Z');
    expect(campaignExpiry('2026-02-30', 'Europe/Madrid')).toBeNull();
    expect(campaignExpiry('tomorrow', 'Europe/Madrid')).toBeNull();
  });

  it('execute_at: wall-clock in the merchant\'s timezone, or with an offset', () => {
    expect(parseExecuteAt('2026-07-01 09:30:00', 'Europe/Madrid')!.toISOString()).toBe('2026-07-01T07:30:00.000Z');
    expect(parseExecuteAt('2026-07-01T09:30:15', 'Europe/Madrid')!.toISOString()).toBe('2026-07-01T07:30:15.000Z');
    expect(parseExecuteAt('2026-07-01T09:30:00+02:00', 'UTC')!.toISOString()).toBe('2026-07-01T07:30:00.000Z');
    expect(parseExecuteAt('2026-07-01T09:30:00Z', 'Europe/Madrid')!.toISOString()).toBe('2026-07-01T09:30:00.000Z');
    expect(parseExecuteAt('2026-02-30 10:00:00', 'Europe/Madrid')).toBeNull();
    expect(parseExecuteAt('2026-07-01 25:00:00', 'Europe/Madrid')).toBeNull();
    expect(parseExecuteAt('soon', 'Europe/Madrid')).toBeNull();
  });

  it('destinations are masked in certificates', () => {
    expect(maskDestination('lucia@example.com')).toBe('l***@example.com');
    expect(maskDestination('+34612345678')).toBe('+3461*****78');
    expect(maskDestination(null)).toBeNull();
  });
});
