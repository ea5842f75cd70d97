/**
 * Reconciliation and Payouts (ours, docs/reconciliation.md). Reconciliation: the exceptions first (each
 * with paygate's transaction and the report's line, filtered by kind, exported as CSV), then the imports:
 * a day's report fetched from a service whose connector gives one (the sandbox does), or an acquirer's
 * file in the settlement layout (a file with problems is refused whole, each problem next to its line).
 * Payouts: what each acquirer batch should pay against what the bank statements show, and the statement
 * upload (camt.053, Norma 43). Everything goes through the merchant API (the bridge).
 */
import { useState, type FormEvent } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { API, ApiError, api, download, qs, v1, type Answer, type Me, type V1Answer, type V1Schema } from '../../api';
import { dateTime, money, useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import './area.css';

type Item = V1Schema<'ReconciliationItem'>;
type Payout = V1Schema<'Payout'>;
type LineProblem = V1Schema<'LineProblem'>;
type ItemsAnswer = V1Answer<'/reconciliation/items', 'get'>;
type PayoutsAnswer = V1Answer<'/reconciliation/payouts', 'get'>;

const KINDS = ['AMOUNT_DIFFERS', 'ONLY_AT_ACQUIRER', 'ONLY_AT_PAYGATE', 'SETTLED_LATE', 'DUPLICATE', 'MATCHED'] as const;
const PAYOUT_STATUSES = ['EXPECTED', 'RECEIVED', 'DIFFERENT', 'MISSING'] as const;
const KIND_TONE: Record<string, string> = { MATCHED: 'ok', AMOUNT_DIFFERS: 'bad', ONLY_AT_ACQUIRER: 'bad', ONLY_AT_PAYGATE: 'bad', SETTLED_LATE: 'warn', DUPLICATE: 'bad' };
const PAYOUT_TONE: Record<string, string> = { EXPECTED: 'neutral', RECEIVED: 'ok', DIFFERENT: 'bad', MISSING: 'bad' };

const errorText = (e: unknown, t: (k: Key) => string) => (e instanceof ApiError ? e.details : t('error.network'));

function Badge({ value, tone, label }: { value: string; tone: string; label: string }) {
  return <span className={`badge badge-${tone}`} title={value} data-status={value}>{label}</span>;
}

/** The file as base64, without the data URL's prefix. */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const s = String(r.result);
      resolve(s.slice(s.indexOf(',') + 1));
    };
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

