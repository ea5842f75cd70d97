/**
 * The sandbox acquirer's settlement (pure): what the simulator settles of the money operations it did,
 * so reconciliation runs end to end in the sandbox and in CI (docs/reconciliation.md, "The sandbox").
 *
 * The sandbox fee model:
 *  - a PAYMENT pays interchange of 0.30 % of its amount and a scheme fee of 0.05 % (each rounded half up
 *    to a minor unit) and a processing fee of 5 minor units;
 *  - a REFUND and a PAYOUT pay the processing fee only;
 *  - the net of a line is its signed amount (payments in, refunds and payouts out) less its fees.
 * Every operation of day D settles on D + 1, in one batch per terminal and settlement day,
 * `SANDBOX-<first 8 characters of the service uuid>-<YYYYMMDD of the settlement day>`.
 */
import { createHash } from 'node:crypto';
import type { SettlementLine } from './connector.js';

/** One money operation the simulator did (its ledger). */
export interface LedgerEntry {
  reference: string;
  processorId: string;
  type: 'PAYMENT' | 'REFUND' | 'PAYOUT';
  amount: number;
  currency: string;
  /** When it was done (the merchant's clock of the request). */
  at: Date;
  /** The terminal it went through: the service's uuid (or the terminal id). */
  terminal: string | null;
}

export const SANDBOX_FEES = { interchangeBasisPoints: 30, schemeBasisPoints: 5, processing: 5 } as const;

/** Basis points of an amount, rounded half up. */
const bps = (amount: number, points: number) => Math.floor((amount * points + 5000) / 10000);

export function sandboxFees(type: LedgerEntry['type'], amount: number): SettlementLine['fees'] {
  if (type !== 'PAYMENT') return { interchange: 0, scheme: 0, processing: SANDBOX_FEES.processing };
  return { interchange: bps(amount, SANDBOX_FEES.interchangeBasisPoints), scheme: bps(amount, SANDBOX_FEES.schemeBasisPoints), processing: SANDBOX_FEES.processing };
}

export const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86400_000).toISOString().slice(0, 10);

export function sandboxBatch(terminal: string | null, settlementDay: string): string {
  return `SANDBOX-${(terminal ?? 'terminal').slice(0, 8).toUpperCase()}-${settlementDay.replace(/-/g, '')}`;
}

function line(e: { reference: string | null; processorId: string | null; type: SettlementLine['type']; amount: number; currency: string }, day: string, settlementDay: string, batch: string): SettlementLine {
  const fees = e.type === 'PAYMENT' || e.type === 'REFUND' || e.type === 'PAYOUT' ? sandboxFees(e.type, e.amount) : { interchange: 0, scheme: 0, processing: 0 };
  const net = (e.type === 'PAYMENT' ? e.amount : -e.amount) - fees.interchange - fees.scheme - fees.processing;
  return { type: e.type, processorId: e.processorId, reference: e.reference, amount: e.amount, currency: e.currency, transactionDate: day, settlementDate: settlementDay, batch, fees, net };
}

/**
 * A mismatch the simulator puts in its next report (tests and demos of reconciliation): the line of
 * `reference` (else the first line not changed yet) settles another amount (AMOUNT_DIFFERS), is left
 * out (ONLY_AT_PAYGATE), settles five days late in a batch of its own (SETTLED_LATE) or twice
 * (DUPLICATE); ONLY_AT_ACQUIRER adds a payment of 12.34 that no operation of the simulator made.
 */
export interface SettlementMismatch {
  kind: 'AMOUNT_DIFFERS' | 'ONLY_AT_ACQUIRER' | 'ONLY_AT_PAYGATE' | 'SETTLED_LATE' | 'DUPLICATE';
  reference?: string;
}

/** The report of `day` (UTC) for `terminal`: its operations in the order they were done, with the mismatches asked for. */
export function sandboxReport(entries: Iterable<LedgerEntry>, day: string, terminal: string | null, mismatches: SettlementMismatch[] = []): SettlementLine[] {
  const settlementDay = addDays(day, 1);
  const batch = sandboxBatch(terminal, settlementDay);
  const mine = [...entries].filter((e) => e.at.toISOString().slice(0, 10) === day && (terminal === null || e.terminal === terminal));
  let lines: Array<SettlementLine & { changed?: boolean }> = mine.map((e) => line(e, day, settlementDay, batch));
  for (const m of mismatches) {
    const at = m.reference ? lines.findIndex((l) => l.reference === m.reference) : lines.findIndex((l) => !l.changed && l.type === 'PAYMENT' && l.amount > 1);
    if (m.kind === 'ONLY_AT_ACQUIRER') {
      const reference = uuidFrom(`only-at-acquirer:${day}:${terminal}:${lines.length}`);
      lines.push({ ...line({ reference, processorId: `simx_${reference.replace(/-/g, '').slice(0, 20)}`, type: 'PAYMENT', amount: 1234, currency: lines[0]?.currency ?? 'EUR' }, day, settlementDay, batch), changed: true });
      continue;
    }
    if (at < 0) continue;
    const l = lines[at];
    if (m.kind === 'AMOUNT_DIFFERS') lines[at] = { ...line({ ...l, amount: l.amount - 1 }, day, settlementDay, batch), changed: true };
    else if (m.kind === 'ONLY_AT_PAYGATE') lines = lines.filter((_, i) => i !== at);
    else if (m.kind === 'SETTLED_LATE') {
      const late = addDays(day, 5);
      lines[at] = { ...line(l, day, late, `${sandboxBatch(terminal, late)}-LATE`), changed: true };
    } else if (m.kind === 'DUPLICATE') {
      lines[at] = { ...l, changed: true };
      lines.splice(at + 1, 0, { ...l, changed: true });
    }
  }
  return lines.map(({ changed: _changed, ...l }) => l);
}

/** A uuid (version 4 layout) derived from `seed`. */
function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
