/**
 * SQL of reconciliation: the imported reports, lines, bank statements; the matcher (set-based statements
 * over a report's lines and the merchant's money movements, the payments module's `moneyMovementsSql`);
 * the lists (keyset-paged by id).
 */
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { moneyMovementsSql } from '../payments/index.js';
import { PAYOUT_GRACE_DAYS, PROCESSOR_ID_HORIZON_DAYS, type LineType, type MatchKind, type PayoutStatus, type SettlementLine } from './reconciliation.domain.js';
import type { BankEntry } from './parsers/statement.js';

export interface ReconReportsTable {
  id: string;
  merchant_id: string;
  env: Env;
  source: 'UPLOAD' | 'CLI' | 'CONNECTOR';
  acquirer: string;
  service_id: string | null;
  filename: string;
  sha256: string;
  period_from: string;
  period_to: string;
  settlement_days: number;
  line_count: number;
  created_at: Date;
}

export interface ReconStatementsTable {
  id: string;
  merchant_id: string;
  env: Env;
  format: 'CAMT053' | 'NORMA43';
  source: 'UPLOAD' | 'CLI';
  filename: string;
  sha256: string;
  account: string;
  currency: string;
  period_from: string;
  period_to: string;
  opening_balance: number;
  closing_balance: number;
  line_count: number;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    recon_reports: ReconReportsTable;
    recon_statements: ReconStatementsTable;
  }
}

export type ReportRow = Selectable<ReconReportsTable>;
export type StatementRow = Selectable<ReconStatementsTable>;
export type Owner = { merchantId: string; env: Env };

/** Dates come back as `YYYY-MM-DD` text on both engines. */
const day = (col: string) => sql.raw(`to_char(${col}, 'YYYY-MM-DD')`);

// ---- reports and their lines ---------------------------------------------------------------------------

export async function insertReport(db: Executor, row: ReportRow): Promise<void> {
  await db.insertInto('recon_reports').values(row).execute();
}

export async function setReportCounts(db: Executor, id: string, lineCount: number, period: { from: string; to: string }): Promise<void> {
  await db.updateTable('recon_reports').set({ line_count: lineCount, period_from: period.from, period_to: period.to }).where('id', '=', id).execute();
}

/**
 * The lines of the file being imported wait in a temporary table of the transaction (no index, no WAL,
 * dropped at its end) until the whole file is read; then one statement matches them and writes them to
 * recon_lines with their kinds (matchReport), so each line is written once.
 */
export async function prepareStaging(db: Executor): Promise<void> {
  await sql`create temporary table if not exists recon_staging (line int4 not null, type text not null, processor_id text, reference text, ref_uuid uuid,
    amount int8 not null, currency text not null, transaction_date date not null, settlement_date date not null, batch_ref text not null,
    fee_interchange int8 not null, fee_scheme int8 not null, fee_processing int8 not null, net int8 not null) on commit drop`.execute(db);
  await sql`truncate recon_staging`.execute(db);
}

/** Stages a chunk of lines in one statement (one array per column). */
export async function insertLines(db: Executor, lines: Array<SettlementLine & { refUuid: string | null }>): Promise<void> {
  if (lines.length === 0) return;
  const col = <T>(f: (l: SettlementLine & { refUuid: string | null }) => T) => lines.map(f);
  await sql`insert into recon_staging select * from unnest(
      ${col((l) => l.line)}::int4[], ${col((l) => l.type)}::text[], ${col((l) => l.processorId)}::text[], ${col((l) => l.reference)}::text[],
      ${col((l) => l.refUuid)}::uuid[], ${col((l) => l.amount)}::int8[], ${col((l) => l.currency)}::text[], ${col((l) => l.transactionDate)}::date[],
      ${col((l) => l.settlementDate)}::date[], ${col((l) => l.batch)}::text[], ${col((l) => l.feeInterchange)}::int8[], ${col((l) => l.feeScheme)}::int8[],
      ${col((l) => l.feeProcessing)}::int8[], ${col((l) => l.net)}::int8[])`.execute(db);
}

