/**
 * The sandbox APM provider: pure decisions of the simulated provider behind every APM (the simulator
 * connector calls these). Deterministic: the same reference gives the same voucher, the same phone
 * the same answer.
 *
 *  - redirect: the payment waits for the customer on the sandbox bank page (approve or refuse);
 *  - push: a phone number ending in 1 is refused at once (SANDBOX_PUSH_PHONES); any other valid number
 *    gets the push and waits for the sandbox phone (approve or reject);
 *  - payouts: to a phone (push APMs: a number ending in 1 has no account that can receive) or to a bank
 *    account (bank transfer: always credited);
 *  - voucher: a voucher in the APM's format (entity and reference, barcode, PIX QR payload, CLABE, IBAN
 *    and concept), payable until its expiry through the sandbox endpoint.
 */
import { createHash } from 'node:crypto';
import { apmInfo, parsePushPhone } from './apms.js';
import type { ApmCompleteRequest, ApmPayoutRequest, ApmStartRequest, ApmStartResult, ApmVoucher, SettledResult } from './connector.js';
import { authorizationCode, processorId } from './simulator.rules.js';

/** How long the sandbox waits for a customer on the bank page or the phone (seconds). */
export const REDIRECT_SECONDS = 1800;
export const PUSH_SECONDS = 600;

/** The sandbox's Multibanco entity and bank-transfer account. */
export const SANDBOX_ENTITY = '21312';
export const SANDBOX_IBAN = 'ES7921000813610123456789';
export const SANDBOX_BIC = 'PGATESM1XXX';

function digits(reference: string, salt: string, n: number): string {
  let out = '';
  let i = 0;
  while (out.length < n) {
    const h = createHash('sha256').update(`${salt}:${i++}:${reference}`).digest();
    for (const b of h) if (out.length < n) out += String(b % 10);
  }
  return out;
}

/** CRC-16/CCITT-FALSE, the checksum of an EMV QR payload (PIX). */
export function crc16(s: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(s, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** A PIX "copia e cola" payload (EMV merchant-presented QR) for an amount in minor units. */
export function pixPayload(key: string, amount: number, txid: string): string {
  const body =
    tlv('00', '01') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', key)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', (amount / 100).toFixed(2)) +
    tlv('58', 'BR') +
    tlv('59', 'PAYGATE SANDBOX') +
    tlv('60', 'SAO PAULO') +
    tlv('62', tlv('05', txid.slice(0, 25)));
  const withCrcId = `${body}6304`;
  return withCrcId + crc16(withCrcId);
}

/** A CLABE (18 digits) with its check digit (weights 3, 7, 1). */
export function clabeOf(first17: string): string {
  const w = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * w[i % 3]) % 10;
  return first17 + String((10 - (sum % 10)) % 10);
}

export function clabeValid(clabe: string): boolean {
  return /^\d{18}$/.test(clabe) && clabeOf(clabe.slice(0, 17)) === clabe;
}

/** The voucher of a started payment. */
export function sandboxVoucher(req: ApmStartRequest, expiresAt: Date): ApmVoucher | null {
  const info = apmInfo(req.apm);
  if (!info?.voucher) return null;
  const base = { format: info.voucher, amount: req.amount, currency: req.currency, expires_at: expiresAt.toISOString() };
  const ref = req.reference;
  switch (info.voucher) {
    case 'ENTITY_REFERENCE':
      return { ...base, entity: SANDBOX_ENTITY, reference: digits(ref, 'ref', 9) };
    case 'REFERENCE':
      return { ...base, reference: digits(ref, 'ref', 13) };
    case 'BARCODE':
      return { ...base, barcode: digits(ref, 'barcode', 44) };
    case 'QR':
      return { ...base, qr_code: pixPayload(`${req.apm.toLowerCase()}@sandbox.paygate.example`, req.amount, digits(ref, 'txid', 25)) };
    case 'CLABE':
      return { ...base, clabe: clabeOf(`646180${digits(ref, 'clabe', 11)}`), reference: digits(ref, 'ref', 7) };
    case 'BANK_TRANSFER':
      return { ...base, iban: SANDBOX_IBAN, bic: SANDBOX_BIC, beneficiary: 'paygate sandbox', concept: req.description.slice(0, 140), reference: digits(ref, 'ref', 10) };
  }
}

/** The sandbox provider's answer to a started APM payment. */
export function decideApmStart(req: ApmStartRequest): ApmStartResult {
  const info = apmInfo(req.apm);
  const pid = processorId(req.reference);
  if (!info) return { outcome: 'DECLINED', error: 'DENIED', details: `Unknown APM ${req.apm}`, processorId: null };
  const at = (s: number) => new Date(req.now.getTime() + s * 1000);
  switch (info.kind) {
    case 'redirect':
      return { outcome: 'PENDING', processorId: pid, redirectUrl: null, voucher: null, expiresAt: at(REDIRECT_SECONDS) };
    case 'push': {
      const phone = parsePushPhone(info.apm, req.phone ?? '');
      if (!phone) return { outcome: 'DECLINED', error: 'INVALID_CARD', details: `The phone number has no ${info.label} account`, processorId: pid };
      if (phone.endsWith('1')) return { outcome: 'DECLINED', error: 'DENIED', details: `The payment was refused by ${info.label}`, processorId: pid };
      return { outcome: 'PENDING', processorId: pid, redirectUrl: null, voucher: null, expiresAt: at(PUSH_SECONDS) };
    }
    case 'voucher': {
      const expiresAt = at(info.voucherSeconds ?? 3 * 86_400);
      return { outcome: 'PENDING', processorId: pid, redirectUrl: null, voucher: sandboxVoucher(req, expiresAt), expiresAt };
    }
  }
}

/** The customer acted (approved, refused, paid the voucher). */
export function decideApmComplete(req: ApmCompleteRequest): SettledResult {
  const label = apmInfo(req.apm)?.label ?? req.apm;
  if (req.action === 'REFUSED') return { outcome: 'DECLINED', error: 'DENIED', details: `The customer did not approve the payment with ${label}`, processorId: req.processorId ?? processorId(req.reference) };
  return { outcome: 'APPROVED', authorization: authorizationCode(req.reference), processorId: req.processorId ?? processorId(req.reference), amount: req.amount };
}

/** A payout with an APM: to a phone (a number ending in 1 cannot receive), or to a bank account. */
export function decideApmPayout(req: ApmPayoutRequest): SettledResult {
  const info = apmInfo(req.apm);
  const pid = processorId(req.reference);
  if (!info?.payout) return { outcome: 'DECLINED', error: 'DENIED', details: `${req.apm} does not support payouts`, processorId: pid };
  if (info.payout === 'PHONE') {
    const phone = parsePushPhone(info.apm, req.phone ?? '');
    if (!phone) return { outcome: 'DECLINED', error: 'INVALID_CARD', details: `The phone number has no ${info.label} account`, processorId: pid };
    if (phone.endsWith('1')) return { outcome: 'DECLINED', error: 'DENIED', details: `The ${info.label} account cannot receive the payout`, processorId: pid };
  } else if (!req.iban) {
    return { outcome: 'DECLINED', error: 'INVALID_CARD', details: 'No bank account to transfer to', processorId: pid };
  }
  return { outcome: 'APPROVED', authorization: authorizationCode(req.reference), processorId: pid, amount: req.amount };
}
