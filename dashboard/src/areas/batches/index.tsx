/**
 * The Batch files area: the merchant's payments (H1) and refunds (H2) files, newest first; uploading one
 * through the merchant API (a file with problems is refused whole, every line's problem shown next to its
 * line number, nothing queued), optionally for later (`execute_at` in the merchant's timezone); a file's
 * page follows its progress live and downloads its results.
 */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { API, ApiError, api, download, qs, v1, type Answer, type Me, type V1Answer, type V1Schema } from '../../api';
import { dateTime, useT } from '../../i18n';
import { navigate } from '../../router';
import { Status } from '../../components/Status';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import './area.css';

/** One problem of one line of a refused file (the 422's `errors`). */
type LineProblem = V1Schema<'LineProblem'>;

const UUID = /^\/([0-9a-fA-F-]{36})$/;

export function BatchesPage(props: AreaProps) {
  const path = props.sub.split('?')[0];
  const m = UUID.exec(path);
  if (m) return <BatchDetail me={props.me} uuid={m[1]} canSeeOrders={props.can('payments.read')} />;
  return <BatchList {...props} />;
}

function BatchList({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const [limit, setLimit] = useState(50);
  const q = useQuery({
    queryKey: ['batches', me.merchant.uuid, me.env, limit],
    queryFn: () => api<Answer<'/batches', 'get'>>('GET', `/batches${qs({ limit })}`),
    // a file being processed moves by itself
    refetchInterval: (query) => (query.state.data?.batches.some((b) => b.status !== 'COMPLETED') ? 5000 : false),
  });
  const when = (iso: string) => dateTime(iso, lang, me.merchant.timezone);
  return (
    <section aria-labelledby="batches-title">
      <div className="page-head"><h1 id="batches-title">{t('batches.title')}</h1></div>
      {can('batch.create') && <Upload me={me} />}
      <div className="table-wrap card">
        <h2 className="sr-only">{t('batches.list')}</h2>
        {q.error && <div role="alert" className="error">{q.error instanceof ApiError ? q.error.details : t('error.network')}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'batches' }}
          rows={q.data?.batches ?? []}
          rowKey={(b) => b.uuid}
          rowProps={(b) => ({ 'data-uuid': b.uuid })}
          rowLink={(b) => ({ href: `/dashboard/batches/${b.uuid}`, onOpen: () => navigate(`/batches/${b.uuid}`) })}
          empty={q.data ? t('batches.none') : undefined}
          columns={[
            { header: t('batches.filename'), cell: (b) => b.filename },
            { header: t('batches.type'), cell: (b) => t(`batches.${b.type}`) },
            { header: t('batches.status'), cell: (b) => <Status value={b.status} /> },
            { header: t('batches.execute_at_short', { tz: me.merchant.timezone }), cell: (b) => when(b.execute_at) },
            { header: t('batches.progress'), cell: (b) => <>{b.progress}% · {b.succeeded}/{b.total}{b.failed > 0 && <span className="muted"> ({b.failed} {t('batches.failed').toLowerCase()})</span>}</> },
            { header: t('batches.created'), cell: (b) => when(b.created_at) },
          ]}
        />
        {q.data?.next_offset != null && <button type="button" className="secondary more" onClick={() => setLimit(limit + 50)}>{t('batches.more')}</button>}
      </div>
    </section>
  );
}

/** The file as base64 (what H1/H2 take), without the data URL's prefix. */
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

/**
 * H1/H2 through the bridge. Sent with fetch rather than `v1` because a refused file's answer (422) names
 * every line's problem in `errors`, which the page lists.
 */