/** A report's columns, its days as `YYYY-MM-DD` text. */
const REPORT_COLUMNS = sql`id, merchant_id, env, source, acquirer, service_id, filename, sha256, ${day('period_from')} as period_from, ${day('period_to')} as period_to,
  settlement_days, line_count, created_at`;

export async function findReport(db: Executor, owner: Owner, id: string): Promise<ReportRow | undefined> {
  const { rows } = await sql<ReportRow>`select ${REPORT_COLUMNS} from recon_reports where id = ${id} and merchant_id = ${owner.merchantId} and env = ${owner.env}`.execute(db);
  return rows[0];
}

export async function reportBySha(db: Executor, owner: Owner, sha256: string): Promise<ReportRow | undefined> {
  const { rows } = await sql<ReportRow>`select ${REPORT_COLUMNS} from recon_reports where merchant_id = ${owner.merchantId} and env = ${owner.env} and sha256 = ${sha256}`.execute(db);
  return rows[0];
}

/** The report a connector gave for a service and day, if it was imported. */
export async function connectorReport(db: Executor, owner: Owner, serviceId: string, day: string): Promise<ReportRow | undefined> {
  const { rows } = await sql<ReportRow>`select ${REPORT_COLUMNS} from recon_reports where merchant_id = ${owner.merchantId} and env = ${owner.env}
    and source = 'CONNECTOR' and service_id = ${serviceId} and period_from = ${day}::date and period_to = ${day}::date limit 1`.execute(db);
  return rows[0];
}

export type KindCounts = Record<MatchKind, number>;
export const noCounts = (): KindCounts => ({ MATCHED: 0, AMOUNT_DIFFERS: 0, ONLY_AT_ACQUIRER: 0, ONLY_AT_PAYGATE: 0, SETTLED_LATE: 0, DUPLICATE: 0 });

/** Each report's lines by kind, and the movements each found missing (one statement). */
export async function reportCounts(db: Executor, ids: string[]): Promise<Map<string, KindCounts>> {
  const out = new Map<string, KindCounts>(ids.map((id) => [id, noCounts()]));
  if (ids.length === 0) return out;
  const { rows } = await sql<{ report_id: string; kind: MatchKind; n: number }>`
    select report_id, kind, count(*)::int as n from recon_lines where report_id = any(${ids}::uuid[]) and kind is not null group by report_id, kind
    union all
    select report_id, 'ONLY_AT_PAYGATE', count(*)::int from recon_missing where report_id = any(${ids}::uuid[]) group by report_id`.execute(db);
  for (const r of rows) out.get(r.report_id)![r.kind] += Number(r.n);
  return out;
}

export async function listReports(db: Executor, owner: Owner, page: { limit: number; before: { at: Date; id: string } | null }): Promise<ReportRow[]> {
  const before = page.before ? sql` and (created_at < ${page.before.at} or (created_at = ${page.before.at} and id < ${page.before.id}))` : sql``;
  const { rows } = await sql<ReportRow>`select ${REPORT_COLUMNS} from recon_reports where merchant_id = ${owner.merchantId} and env = ${owner.env}${before}
    order by created_at desc, id desc limit ${page.limit}`.execute(db);
  return rows;
}

// ---- the matcher -----------------------------------------------------------------------------------------

/**
 * Matches the staged lines of a report to the merchant's money movements, names each line's kind and
 * writes them to recon_lines, in one statement; then records the movements of the report's days and
 * service that no line settles (ONLY_AT_PAYGATE) and clears those a line of this report now settles.
 * Set-based: a handful of statements whatever the size.
 *  1. by reference: a line whose REFERENCE is a transaction uuid of the merchant, of the line's type;
 *  2. by processor id, for the lines without one: the transaction of that processor id and type made in
 *     the PROCESSOR_ID_HORIZON_DAYS before the report's first day (the one of the same amount first, a
 *     successful one next, the oldest last);
 *  3. the kind: DUPLICATE when another line settles the same transaction (an earlier line of this file,
 *     or a line of an earlier report), ONLY_AT_ACQUIRER when none or not a successful one, AMOUNT_DIFFERS,
 *     SETTLED_LATE past `settlement_days`, MATCHED; CHARGEBACK and ADJUSTMENT lines have none.
 */
