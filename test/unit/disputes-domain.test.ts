/**
 * The dispute lifecycle's transition table, the moves an acquirer's report may ask for, documents by their
 * magic bytes, the card guard over a PDF's text, what a dispute means for its order, import rows, and the
 * schemes' monitoring thresholds.
 */
import { describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import {
  DISPUTE_EVENTS, DISPUTE_STATUSES, assessRatio, disputeTransition, eventTowards, evidenceFields, isFinal, moneyOf, parseDue, parseImportRow, pdfHasCardNumber, schemeOfBin, sniffDocument, UnreadablePdf, PDF_INFLATED_MAX_BYTES,
  type DisputeEvent, type DisputeStatus,
} from '../../src/modules/disputes/disputes.domain.js';

describe('the transition table', () => {
  const expected: Record<DisputeStatus, Partial<Record<DisputeEvent, DisputeStatus>>> = {
    NEEDS_RESPONSE: { SUBMIT: 'UNDER_REVIEW', ACCEPT: 'ACCEPTED', WIN: 'WON', LOSE: 'LOST', EXPIRE: 'EXPIRED', ESCALATE: 'NEEDS_RESPONSE' },
    UNDER_REVIEW: { WIN: 'WON', LOSE: 'LOST', ESCALATE: 'NEEDS_RESPONSE' },
    WON: { ESCALATE: 'NEEDS_RESPONSE' },
    LOST: {},
    ACCEPTED: {},
    EXPIRED: {},
  };
  it('every status and event: exactly the moves of the lifecycle', () => {
    for (const s of DISPUTE_STATUSES) for (const e of DISPUTE_EVENTS) expect(disputeTransition(s, e), `${s} ${e}`).toBe(expected[s][e] ?? null);
  });
  it('LOST, ACCEPTED and EXPIRED are final; a submitted dispute cannot be accepted or expire', () => {
    expect(DISPUTE_STATUSES.filter(isFinal)).toEqual(['LOST', 'ACCEPTED', 'EXPIRED']);
    expect(disputeTransition('UNDER_REVIEW', 'ACCEPT')).toBeNull();
    expect(disputeTransition('UNDER_REVIEW', 'EXPIRE')).toBeNull();
    expect(disputeTransition('UNDER_REVIEW', 'SUBMIT')).toBeNull();
  });
  it('a reported status is reached by the table\'s event, or is impossible', () => {
    const at = (status: DisputeStatus, stage: any = 'CHARGEBACK') => ({ status, stage });
    expect(eventTowards(at('NEEDS_RESPONSE'), at('WON'))).toBe('WIN');
    expect(eventTowards(at('UNDER_REVIEW'), at('LOST'))).toBe('LOSE');
    expect(eventTowards(at('NEEDS_RESPONSE'), at('UNDER_REVIEW'))).toBe('SUBMIT');
    expect(eventTowards(at('LOST'), at('LOST'))).toBeNull();
    expect(eventTowards(at('LOST'), at('WON'))).toBe('impossible');
    expect(eventTowards(at('UNDER_REVIEW'), at('NEEDS_RESPONSE'))).toBe('impossible');
    expect(eventTowards(at('WON'), at('NEEDS_RESPONSE', 'PRE_ARBITRATION'))).toBe('ESCALATE');
    expect(eventTowards(at('NEEDS_RESPONSE', 'RETRIEVAL'), at('NEEDS_RESPONSE', 'CHARGEBACK'))).toBe('ESCALATE');
    // stages only move forward, and a new stage starts needing a response
    expect(eventTowards(at('WON', 'PRE_ARBITRATION'), at('NEEDS_RESPONSE', 'CHARGEBACK'))).toBe('impossible');
    expect(eventTowards(at('WON'), at('WON', 'ARBITRATION'))).toBe('impossible');
    expect(eventTowards(at('LOST'), at('NEEDS_RESPONSE', 'ARBITRATION'))).toBe('impossible');
  });
});

describe('money', () => {
  it('open is disputed, WON is won back, LOST/ACCEPTED/EXPIRED lost; a retrieval moves none', () => {
    expect(moneyOf({ status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', amount: 100 })).toEqual({ disputed: 100, lost: 0, won: 0 });
    expect(moneyOf({ status: 'UNDER_REVIEW', stage: 'PRE_ARBITRATION', amount: 100 })).toEqual({ disputed: 100, lost: 0, won: 0 });
    expect(moneyOf({ status: 'WON', stage: 'CHARGEBACK', amount: 100 })).toEqual({ disputed: 0, lost: 0, won: 100 });
    for (const s of ['LOST', 'ACCEPTED', 'EXPIRED'] as const) expect(moneyOf({ status: s, stage: 'CHARGEBACK', amount: 100 })).toEqual({ disputed: 0, lost: 100, won: 0 });
    expect(moneyOf({ status: 'EXPIRED', stage: 'RETRIEVAL', amount: 100 })).toEqual({ disputed: 0, lost: 0, won: 0 });
  });
});

describe('evidence', () => {
  it('fields by category', () => {
    expect(evidenceFields('FRAUD')).toContain('customer_ip');
    expect(evidenceFields('FRAUD')).not.toContain('shipping_tracking_number');
    expect(evidenceFields('PRODUCT_NOT_RECEIVED')).toContain('shipping_tracking_number');
    expect(evidenceFields('GENERAL')).toEqual(['product_description', 'customer_communication', 'refund_policy', 'terms_and_conditions', 'additional_information']);
  });
  it('documents by their magic bytes, not their names', () => {
    expect(sniffDocument(Buffer.from('%PDF-1.7\n'))).toBe('application/pdf');
    expect(sniffDocument(Buffer.from('89504e470d0a1a0a00', 'hex'))).toBe('image/png');
    expect(sniffDocument(Buffer.from('ffd8ffe000104a4649', 'hex'))).toBe('image/jpeg');
    expect(sniffDocument(Buffer.from('GIF89a'))).toBeNull();
    expect(sniffDocument(Buffer.from('%PD'))).toBeNull();
    expect(sniffDocument(Buffer.from('<html>%PDF-'))).toBeNull();
  });
  it('a card number in a PDF\'s text: plain, compressed, split across strings, in hex', () => {
    const page = (ops: string, compress: boolean) => {
      const body = compress ? deflateSync(Buffer.from(ops, 'latin1')) : Buffer.from(ops, 'latin1');
      return Buffer.concat([Buffer.from(`%PDF-1.4\n4 0 obj << /Length ${body.length}${compress ? ' /Filter /FlateDecode' : ''} >>\nstream\n`, 'latin1'), body, Buffer.from('\nendstream\nendobj\n%%EOF', 'latin1')]);
    };
    expect(pdfHasCardNumber(page('BT (Card 4111 1111 1111 1111) Tj ET', false))).toBe(true);
    expect(pdfHasCardNumber(page('BT (Card 4111111111111111) Tj ET', true))).toBe(true);
    expect(pdfHasCardNumber(page('BT [(4111 1111) -250 (1111 1111)] TJ ET', true))).toBe(true);
    expect(pdfHasCardNumber(page(`BT <${Buffer.from('5555555555554444').toString('hex')}> Tj ET`, true))).toBe(true);
    expect(pdfHasCardNumber(page('BT (Card 411111******1111, order 2026-03-14) Tj ET', true))).toBe(false);
    expect(pdfHasCardNumber(page('BT (Tracking 1Z999AA10123456784) Tj ET', true))).toBe(false);
    // every stream is read, the second and later ones too (the "stream" of an `endstream` starts none)
    const two = Buffer.concat([page('BT (Page one) Tj ET', true), page('BT (Card 4111111111111111) Tj ET', true)]);
    expect(pdfHasCardNumber(two)).toBe(true);
  });
  it('a compression bomb is refused as unreadable, not inflated without bound (a few streams of zeros)', () => {
    // each stream 12 MiB of zeros inflated from about 12 KiB; three of them pass the document's budget
    const bomb = deflateSync(Buffer.alloc(12 * 1024 * 1024), { level: 9 });
    const stream = Buffer.concat([Buffer.from(`4 0 obj << /Length ${bomb.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), bomb, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
    const pdf = (n: number) => Buffer.concat([Buffer.from('%PDF-1.4\n', 'latin1'), ...Array.from({ length: n }, () => stream), Buffer.from('%%EOF', 'latin1')]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(pdfHasCardNumber(pdf(2))).toBe(false);
    expect(() => pdfHasCardNumber(pdf(3))).toThrow(UnreadablePdf);
    expect(PDF_INFLATED_MAX_BYTES).toBe(32 * 1024 * 1024);
  });
});

describe('import rows', () => {
  const row = { DISPUTE_ID: 'CB-1', TRANSACTION: 'E8B3D5F1-9A2C-4E7B-B6D4-3F1A8C5E7B20', REASON_CODE: '10.4', CATEGORY: 'fraud', AMOUNT: '1050', CURRENCY: 'eur', STAGE: 'chargeback', STATUS: 'needs_response', EVIDENCE_DUE: '2026-03-28' };
  it('reads a good row (any case)', () => {
    const r = parseImportRow(2, row);
    expect(r).toEqual({ row: { line: 2, providerId: 'CB-1', transactionId: 'e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20', reasonCode: '10.4', category: 'FRAUD', amount: 1050, currency: 'EUR', stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', due: new Date('2026-03-28T23:59:59.999Z') } });
  });
  it('names every problem by its column', () => {
    const r = parseImportRow(3, { ...row, AMOUNT: '10.50', CURRENCY: 'EURO', STAGE: 'X', EVIDENCE_DUE: '2026-02-30', TRANSACTION: 'nope' });
    expect('problems' in r && r.problems.map((p) => p.split(' ')[0])).toEqual(['TRANSACTION', 'AMOUNT', 'CURRENCY', 'STAGE', 'EVIDENCE_DUE']);
  });
  it('deadlines: a day is its end in UTC; a time needs its offset', () => {
    expect(parseDue('2026-03-28T10:00:00+01:00')?.toISOString()).toBe('2026-03-28T09:00:00.000Z');
    expect(parseDue('2026-03-28T10:00:00')).toBeNull();
    expect(parseDue('2026-13-01')).toBeNull();
  });
});

describe('monitoring thresholds', () => {
  it('schemes by BIN', () => {
    expect(schemeOfBin('411111')).toBe('VISA');
    expect(schemeOfBin('555555')).toBe('MASTERCARD');
    expect(schemeOfBin('222100')).toBe('MASTERCARD');
    expect(schemeOfBin('272099')).toBe('MASTERCARD');
    expect(schemeOfBin('272100')).toBe('OTHER');
    expect(schemeOfBin('378282')).toBe('OTHER');
    expect(schemeOfBin(null)).toBe('OTHER');
  });
  it('VDMP 0.9 % and 100; ECM 1.5 % and 100: both the ratio and the count', () => {
    expect(assessRatio({ month: '2026-03', scheme: 'VISA', disputes: 100, sales: 11_111 }).standing).toBe('EXCEEDED');
    expect(assessRatio({ month: '2026-03', scheme: 'VISA', disputes: 99, sales: 1000 }).standing).toBe('WARNING');
    expect(assessRatio({ month: '2026-03', scheme: 'VISA', disputes: 100, sales: 20_000 }).standing).toBe('OK');
    expect(assessRatio({ month: '2026-03', scheme: 'MASTERCARD', disputes: 150, sales: 10_000 }).standing).toBe('EXCEEDED');
    expect(assessRatio({ month: '2026-03', scheme: 'MASTERCARD', disputes: 149, sales: 10_000 }).standing).toBe('WARNING');
    expect(assessRatio({ month: '2026-03', scheme: 'MASTERCARD', disputes: 119, sales: 10_000 }).standing).toBe('OK');
    expect(assessRatio({ month: '2026-03', scheme: 'OTHER', disputes: 5, sales: 10 })).toMatchObject({ standing: 'NOT_MONITORED', ratio: 0.5, programme: null });
  });
});
