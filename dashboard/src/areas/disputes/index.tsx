/**
 * Disputes (ours, docs/disputes.md): the disputes of the merchant's payments, newest first, by status,
 * with their deadlines; a dispute's page with what it means for its order, its evidence (text by field,
 * PDF/PNG/JPEG documents), submitting or accepting it, and its history; the dispute ratio against the
 * schemes' programmes. Everything goes through the merchant API (the bridge).
 */
import { useState, type FormEvent } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, qs, v1, type V1Answer, type V1Schema } from '../../api';
import { dateTime, money, useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import './area.css';

type Dispute = V1Schema<'Dispute'>;
type DisputeAnswer = V1Answer<'/disputes/{dispute_uuid}', 'get'>;
type ListAnswer = V1Answer<'/disputes', 'get'>;

const STATUSES = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED', 'EXPIRED'] as const;
const TONE: Record<string, string> = { NEEDS_RESPONSE: 'warn', UNDER_REVIEW: 'neutral', WON: 'ok', LOST: 'bad', ACCEPTED: 'bad', EXPIRED: 'bad' };
const UUID_RE = /^\/([0-9a-f-]{36})$/i;

const errorText = (e: unknown, t: (k: Key) => string) => (e instanceof ApiError ? e.details : t('error.network'));

function Status({ value }: { value: string }) {
  const { t } = useT();
  return <span className={`badge badge-${TONE[value] ?? 'neutral'}`} data-status={value}>{t(`disputes.status.${value}` as Key)}</span>;
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

export function DisputesPage(props: AreaProps) {
  const m = UUID_RE.exec(props.sub.split('?')[0]);
  if (m) return <DisputeDetail {...props} uuid={m[1]} />;
  return <DisputeList {...props} />;
}

function DisputeList({ me }: AreaProps) {
  const { t, lang } = useT();
  const [status, setStatus] = useState('');
  const list = useInfiniteQuery({
    queryKey: ['disputes', me.merchant.uuid, me.env, status],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => v1<ListAnswer>('GET', `/disputes${qs({ status: status || undefined, limit: 50, cursor: pageParam })}`),
    getNextPageParam: (last) => last.next_cursor,
  });
  const rows: Dispute[] = list.data?.pages.flatMap((p) => p.disputes) ?? [];
  return (
    <section aria-labelledby="disputes-title">
      <div className="page-head"><h1 id="disputes-title">{t('disputes.title')}</h1></div>
      <div className="table-wrap card">
        <label>{t('disputes.status')}{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value)} data-testid="disputes-status-filter">
            <option value="">{t('disputes.all')}</option>
            {STATUSES.map((s) => <option key={s} value={s}>{t(`disputes.status.${s}` as Key)}</option>)}
          </select>
        </label>
        {list.error && <div role="alert" className="error">{errorText(list.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'disputes-list', 'aria-labelledby': 'disputes-title' }}
          rows={rows}
          rowKey={(d) => d.uuid}
          rowProps={(d) => ({ 'data-uuid': d.uuid, 'data-status': d.status })}
          rowLink={(d) => ({ href: `/dashboard/disputes/${d.uuid}`, onOpen: () => navigate(`/disputes/${d.uuid}`) })}
          empty={list.data ? t('disputes.none') : undefined}
          columns={[
            { header: t('disputes.received'), cell: (d) => dateTime(d.created_at, lang, me.merchant.timezone) },
            { header: t('disputes.status'), cell: (d) => <Status value={d.status} /> },
            { header: t('disputes.reason'), cell: (d) => <>{t(`disputes.category.${d.category}` as Key)} <span className="muted small">{d.acquirer} {d.reason_code}</span></> },
            { header: t('disputes.amount'), className: 'num', cell: (d) => money(d.amount, d.currency, lang) },
            { header: t('disputes.stage'), cell: (d) => t(`disputes.stage.${d.stage}` as Key) },
            { header: t('disputes.due'), cell: (d) => (d.status === 'NEEDS_RESPONSE' ? dateTime(d.evidence_due_at, lang, me.merchant.timezone) : '—') },
          ]}
        />
        {list.hasNextPage && <button type="button" className="secondary more" onClick={() => list.fetchNextPage()}>{t('disputes.more')}</button>}
      </div>
      <Ratios me={me} />
    </section>
  );
}

function Ratios({ me }: { me: AreaProps['me'] }) {
  const { t } = useT();
  const ratios = useQuery({
    queryKey: ['dispute-ratios', me.merchant.uuid, me.env],
    queryFn: () => v1<V1Answer<'/disputes/ratios', 'get'>>('GET', '/disputes/ratios?months=3'),
  });
  const rows = (ratios.data?.ratios ?? []).filter((r) => r.scheme !== 'OTHER');
  return (
    <div className="table-wrap card">
      <h2 id="dispute-ratios-title">{t('disputes.ratios')}</h2>
      <DataTable
        tableProps={{ 'data-testid': 'dispute-ratios', 'aria-labelledby': 'dispute-ratios-title' }}
        rows={rows}
        rowKey={(r) => `${r.month}-${r.scheme}`}
        rowProps={(r) => ({ 'data-standing': r.standing })}
        columns={[
          { header: t('disputes.month'), cell: (r) => r.month },
          { header: t('disputes.scheme'), cell: (r) => <>{r.scheme} <span className="muted small">{r.programme}</span></> },
          { header: t('disputes.ratio'), className: 'num', cell: (r) => <>{(r.ratio * 100).toFixed(2)} % <span className="muted small">({r.disputes} / {r.sales})</span></> },
          { header: t('disputes.standing'), cell: (r) => <span className={`badge badge-${r.standing === 'EXCEEDED' ? 'bad' : r.standing === 'WARNING' ? 'warn' : 'ok'}`}>{t(`disputes.standing.${r.standing}` as Key)}</span> },
        ]}
      />
    </div>
  );
}

function DisputeDetail({ me, can, uuid }: AreaProps & { uuid: string }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const key = ['dispute', me.merchant.uuid, me.env, uuid];
  const q = useQuery({ queryKey: key, queryFn: () => v1<DisputeAnswer>('GET', `/disputes/${uuid}`) });
  const [field, setField] = useState('');
  const [text, setText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (q.error) return <div role="alert" className="error">{errorText(q.error, t)}</div>;
  if (!q.data) return <p className="muted">{t('disputes.loading')}</p>;
  const d = q.data.dispute;
  const totals = q.data.order_totals;
  const tz = me.merchant.timezone;
  const respond = can('disputes.respond') && d.status === 'NEEDS_RESPONSE';
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await qc.invalidateQueries({ queryKey: key });
      await qc.invalidateQueries({ queryKey: ['disputes'] });
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const addEvidence = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      const documents = await Promise.all(files.map(async (f) => ({ filename: f.name, data: await readBase64(f), field: field || undefined })));
      await v1('POST', `/disputes/${uuid}/evidence`, { fields: field && text ? { [field]: text } : undefined, documents: documents.length > 0 ? documents : undefined });
      setText('');
      setFiles([]);
    });
  };
  return (
    <section aria-labelledby="dispute-title" data-testid="dispute-detail" data-status={d.status}>
      <div className="page-head">
        <h1 id="dispute-title">{t('disputes.dispute')} <Status value={d.status} /></h1>
        <a href="/dashboard/disputes" onClick={(e) => { e.preventDefault(); navigate('/disputes'); }}>{t('disputes.back')}</a>
      </div>
      <div className="card">
        <dl className="facts">
          <dt>{t('disputes.amount')}</dt><dd>{money(d.amount, d.currency, lang)}</dd>
          <dt>{t('disputes.reason')}</dt><dd>{t(`disputes.category.${d.category}` as Key)} ({d.reason_code})</dd>
          <dt>{t('disputes.stage')}</dt><dd>{t(`disputes.stage.${d.stage}` as Key)}</dd>
          <dt>{t('disputes.acquirer')}</dt><dd>{d.acquirer}{d.provider_id ? ` · ${d.provider_id}` : ''}</dd>
          <dt>{t('disputes.due')}</dt><dd data-testid="dispute-due">{dateTime(d.evidence_due_at, lang, tz)}</dd>
          <dt>{t('disputes.order')}</dt>
          <dd>
            {can('payments.read')
              ? <a href={`/dashboard/payments/${d.order_uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${d.order_uuid}`); }}>{d.order_uuid.slice(0, 8)}</a>
              : d.order_uuid.slice(0, 8)}
            {totals.currency && <span className="muted small" data-testid="dispute-order-totals"> {t('disputes.totals', { disputed: money(totals.disputed, totals.currency, lang), lost: money(totals.lost, totals.currency, lang), won: money(totals.won, totals.currency, lang) })}</span>}
          </dd>
        </dl>
      </div>
      {error && <div role="alert" className="error" data-testid="dispute-error">{error}</div>}
      <div className="card">
        <h2>{t('disputes.evidence')}</h2>
        {d.evidence.length === 0 ? <p className="empty">{t('disputes.no_evidence')}</p> : (
          <ul data-testid="dispute-evidence">
            {d.evidence.map((x) => <li key={x.uuid}><strong>{x.kind === 'TEXT' ? x.name.replace(/_/g, ' ') : x.name}</strong>{x.kind === 'TEXT' ? `: ${x.text}` : ` (${x.content_type}, ${Math.ceil(x.size / 1024)} KiB)`}</li>)}
          </ul>
        )}
        {respond && (
          <form onSubmit={addEvidence} className="dispute-form" data-testid="dispute-evidence-form">
            <label>{t('disputes.field')}
              <select value={field} onChange={(e) => setField(e.target.value)}>
                <option value="">—</option>
                {d.evidence_fields.map((f) => <option key={f} value={f}>{f.replace(/_/g, ' ')}</option>)}
              </select>
            </label>
            <label>{t('disputes.text')}<textarea value={text} maxLength={20000} onChange={(e) => setText(e.target.value)} /></label>
            <label>{t('disputes.documents')}<input type="file" multiple accept="application/pdf,image/png,image/jpeg" onChange={(e) => setFiles([...(e.target.files ?? [])])} /></label>
            <p className="muted small">{t('disputes.rules')}</p>
            <button type="submit" disabled={busy || (!(field && text) && files.length === 0)}>{t('disputes.add')}</button>
          </form>
        )}
        {respond && (
          <div className="dispute-actions">
            <button type="button" disabled={busy || d.evidence.length === 0} data-testid="dispute-submit" onClick={() => void act(() => v1('POST', `/disputes/${uuid}/submit`))}>{t('disputes.submit')}</button>
            <button type="button" className="secondary" disabled={busy} data-testid="dispute-accept" onClick={() => { if (window.confirm(t('disputes.accept_confirm'))) void act(() => v1('POST', `/disputes/${uuid}/accept`)); }}>{t('disputes.accept')}</button>
          </div>
        )}
      </div>
      <div className="table-wrap card">
        <h2 id="dispute-history-title">{t('disputes.history')}</h2>
        <DataTable
          tableProps={{ 'aria-labelledby': 'dispute-history-title', 'data-testid': 'dispute-history' }}
          rows={d.history}
          rowKey={(_, i) => String(i)}
          rowProps={(h) => ({ 'data-event': h.event })}
          columns={[
            { header: t('disputes.when'), cell: (h) => dateTime(h.at, lang, tz, true) },
            { header: t('disputes.what'), cell: (h) => <>{h.event} {h.from_status && h.from_status !== h.to_status ? `${h.from_status} → ` : ''}{h.to_status} <span className="muted small">{h.detail}</span></> },
            { header: t('disputes.who'), className: 'mono small', cell: (h) => h.actor },
          ]}
        />
      </div>
    </section>
  );
}