export async function matchReport(db: Executor, report: ReportRow): Promise<void> {
  const owner = { merchantId: report.merchant_id, env: report.env };
  // a temporary table has no statistics until it is analyzed: without them the planner takes it for a
  // handful of rows and joins by nested loops (minutes at a million lines instead of seconds)
  await sql`analyze recon_staging`.execute(db);
  const all = moneyMovementsSql(owner);
  const since = new Date(Date.parse(`${report.period_from}T00:00:00Z`) - PROCESSOR_ID_HORIZON_DAYS * 86400_000);
  const recent = moneyMovementsSql({ ...owner, since });
  await sql`insert into recon_lines (report_id, merchant_id, env, line, type, processor_id, reference, ref_uuid, amount, currency, transaction_date,
      settlement_date, batch_ref, fee_interchange, fee_scheme, fee_processing, net, transaction_id, order_id, paygate_amount, paygate_currency,
      paygate_date, paygate_status, kind)
    with by_ref as (
      select s.line, m.transaction_id, m.order_id, m.amount, m.currency, m.created_at, m.status
      from recon_staging s join (${all}) m on m.transaction_id = s.ref_uuid and m.type = s.type
      where s.ref_uuid is not null and s.type in ('PAYMENT', 'REFUND', 'PAYOUT')
    ),
    by_pid as (
      select distinct on (s.line) s.line, m.transaction_id, m.order_id, m.amount, m.currency, m.created_at, m.status
      from recon_staging s join (${recent}) m on m.processor_id = s.processor_id and m.type = s.type
      where s.processor_id is not null and s.type in ('PAYMENT', 'REFUND', 'PAYOUT') and not exists (select 1 from by_ref r where r.line = s.line)
      order by s.line, (m.amount = s.amount) desc, (m.status = 'SUCCESS') desc, m.created_at, m.transaction_id
    ),
    found as (select * from by_ref union all select * from by_pid),
    earlier as (select distinct o.transaction_id from recon_lines o join found f on f.transaction_id = o.transaction_id),
    j as (
      select s.*, f.transaction_id, f.order_id, f.amount as p_amount, f.currency as p_currency, (f.created_at at time zone 'UTC')::date as p_date,
        f.status as p_status, row_number() over (partition by f.transaction_id order by s.line) as nth, e.transaction_id is not null as settled_before
      from recon_staging s left join found f on f.line = s.line left join earlier e on e.transaction_id = f.transaction_id
    )
    select ${report.id}::uuid, ${report.merchant_id}::uuid, ${report.env}, j.line, j.type, j.processor_id, j.reference, j.ref_uuid, j.amount, j.currency,
      j.transaction_date, j.settlement_date, j.batch_ref, j.fee_interchange, j.fee_scheme, j.fee_processing, j.net, j.transaction_id, j.order_id, j.p_amount,
      j.p_currency, j.p_date, j.p_status,
      case
        when j.type not in ('PAYMENT', 'REFUND', 'PAYOUT') then null
        when j.transaction_id is not null and (j.nth > 1 or j.settled_before) then 'DUPLICATE'
        when j.transaction_id is null or j.p_status <> 'SUCCESS' then 'ONLY_AT_ACQUIRER'
        when j.amount <> j.p_amount or j.currency <> j.p_currency then 'AMOUNT_DIFFERS'
        when j.settlement_date - j.p_date > ${report.settlement_days} then 'SETTLED_LATE'
        else 'MATCHED'
      end
    from j order by j.line`.execute(db);
  await sql`analyze recon_lines`.execute(db);
  // what this report settles is no longer missing, whichever report found it missing
  await sql`delete from recon_missing x using recon_lines l
    where l.report_id = ${report.id} and l.transaction_id is not null and x.transaction_id = l.transaction_id
      and x.merchant_id = ${report.merchant_id} and x.env = ${report.env}`.execute(db);
  if (report.service_id) {
    const inPeriod = moneyMovementsSql({
      ...owner,
      serviceId: report.service_id,
      since: new Date(`${report.period_from}T00:00:00Z`),
      until: new Date(Date.parse(`${report.period_to}T00:00:00Z`) + 86400_000),
    });
    await sql`insert into recon_missing (merchant_id, env, report_id, transaction_id, order_id, type, processor_id, amount, currency, transaction_date, paygate_status)
      select ${report.merchant_id}::uuid, ${report.env}, ${report.id}::uuid, m.transaction_id, m.order_id, m.type, m.processor_id, m.amount, m.currency,
        (m.created_at at time zone 'UTC')::date, m.status
      from (${inPeriod}) m
      where m.status = 'SUCCESS' and not exists (select 1 from recon_lines l where l.transaction_id = m.transaction_id)
      on conflict (merchant_id, env, transaction_id) do nothing`.execute(db);
  }
}