/** An import through the bridge, with fetch: a refused file's 422 names every line's problem in `errors`. */
async function send(me: Me, path: string, body: Record<string, unknown>): Promise<{ ok: true; data: any } | { ok: false; details: string; errors: LineProblem[] }> {
  const res = await fetch(`${API}/v1${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
    body: JSON.stringify(body),
  });
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) return { ok: false, details: String(data?.details ?? `${res.status} ${res.statusText}`), errors: (data?.errors ?? []) as LineProblem[] };
  return { ok: true, data };
}

function Problems({ error, problems, testid }: { error: string | null; problems: LineProblem[]; testid: string }) {
  const { t } = useT();
  if (!error) return null;
  return (
    <div role="alert" className="error recon-problems" data-testid={`${testid}-error`}>
      <p><strong>{t('error.title')}:</strong> {problems.length > 0 ? t('recon.problems', { n: String(problems.length) }) : error}</p>
      {problems.length > 0 && (
        <DataTable
          tableProps={{ 'data-testid': `${testid}-problems` }}
          rows={problems}
          rowKey={(p, i) => `${p.line}-${i}`}
          rowProps={(p) => ({ 'data-line': String(p.line) })}
          columns={[
            { header: t('recon.line'), className: 'num', cell: (p) => p.line },
            { header: t('recon.problem'), cell: (p) => p.msg },
          ]}
        />
      )}
    </div>
  );
}

// ---- Reconciliation ------------------------------------------------------------------------------------

export function ReconciliationPage({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const [kind, setKind] = useState('');
  const [dlError, setDlError] = useState<string | null>(null);
  const summary = useQuery({
    queryKey: ['recon-summary', me.merchant.uuid, me.env],
    queryFn: () => v1<V1Answer<'/reconciliation/summary', 'get'>>('GET', '/reconciliation/summary'),
  });
  const items = useInfiniteQuery({
    queryKey: ['recon-items', me.merchant.uuid, me.env, kind],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => v1<ItemsAnswer>('GET', `/reconciliation/items${qs({ kind: kind || undefined, limit: 50, cursor: pageParam })}`),
    getNextPageParam: (last) => last.next_cursor,
  });
  const rows: Item[] = items.data?.pages.flatMap((p) => p.items) ?? [];
  const when = (day: string | null | undefined) => day ?? '—';
  return (
    <section aria-labelledby="recon-title">
      <div className="page-head"><h1 id="recon-title">{t('recon.title')}</h1></div>
      {summary.data && (
        <ul className="recon-summary" data-testid="recon-summary">
          <li><strong data-testid="recon-exceptions">{summary.data.exceptions}</strong> {t('recon.exceptions')}</li>
          {KINDS.map((k) => (
            <li key={k}><button type="button" className="link" aria-pressed={kind === k} onClick={() => setKind(kind === k ? '' : k)}>
              <Badge value={k} tone={KIND_TONE[k]} label={t(`recon.kind.${k}` as Key)} /> <span data-testid={`recon-count-${k}`}>{summary.data.kinds[k]}</span>
            </button></li>
          ))}
        </ul>
      )}
      <div className="table-wrap card">
        <div className="recon-toolbar">
          <h2 id="recon-items-title">{kind ? t(`recon.kind.${kind}` as Key) : t('recon.items')}</h2>
          <label>{t('recon.kind')}
            <select value={kind} onChange={(e) => setKind(e.target.value)} data-testid="recon-kind-filter">
              <option value="">{t('recon.all_exceptions')}</option>
              {KINDS.map((k) => <option key={k} value={k}>{t(`recon.kind.${k}` as Key)}</option>)}
            </select>
          </label>
          <button type="button" className="secondary" data-testid="recon-export" onClick={async () => {
            setDlError(null);
            try {
              await download(`/v1/reconciliation/items.csv${qs({ kind: kind || undefined })}`, 'reconciliation-exceptions.csv');
            } catch (err) {
              setDlError(errorText(err, t));
            }
          }}>{t('recon.export')}</button>
        </div>
        {dlError && <div role="alert" className="error">{dlError}</div>}
        {items.error && <div role="alert" className="error">{errorText(items.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'recon-items', 'aria-labelledby': 'recon-items-title' }}
          rows={rows}
          rowKey={(i) => String(i.id)}
          rowProps={(i) => ({ 'data-id': String(i.id), 'data-kind': i.kind ?? '', 'data-transaction': i.transaction?.uuid ?? '' })}
          empty={items.data ? (kind ? t('recon.none_kind') : t('recon.none')) : undefined}
          columns={[
            { header: t('recon.kind'), cell: (i) => (i.kind ? <Badge value={i.kind} tone={KIND_TONE[i.kind]} label={t(`recon.kind.${i.kind}` as Key)} /> : '—') },
            { header: t('recon.what'), cell: (i) => <><span className="muted small">{t(`recon.type.${i.type}` as Key)}</span> {i.detail}</> },
            {
              header: t('recon.transaction'),
              className: 'mono',
              cell: (i) => (i.transaction
                ? (can('payments.read')
                  ? <a href={`/dashboard/payments/${i.transaction.order_uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${i.transaction!.order_uuid}`); }}>{i.transaction.uuid.slice(0, 8)}</a>
                  : <span title={i.transaction.uuid}>{i.transaction.uuid.slice(0, 8)}</span>)
                : '—'),
            },
            { header: t('recon.acquirer_amount'), className: 'num', cell: (i) => (i.line ? money(i.line.amount, i.line.currency, lang) : '—') },
            { header: t('recon.paygate_amount'), className: 'num', cell: (i) => (i.transaction ? <>{money(i.transaction.amount, i.transaction.currency, lang)} <span className="muted small">{i.transaction.status}</span></> : '—') },
            { header: t('recon.dates'), cell: (i) => <>{when(i.transaction?.date ?? i.line?.transaction_date)} → {when(i.line?.settlement_date)}</> },
            { header: t('recon.report_line'), cell: (i) => <>{i.report.filename}{i.report.line !== null ? `:${i.report.line}` : ''}{i.line && <div className="muted small mono">{i.line.processor_id ?? i.line.reference}</div>}</> },
          ]}
        />
        {items.hasNextPage && <button type="button" className="secondary more" onClick={() => items.fetchNextPage()}>{t('recon.more')}</button>}
      </div>
      {can('reconciliation.import') && <Imports me={me} />}
      <Reports me={me} />
    </section>
  );
}

function Imports({ me }: { me: Me }) {
  const { t } = useT();
  const qc = useQueryClient();
  const sources = useQuery({
    queryKey: ['recon-sources', me.merchant.uuid, me.env],
    queryFn: () => api<Answer<'/reconciliation/sources', 'get'>>('GET', '/reconciliation/sources'),
  });
  const fetchable = (sources.data?.services ?? []).filter((s) => s.settlement_report);
  const [service, setService] = useState('');
  const [date, setDate] = useState(() => new Date().toISOString().slice(0, 10));
  const [file, setFile] = useState<File | null>(null);
  const [acquirer, setAcquirer] = useState('');
  const [fileService, setFileService] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [problems, setProblems] = useState<LineProblem[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const finish = async (r: Awaited<ReturnType<typeof send>>) => {
    if (!r.ok) {
      setError(r.details);
      setProblems(r.errors);
      return;
    }
    setDone(t('recon.imported', { lines: String(r.data.report.lines), exceptions: String(r.data.report.exceptions) }));
    await qc.invalidateQueries({ queryKey: ['recon-items'] });
    await qc.invalidateQueries({ queryKey: ['recon-summary'] });
    await qc.invalidateQueries({ queryKey: ['recon-reports'] });
    await qc.invalidateQueries({ queryKey: ['payouts'] });
  };
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setProblems([]);
    setDone(null);
    try {
      await fn();
    } catch {
      setError(t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  const onFetch = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => finish(await send(me, '/reconciliation/settlements/fetch', { service: service || fetchable[0]?.uuid, date })));
  };
  const onUpload = (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    void run(async () => finish(await send(me, '/reconciliation/settlements', { data: await readBase64(file), filename: file.name, acquirer: acquirer.trim() || 'OTHER', service: fileService || null })));
  };
  return (
    <div className="card" aria-labelledby="recon-import-title">
      <h2 id="recon-import-title">{t('recon.import')}</h2>
      {fetchable.length > 0 && (
        <form className="recon-form" onSubmit={onFetch} aria-label={t('recon.fetch')}>
          <label>{t('recon.service')}
            <select value={service} onChange={(e) => setService(e.target.value)} data-testid="recon-fetch-service">
              {fetchable.map((s) => <option key={s.uuid} value={s.uuid}>{s.name} ({s.type})</option>)}
            </select>
          </label>
          <label>{t('recon.day')}
            <input type="date" value={date} onChange={(e) => setDate(e.target.value)} required data-testid="recon-fetch-date" />
          </label>
          <button type="submit" className="primary" disabled={busy} data-testid="recon-fetch">{t('recon.fetch')}</button>
          <p className="muted small hint">{t('recon.fetch_hint')}</p>
        </form>
      )}
      <form className="recon-form" onSubmit={onUpload} aria-label={t('recon.upload')}>
        <label>{t('recon.acquirer')}
          <input type="text" value={acquirer} onChange={(e) => setAcquirer(e.target.value)} maxLength={40} placeholder="CHECKOUT" data-testid="recon-acquirer" />
        </label>
        <label>{t('recon.covers')}
          <select value={fileService} onChange={(e) => setFileService(e.target.value)} data-testid="recon-file-service">
            <option value="">{t('recon.no_service')}</option>
            {(sources.data?.services ?? []).map((s) => <option key={s.uuid} value={s.uuid}>{s.name} ({s.type})</option>)}
          </select>
        </label>
        <label>{t('recon.file')}
          <input type="file" accept=".csv,text/csv" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="recon-file" />
        </label>
        <button type="submit" className="primary" disabled={busy || !file} data-testid="recon-upload">{t('recon.upload')}</button>
        <p className="muted small hint">{t('recon.upload_hint')}</p>
      </form>
      {done && <p role="status" className="ok" data-testid="recon-done">{done}</p>}
      <Problems error={error} problems={problems} testid="recon" />
    </div>
  );
}

function Reports({ me }: { me: Me }) {
  const { t, lang } = useT();
  const q = useInfiniteQuery({
    queryKey: ['recon-reports', me.merchant.uuid, me.env],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => v1<V1Answer<'/reconciliation/settlements', 'get'>>('GET', `/reconciliation/settlements${qs({ limit: 20, cursor: pageParam })}`),
    getNextPageParam: (last) => last.next_cursor,
  });
  const reports = q.data?.pages.flatMap((p) => p.reports) ?? [];
  return (
    <div className="table-wrap card">
      <h2 id="recon-reports-title">{t('recon.reports')}</h2>
      <DataTable
        tableProps={{ 'data-testid': 'recon-reports', 'aria-labelledby': 'recon-reports-title' }}
        rows={reports}
        rowKey={(r) => r.uuid}
        rowProps={(r) => ({ 'data-uuid': r.uuid })}
        empty={q.data ? t('recon.no_reports') : undefined}
        columns={[
          { header: t('recon.file'), className: 'break', cell: (r) => <>{r.filename} <span className="muted small">{t(`recon.source.${r.source}` as Key)}</span></> },
          { header: t('recon.acquirer'), cell: (r) => r.acquirer },
          { header: t('recon.period'), cell: (r) => (r.period_from === r.period_to ? r.period_from : `${r.period_from} – ${r.period_to}`) },
          { header: t('recon.lines'), className: 'num', cell: (r) => r.lines },
          { header: t('recon.exceptions_col'), className: 'num', cell: (r) => r.exceptions },
          { header: t('recon.imported_at'), cell: (r) => dateTime(r.created_at, lang, me.merchant.timezone) },
        ]}
      />
      {q.hasNextPage && <button type="button" className="secondary more" onClick={() => q.fetchNextPage()}>{t('recon.more')}</button>}
    </div>
  );
}

// ---- Payouts ---------------------------------------------------------------------------------------------

export function PayoutsPage({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const [status, setStatus] = useState('');
  const [dlError, setDlError] = useState<string | null>(null);
  const q = useInfiniteQuery({
    queryKey: ['payouts', me.merchant.uuid, me.env, status],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => v1<PayoutsAnswer>('GET', `/reconciliation/payouts${qs({ status: status || undefined, limit: 50, cursor: pageParam })}`),
    getNextPageParam: (last) => last.next_cursor,
  });
  const payouts: Payout[] = q.data?.pages.flatMap((p) => p.payouts) ?? [];
  return (
    <section aria-labelledby="payouts-title">
      <div className="page-head"><h1 id="payouts-title">{t('payouts.title')}</h1></div>
      <div className="table-wrap card">
        <div className="recon-toolbar">
          <h2 id="payouts-list-title">{t('payouts.list')}</h2>
          <label>{t('payouts.status')}
            <select value={status} onChange={(e) => setStatus(e.target.value)} data-testid="payouts-status-filter">
              <option value="">{t('payouts.all')}</option>
              {PAYOUT_STATUSES.map((s) => <option key={s} value={s}>{t(`payouts.status.${s}` as Key)}</option>)}
            </select>
          </label>
          <button type="button" className="secondary" data-testid="payouts-export" onClick={async () => {
            setDlError(null);
            try {
              await download(`/v1/reconciliation/payouts.csv${qs({ status: status || undefined })}`, 'payouts.csv');
            } catch (err) {
              setDlError(errorText(err, t));
            }
          }}>{t('recon.export')}</button>
        </div>
        {dlError && <div role="alert" className="error">{dlError}</div>}
        {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
        <table className="orders" data-testid="payouts" aria-labelledby="payouts-list-title">
          <thead>
            <tr>
              <th scope="col">{t('payouts.batch')}</th>
              <th scope="col">{t('payouts.status')}</th>
              <th scope="col">{t('payouts.settlement_date')}</th>
              <th scope="col">{t('payouts.gross')}</th>
              <th scope="col">{t('payouts.fees')}</th>
              <th scope="col">{t('payouts.expected')}</th>
              <th scope="col">{t('payouts.received')}</th>
            </tr>
          </thead>
          <tbody>
            {payouts.map((p) => (
              <tr key={p.uuid} data-batch={p.batch} data-status={p.status}>
                <td data-label={t('payouts.batch')} className="break"><span className="mono">{p.batch}</span> <span className="muted small">{p.acquirer} · {t('payouts.lines', { n: String(p.lines) })}</span></td>
                <td data-label={t('payouts.status')}><Badge value={p.status} tone={PAYOUT_TONE[p.status]} label={t(`payouts.status.${p.status}` as Key)} /></td>
                <td data-label={t('payouts.settlement_date')}>{p.settlement_date}</td>
                <td data-label={t('payouts.gross')} className="num">{money(p.gross, p.currency, lang)}</td>
                <td data-label={t('payouts.fees')} className="num" title={`${t('payouts.interchange')} ${p.fees.interchange} · ${t('payouts.scheme')} ${p.fees.scheme} · ${t('payouts.processing')} ${p.fees.processing}`}>{money(p.fees.total, p.currency, lang)}</td>
                <td data-label={t('payouts.expected')} className="num">{money(p.expected, p.currency, lang)}</td>
                <td data-label={t('payouts.received')} className="num">
                  {p.received ? <>{money(p.received.amount, p.currency, lang)} <span className="muted small">{p.received.date}</span>{p.difference ? <div className="bad small" data-testid="payout-difference">{money(p.difference, p.currency, lang)}</div> : null}</> : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {q.data && payouts.length === 0 && <p className="empty">{t('payouts.none')}</p>}
        {q.hasNextPage && <button type="button" className="secondary more" onClick={() => q.fetchNextPage()}>{t('recon.more')}</button>}
      </div>
      {can('reconciliation.import') && <StatementUpload me={me} />}
      <Statements me={me} />
    </section>
  );
}

function StatementUpload({ me }: { me: Me }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [problems, setProblems] = useState<LineProblem[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setProblems([]);
    setDone(null);
    try {
      const r = await send(me, '/reconciliation/bank-statements', { data: await readBase64(file), filename: file.name });
      if (!r.ok) {
        setError(r.details);
        setProblems(r.errors);
        return;
      }
      const found = (r.data.statements as Array<{ payouts_found: number }>).reduce((s, x) => s + x.payouts_found, 0);
      setDone(t('payouts.imported', { n: String(found) }));
      await qc.invalidateQueries({ queryKey: ['payouts'] });
      await qc.invalidateQueries({ queryKey: ['statements'] });
      await qc.invalidateQueries({ queryKey: ['recon-summary'] });
    } catch {
      setError(t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby="statement-upload-title">
      <h2 id="statement-upload-title">{t('payouts.upload')}</h2>
      <div className="recon-form">
        <label>{t('payouts.file')}
          <input type="file" accept=".xml,.n43,.aeb,.txt,.csb" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="payouts-file" />
        </label>
        <button type="submit" className="primary" disabled={busy || !file} data-testid="payouts-upload">{t('recon.upload')}</button>
        <p className="muted small hint">{t('payouts.upload_hint')}</p>
      </div>
      {done && <p role="status" className="ok" data-testid="payouts-done">{done}</p>}
      <Problems error={error} problems={problems} testid="payouts" />
    </form>
  );
}

function Statements({ me }: { me: Me }) {
  const { t, lang } = useT();
  const q = useQuery({
    queryKey: ['statements', me.merchant.uuid, me.env],
    queryFn: () => v1<V1Answer<'/reconciliation/bank-statements', 'get'>>('GET', '/reconciliation/bank-statements?limit=50'),
  });
  const list = q.data?.statements ?? [];
  return (
    <div className="table-wrap card">
      <h2 id="statements-title">{t('payouts.statements')}</h2>
      <DataTable
        tableProps={{ 'data-testid': 'statements', 'aria-labelledby': 'statements-title' }}
        rows={list}
        rowKey={(s) => s.uuid}
        rowProps={(s) => ({ 'data-uuid': s.uuid })}
        empty={q.data ? t('payouts.no_statements') : undefined}
        columns={[
          { header: t('recon.file'), className: 'break', cell: (s) => <>{s.filename} <span className="muted small">{s.format === 'CAMT053' ? 'camt.053' : 'Norma 43'}</span></> },
          { header: t('payouts.account'), className: 'mono', cell: (s) => s.account },
          { header: t('recon.period'), cell: (s) => (s.period_from === s.period_to ? s.period_from : `${s.period_from} – ${s.period_to}`) },
          { header: t('payouts.closing'), className: 'num', cell: (s) => money(s.closing_balance, s.currency, lang) },
          { header: t('payouts.found'), className: 'num', cell: (s) => `${s.payouts_found} / ${s.entries}` },
          { header: t('recon.imported_at'), cell: (s) => dateTime(s.created_at, lang, me.merchant.timezone) },
        ]}
      />
    </div>
  );
}