async function submit(me: Me, kind: 'authorizations' | 'refunds', body: { data: string; filename: string; execute_at: string | null }) {
  const res = await fetch(`${API}/v1/batch/${kind}`, {
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
  if (!res.ok) return { ok: false as const, details: String(data?.details ?? `${res.status} ${res.statusText}`), errors: (data?.errors ?? []) as LineProblem[] };
  return { ok: true as const, batch: (data as V1Answer<'/batch/authorizations' | '/batch/refunds', 'post'>).batch };
}

function Upload({ me }: { me: Me }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [kind, setKind] = useState<'authorizations' | 'refunds'>('authorizations');
  const [file, setFile] = useState<File | null>(null);
  const [executeAt, setExecuteAt] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [problems, setProblems] = useState<LineProblem[]>([]);
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setProblems([]);
    try {
      const data = await readBase64(file);
      // datetime-local gives YYYY-MM-DDTHH:mm: the API reads YYYY-MM-DD HH:mm:ss in the merchant's timezone
      const at = executeAt ? `${executeAt.replace('T', ' ')}${executeAt.length === 16 ? ':00' : ''}` : null;
      const r = await submit(me, kind, { data, filename: file.name, execute_at: at });
      if (!r.ok) {
        setError(r.details);
        setProblems(r.errors);
        return;
      }
      await qc.invalidateQueries({ queryKey: ['batches'] });
      navigate(`/batches/${r.batch.uuid}`);
    } catch {
      setError(t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby="batch-upload-title">
      <h2 id="batch-upload-title">{t('batches.upload')}</h2>
      <div className="batch-upload">
        <label>{t('batches.kind')}
          <select value={kind} onChange={(e) => setKind(e.target.value as typeof kind)} data-testid="batch-kind">
            <option value="authorizations">{t('batches.kind_payments')}</option>
            <option value="refunds">{t('batches.kind_refunds')}</option>
          </select>
        </label>
        <label>{t('batches.file')}
          <input type="file" accept=".csv,text/csv" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="batch-file" />
        </label>
        <label>{t('batches.execute_at', { tz: me.merchant.timezone })}
          <input type="datetime-local" value={executeAt} onChange={(e) => setExecuteAt(e.target.value)} data-testid="batch-execute-at" />
        </label>
        <button type="submit" className="primary" disabled={busy || !file}>{busy ? t('batches.uploading') : t('batches.submit')}</button>
        <p className="muted small hint">{kind === 'authorizations' ? t('batches.help_payments') : t('batches.help_refunds')} {t('batches.execute_hint')}</p>
      </div>
      {error && (
        <div role="alert" className="error batch-problems" data-testid="batch-error">
          <p><strong>{t('error.title')}:</strong> {problems.length > 0 ? t('batches.problems', { n: String(problems.length) }) : error}</p>
          {problems.length > 0 && (
            <DataTable
              tableProps={{ 'data-testid': 'batch-problems' }}
              rows={problems}
              rowKey={(p, i) => `${p.line}-${i}`}
              rowProps={(p) => ({ 'data-line': String(p.line) })}
              columns={[
                { header: t('batches.line'), className: 'num', cell: (p) => p.line },
                { header: t('batches.problem'), cell: (p) => p.msg },
              ]}
            />
          )}
        </div>
      )}
    </form>
  );
}

function BatchDetail({ me, uuid, canSeeOrders }: { me: Me; uuid: string; canSeeOrders: boolean }) {
  const { t, lang } = useT();
  const [limit, setLimit] = useState(200);
  const q = useQuery({
    queryKey: ['batch', me.merchant.uuid, me.env, uuid, limit],
    queryFn: () => v1<V1Answer<'/batch/{batch_uuid}', 'get'>>('GET', `/batch/${uuid}${qs({ limit })}`),
    refetchInterval: (query) => (query.state.data && query.state.data.batch.status === 'COMPLETED' ? false : 2000),
  });
  const [dlError, setDlError] = useState<string | null>(null);
  const b = q.data?.batch;
  const when = (iso: string) => dateTime(iso, lang, me.merchant.timezone);
  return (
    <section aria-labelledby="batch-title">
      <a className="back" href="/dashboard/batches" onClick={(e) => { e.preventDefault(); navigate('/batches'); }}>{t('batches.back')}</a>
      <div className="page-head"><h1 id="batch-title" className="break">{b ? b.filename : t('batches.title')}</h1></div>
      {q.error && <div role="alert" className="error">{q.error instanceof ApiError ? q.error.details : t('error.network')}</div>}
      {b && (
        <>
          <div className="card">
            <div className="batch-progress">
              <Status value={b.status} />
              <progress max={100} value={b.progress} aria-label={t('batches.progress')} data-testid="batch-progress" />
              <span data-testid="batch-percent">{b.progress}%</span>
            </div>
            <ul className="batch-counts">
              <li>{t('batches.lines')}: <strong>{b.total}</strong></li>
              <li>{t('batches.succeeded')}: <strong data-testid="batch-succeeded">{b.succeeded}</strong></li>
              <li>{t('batches.failed')}: <strong data-testid="batch-failed">{b.failed}</strong></li>
              <li>{t('batches.pending')}: <strong>{b.pending}</strong></li>
            </ul>
            <dl className="facts" style={{ marginTop: '.75rem' }}>
              <dt>{t('batches.type')}</dt><dd>{t(`batches.${b.type}`)}</dd>
              <dt>{t('batches.execute_at_short', { tz: me.merchant.timezone })}</dt><dd data-testid="batch-execute">{when(b.execute_at)}</dd>
              <dt>{t('batches.created')}</dt><dd>{when(b.created_at)}</dd>
              <dt>{t('batches.finished')}</dt><dd>{b.finished_at ? when(b.finished_at) : '—'}</dd>
            </dl>
            {b.status !== 'COMPLETED' && <p className="muted small" aria-live="polite">{t('batches.live')}</p>}
            <div className="action-row" style={{ marginTop: '.75rem' }}>
              <button type="button" className="secondary" data-testid="batch-download" onClick={async () => {
                setDlError(null);
                try {
                  await download(`/v1/batch/${uuid}/results.csv`, `${b.filename.replace(/\.csv$/i, '')}-results.csv`);
                } catch (err) {
                  setDlError(err instanceof ApiError ? err.details : t('error.network'));
                }
              }}>{t('batches.download')}</button>
            </div>
            {dlError && <div role="alert" className="error">{dlError}</div>}
          </div>
          <div className="table-wrap card">
            <DataTable
              tableProps={{ 'data-testid': 'batch-lines' }}
              rows={q.data?.lines ?? []}
              rowKey={(l) => String(l.line)}
              rowProps={(l) => ({ 'data-line': String(l.line) })}
              columns={[
                { header: t('batches.line'), className: 'num', cell: (l) => l.line },
                { header: t('batches.status'), cell: (l) => <Status value={l.status} /> },
                {
                  header: t('batches.order'),
                  className: 'mono',
                  cell: (l) => (canSeeOrders
                    ? <a href={`/dashboard/payments/${l.order_uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${l.order_uuid}`); }}>{l.order_uuid.slice(0, 8)}</a>
                    : <span title={l.order_uuid}>{l.order_uuid.slice(0, 8)}</span>),
                },
                { header: t('batches.amount'), className: 'num', cell: (l) => l.amount ?? '—' },
                { header: t('batches.outcome'), cell: (l) => l.outcome ?? '—' },
                { header: t('batches.error'), cell: (l) => l.error ?? '' },
              ]}
            />
            {q.data?.next_offset != null && <button type="button" className="secondary more" onClick={() => setLimit(limit + 200)}>{t('batches.more')}</button>}
          </div>
        </>
      )}
    </section>
  );
}