/**
 * The payouts of the batches a report has lines in, computed again from every line of those batches
 * (a batch may come in several reports): count, signed gross, fees, net and the last settlement date.
 * A payout already found in a statement is judged again against its new net.
 */
export async function upsertPayouts(db: Executor, report: ReportRow, now: Date): Promise<void> {
  await sql`insert into recon_payouts as p (id, merchant_id, env, acquirer, batch_ref, currency, settlement_date, line_count, gross,
      fee_interchange, fee_scheme, fee_processing, net, status, updated_at)
    select gen_random_uuid(), ${report.merchant_id}::uuid, ${report.env}, ${report.acquirer}, l.batch_ref, l.currency, max(l.settlement_date), count(*)::int,
      sum(case when l.type in ('PAYMENT', 'ADJUSTMENT') then l.amount else -l.amount end), sum(l.fee_interchange), sum(l.fee_scheme), sum(l.fee_processing),
      sum(l.net), 'EXPECTED', ${now}::timestamptz
    from recon_lines l join recon_reports r on r.id = l.report_id
    where l.merchant_id = ${report.merchant_id} and l.env = ${report.env} and r.acquirer = ${report.acquirer}
      and l.batch_ref in (select distinct batch_ref from recon_lines where report_id = ${report.id})
    group by l.batch_ref, l.currency
    on conflict (merchant_id, env, acquirer, batch_ref, currency) do update set
      settlement_date = excluded.settlement_date, line_count = excluded.line_count, gross = excluded.gross,
      fee_interchange = excluded.fee_interchange, fee_scheme = excluded.fee_scheme, fee_processing = excluded.fee_processing, net = excluded.net,
      status = case when p.received_amount is null then p.status when p.received_amount = excluded.net then 'RECEIVED' else 'DIFFERENT' end,
      updated_at = excluded.updated_at`.execute(db);
}

/**
 * Finds the merchant's payouts in its bank statements (every payout not found yet, against every credit
 * or debit not taken yet), in three set-based steps:
 *  1. by reference: an entry of the payout's currency and sign whose reference or remittance text holds
 *     the batch reference (the one of the payout's amount first, then the earliest); RECEIVED when the
 *     amount is the net, DIFFERENT otherwise;
 *  2. by amount: an entry of exactly the net, booked from the settlement date to PAYOUT_GRACE_DAYS after
 *     (pairs taken in date order, so two payouts of one amount take two entries);
 *  3. the rest: MISSING when a statement of the currency covers the settlement date plus the grace days,
 *     EXPECTED otherwise.
 */
export async function matchPayouts(db: Executor, owner: Owner, now: Date): Promise<void> {
  const { merchantId, env } = owner;
  const take = (pairs: RawBuilder<unknown>) => sql`with pairs as (${pairs}),
    taken as (update recon_bank_lines b set payout_id = pairs.payout_id from pairs where b.id = pairs.bank_id returning b.id)
    update recon_payouts p set bank_line_id = pairs.bank_id, received_amount = pairs.amount, received_on = pairs.booking_date,
      status = case when pairs.amount = p.net then 'RECEIVED' else 'DIFFERENT' end, updated_at = ${now}::timestamptz
    from pairs where p.id = pairs.payout_id`.execute(db);
  await take(sql`select payout_id, bank_id, amount, booking_date from (
      select c.*, row_number() over (partition by c.bank_id order by c.exact desc, c.settlement_date, c.payout_id) as rb
      from (
        select distinct on (p.id) p.id as payout_id, b.id as bank_id, b.amount, b.booking_date, (b.amount = p.net) as exact, p.settlement_date
        from recon_payouts p join recon_bank_lines b on b.merchant_id = p.merchant_id and b.env = p.env and b.payout_id is null
          and b.currency = p.currency and sign(b.amount) = sign(p.net)
          and strpos(upper(coalesce(b.reference, '') || ' ' || coalesce(b.remittance, '')), upper(p.batch_ref)) > 0
        where p.merchant_id = ${merchantId} and p.env = ${env} and p.bank_line_id is null
        order by p.id, (b.amount = p.net) desc, b.booking_date, b.id
      ) c
    ) x where rb = 1`);
  await take(sql`select p.id as payout_id, b.id as bank_id, b.amount, b.booking_date from (
      select id, net, currency, settlement_date, row_number() over (partition by net, currency order by settlement_date, id) as rn
      from recon_payouts where merchant_id = ${merchantId} and env = ${env} and bank_line_id is null and net <> 0
    ) p join (
      select b.id, b.amount, b.currency, b.booking_date, row_number() over (partition by b.amount, b.currency order by b.booking_date, b.id) as rn
      from recon_bank_lines b where b.merchant_id = ${merchantId} and b.env = ${env} and b.payout_id is null
    ) b on b.amount = p.net and b.currency = p.currency and b.rn = p.rn
      and b.booking_date >= p.settlement_date and b.booking_date <= p.settlement_date + ${PAYOUT_GRACE_DAYS}::int`);
  await sql`update recon_payouts p set status = case when exists (
        select 1 from recon_statements s where s.merchant_id = p.merchant_id and s.env = p.env and s.currency = p.currency
          and s.period_to >= p.settlement_date + ${PAYOUT_GRACE_DAYS}::int) then 'MISSING' else 'EXPECTED' end, updated_at = ${now}::timestamptz
    where p.merchant_id = ${merchantId} and p.env = ${env} and p.bank_line_id is null
      and p.status <> case when exists (
        select 1 from recon_statements s where s.merchant_id = p.merchant_id and s.env = p.env and s.currency = p.currency
          and s.period_to >= p.settlement_date + ${PAYOUT_GRACE_DAYS}::int) then 'MISSING' else 'EXPECTED' end`.execute(db);
}

// ---- bank statements -----------------------------------------------------------------------------------

export async function insertStatement(db: Executor, row: StatementRow): Promise<void> {
  await db.insertInto('recon_statements').values(row).execute();
}

export async function insertBankLines(db: Executor, st: { id: string; merchantId: string; env: Env }, entries: BankEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 2000) {
    const c = entries.slice(i, i + 2000);
    await sql`insert into recon_bank_lines (statement_id, merchant_id, env, line, booking_date, value_date, amount, currency, reference, remittance)
      select ${st.id}::uuid, ${st.merchantId}::uuid, ${st.env}, x.* from unnest(${c.map((e) => e.line)}::int4[], ${c.map((e) => e.bookingDate)}::date[],
        ${c.map((e) => e.valueDate)}::date[], ${c.map((e) => e.amount)}::int8[], ${c.map((e) => e.currency)}::text[], ${c.map((e) => e.reference)}::text[],
        ${c.map((e) => e.remittance)}::text[]) as x`.execute(db);
  }
}

export async function statementBySha(db: Executor, owner: Owner, sha256: string): Promise<StatementRow | undefined> {
  return db.selectFrom('recon_statements').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).where('sha256', '=', sha256).executeTakeFirst();
}

export type StatementWithCounts = StatementRow & { credits: number; debits: number; payouts_found: number };

export async function listStatements(db: Executor, owner: Owner, page: { limit: number; before: { at: Date; id: string } | null }, ids?: string[]): Promise<StatementWithCounts[]> {
  const before = page.before ? sql`and (s.created_at < ${page.before.at} or (s.created_at = ${page.before.at} and s.id < ${page.before.id}))` : sql``;
  const only = ids ? sql`and s.id = any(${ids}::uuid[])` : sql``;
  const { rows } = await sql<StatementWithCounts>`select s.id, s.merchant_id, s.env, s.format, s.source, s.filename, s.sha256, s.account, s.currency,
      ${day('s.period_from')} as period_from, ${day('s.period_to')} as period_to, s.opening_balance, s.closing_balance, s.line_count, s.created_at,
      (select count(*)::int from recon_bank_lines b where b.statement_id = s.id and b.amount >= 0) as credits,
      (select count(*)::int from recon_bank_lines b where b.statement_id = s.id and b.amount < 0) as debits,
      (select count(*)::int from recon_bank_lines b where b.statement_id = s.id and b.payout_id is not null) as payouts_found
    from recon_statements s where s.merchant_id = ${owner.merchantId} and s.env = ${owner.env} ${before} ${only}
    order by s.created_at desc, s.id desc limit ${page.limit}`.execute(db);
  return rows;
}

// ---- reads: lines, exceptions, payouts ---------------------------------------------------------------------

/** A settlement line or a missing movement, as the lists present it. */
export interface ItemRow {
  id: number;
  kind: MatchKind;
  type: LineType;
  report_id: string;
  report_filename: string;
  acquirer: string;
  settlement_days: number;
  line: number | null;
  processor_id: string | null;
  reference: string | null;
  amount: number;
  currency: string;
  transaction_date: string;
  settlement_date: string | null;
  batch_ref: string | null;
  fee_interchange: number | null;
  fee_scheme: number | null;
  fee_processing: number | null;
  net: number | null;
  transaction_id: string | null;
  order_id: string | null;
  paygate_amount: number | null;
  paygate_currency: string | null;
  paygate_date: string | null;
  paygate_status: string | null;
}

const LINE_COLUMNS = sql`l.id, l.kind, l.type, l.report_id, r.filename as report_filename, r.acquirer, r.settlement_days, l.line, l.processor_id, l.reference,
  l.amount, l.currency, ${day('l.transaction_date')} as transaction_date, ${day('l.settlement_date')} as settlement_date, l.batch_ref,
  l.fee_interchange, l.fee_scheme, l.fee_processing, l.net, l.transaction_id, l.order_id, l.paygate_amount, l.paygate_currency,
  ${day('l.paygate_date')} as paygate_date, l.paygate_status`;
const MISSING_COLUMNS = sql`x.id, 'ONLY_AT_PAYGATE' as kind, x.type, x.report_id, r.filename as report_filename, r.acquirer, r.settlement_days, null::int as line,
  x.processor_id, x.transaction_id::text as reference, x.amount, x.currency, ${day('x.transaction_date')} as transaction_date, null::text as settlement_date,
  null::text as batch_ref, null::int8 as fee_interchange, null::int8 as fee_scheme, null::int8 as fee_processing, null::int8 as net, x.transaction_id, x.order_id,
  x.amount as paygate_amount, x.currency as paygate_currency, ${day('x.transaction_date')} as paygate_date, x.paygate_status`;

export interface ItemFilter {
  kinds: MatchKind[];
  reportId?: string | null;
  /** Keyset: items with a smaller id (newest first). */
  before?: number | null;
  limit: number;
}

/**
 * Exceptions (and, when asked, matches) of the merchant, newest first, a page of them: the lines of the
 * kinds asked for and, when ONLY_AT_PAYGATE is asked for, the missing movements, read as one list by
 * their shared id sequence. Each half reads its own index in id order and stops after `limit`.
 */
export async function listItems(db: Executor, owner: Owner, f: ItemFilter): Promise<ItemRow[]> {
  const lineKinds = f.kinds.filter((k) => k !== 'ONLY_AT_PAYGATE');
  const parts: RawBuilder<unknown>[] = [];
  const before = (col: string) => (f.before ? sql` and ${sql.raw(col)} < ${f.before}` : sql``);
  if (lineKinds.length > 0) {
    const report = f.reportId ? sql` and l.report_id = ${f.reportId}` : sql``;
    const onlyExceptions = lineKinds.includes('MATCHED') ? sql`` : sql` and l.kind <> 'MATCHED'`;
    parts.push(sql`(select ${LINE_COLUMNS} from recon_lines l join recon_reports r on r.id = l.report_id
      where l.merchant_id = ${owner.merchantId} and l.env = ${owner.env} and l.kind = any(${lineKinds}::text[])${onlyExceptions}${report}${before('l.id')}
      order by l.id desc limit ${f.limit})`);
  }
  if (f.kinds.includes('ONLY_AT_PAYGATE')) {
    const report = f.reportId ? sql` and x.report_id = ${f.reportId}` : sql``;
    parts.push(sql`(select ${MISSING_COLUMNS} from recon_missing x join recon_reports r on r.id = x.report_id
      where x.merchant_id = ${owner.merchantId} and x.env = ${owner.env}${report}${before('x.id')}
      order by x.id desc limit ${f.limit})`);
  }
  if (parts.length === 0) return [];
  const { rows } = await sql<ItemRow>`select * from (${sql.join(parts, sql` union all `)}) i order by id desc limit ${f.limit}`.execute(db);
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** A report's lines in file order, a page of them (keyset on the line number). */
export async function reportLines(db: Executor, reportId: string, page: { after: number | null; limit: number }): Promise<ItemRow[]> {
  const after = page.after !== null ? sql` and l.line > ${page.after}` : sql``;
  const { rows } = await sql<ItemRow>`select ${LINE_COLUMNS} from recon_lines l join recon_reports r on r.id = l.report_id
    where l.report_id = ${reportId}${after} order by l.line limit ${page.limit}`.execute(db);
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** The merchant's items by kind (the summary), optionally of one report. */
export async function kindTotals(db: Executor, owner: Owner): Promise<KindCounts> {
  const { rows } = await sql<{ kind: MatchKind; n: number }>`
    select kind, count(*)::int as n from recon_lines where merchant_id = ${owner.merchantId} and env = ${owner.env} and kind is not null group by kind
    union all
    select 'ONLY_AT_PAYGATE', count(*)::int from recon_missing where merchant_id = ${owner.merchantId} and env = ${owner.env}`.execute(db);
  const out = noCounts();
  for (const r of rows) out[r.kind] += Number(r.n);
  return out;
}

export interface PayoutRow {
  id: string;
  acquirer: string;
  batch_ref: string;
  currency: string;
  settlement_date: string;
  line_count: number;
  gross: number;
  fee_interchange: number;
  fee_scheme: number;
  fee_processing: number;
  net: number;
  status: PayoutStatus;
  received_amount: number | null;
  received_on: string | null;
  bank_line: number | null;
  bank_reference: string | null;
  statement_id: string | null;
  statement_filename: string | null;
  updated_at: Date;
}

/** The merchant's payouts, latest settlement first, a page of them (keyset on settlement date and id). */
export async function listPayouts(db: Executor, owner: Owner, f: { statuses: PayoutStatus[]; before: { date: string; id: string } | null; limit: number }): Promise<PayoutRow[]> {
  const before = f.before ? sql` and (p.settlement_date < ${f.before.date}::date or (p.settlement_date = ${f.before.date}::date and p.id > ${f.before.id}::uuid))` : sql``;
  const { rows } = await sql<PayoutRow>`select p.id, p.acquirer, p.batch_ref, p.currency, ${day('p.settlement_date')} as settlement_date, p.line_count, p.gross,
      p.fee_interchange, p.fee_scheme, p.fee_processing, p.net, p.status, p.received_amount, ${day('p.received_on')} as received_on,
      b.line as bank_line, b.reference as bank_reference, s.id as statement_id, s.filename as statement_filename, p.updated_at
    from recon_payouts p left join recon_bank_lines b on b.id = p.bank_line_id left join recon_statements s on s.id = b.statement_id
    where p.merchant_id = ${owner.merchantId} and p.env = ${owner.env} and p.status = any(${f.statuses}::text[])${before}
    order by p.settlement_date desc, p.id limit ${f.limit}`.execute(db);
  return rows;
}

export async function payoutTotals(db: Executor, owner: Owner): Promise<Record<PayoutStatus, number>> {
  const { rows } = await sql<{ status: PayoutStatus; n: number }>`select status, count(*)::int as n from recon_payouts
    where merchant_id = ${owner.merchantId} and env = ${owner.env} group by status`.execute(db);
  const out: Record<PayoutStatus, number> = { EXPECTED: 0, RECEIVED: 0, DIFFERENT: 0, MISSING: 0 };
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}
