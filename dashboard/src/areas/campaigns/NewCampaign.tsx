/**
 * A new MoTo campaign: a CSV file (parsed here for the preview; the file itself is sent, base64, as G1
 * takes it) or payments typed in a table (G2). A refused campaign (422) shows each line's problems
 * beside the line; nothing is created then.
 */
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { parse } from 'csv-parse/browser/esm/sync';
import { ApiError, api, v1, type Answer, type V1Answer, type V1Schema } from '../../api';
import { toMinor, useT } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { toCampaigns } from './index';

/** One problem of one line of a refused campaign (the 422's `errors`). */
type LineError = V1Schema<'LineProblem'>;
interface Typed { amount: string; destination: string; operative: string }

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** The rows of a CSV for the preview: header, then each record with its line number (the header is line 1). */
export function previewOf(text: string): { header: string[]; rows: { line: number; cells: string[] }[] } | { error: string } {
  try {
    const records = parse(text, { relax_column_count: true, skip_empty_lines: false, bom: true }) as string[][];
    const [header = [], ...rest] = records;
    const rows = rest.map((cells, i) => ({ line: i + 2, cells })).filter((r) => r.cells.some((c) => c.trim() !== ''));
    return { header, rows };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The file as G1 takes it: `data:text/csv;base64,...` of its bytes. */
function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(`data:text/csv;base64,${String(r.result).split(',')[1] ?? ''}`);
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

export function NewCampaign({ me }: AreaProps) {
  const { t } = useT();
  const services = useQuery({ queryKey: ['campaign-services', me.merchant.uuid, me.env], queryFn: () => api<Answer<'/campaigns/services', 'get'>>('GET', '/campaigns/services') });
  const enabled = (services.data?.services ?? []).filter((s) => s.enabled);
  const [form, setForm] = useState({ description: '', type: 'MAIL', service: '', expires: inDays(7), subject: '' });
  const [entry, setEntry] = useState<'FILE' | 'JSON'>('FILE');
  const [file, setFile] = useState<{ file: File; text: string } | null>(null);
  const [typed, setTyped] = useState<Typed[]>([{ amount: '', destination: '', operative: 'AUTHORIZATION' }]);
  /** the change of one field of a typed row */
  const upd = (i: number, k: keyof Typed) => (e: { target: { value: string } }) => setTyped(typed.map((x, j) => (j === i ? { ...x, [k]: e.target.value } : x)));
  const [errors, setErrors] = useState<LineError[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const service = form.service || enabled[0]?.uuid || '';
  // typed amounts are in the currency of the service's terminal (JPY has no decimals, KWD three)
  const currency = enabled.find((x) => x.uuid === service)?.currency ?? 'EUR';
  const minorOf = (p: Typed) => toMinor(p.amount, currency);
  const preview = useMemo(() => (file ? previewOf(file.text) : null), [file]);
  const byLine = useMemo(() => {
    const m = new Map<number, string[]>();
    for (const e of errors) m.set(e.line, [...(m.get(e.line) ?? []), e.msg]);
    return m;
  }, [errors]);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  const send = async () => {
    setBusy(true);
    setErrors([]);
    setFailure(null);
    const common = { description: form.description, expires_at: form.expires, service_uuid: service, subject: form.subject || null, type: form.type };
    try {
      const r = entry === 'FILE'
        ? await v1<V1Answer<'/moto/campaign/file', 'post'>>('POST', '/moto/campaign/file', { ...common, file: await dataUrlOf(file!.file), filename: file!.file.name })
        : await v1<V1Answer<'/moto/campaign', 'post'>>('POST', '/moto/campaign', {
            ...common,
            payments: typed.map((p) => ({ amount: minorOf(p)!, operative: p.operative, secure: false, destination: p.destination.trim() || null })),
          });
      navigate(`/campaigns/${r.detail.uuid}`);
    } catch (e) {
      if (e instanceof ApiError && Array.isArray(e.body?.errors)) setErrors(e.body.errors.filter((x: LineError) => typeof x?.line === 'number'));
      setFailure(e instanceof ApiError ? e.details : String(e));
    } finally {
      setBusy(false);
    }
  };

  const ready = form.description.trim() !== '' && service !== '' && (entry === 'FILE' ? !!preview && !('error' in preview) && preview.rows.length > 0 : typed.every((p) => (minorOf(p) ?? 0) > 0));

  return (
    <section aria-labelledby="new-campaign-title">
      <a className="back" href="/dashboard/campaigns" onClick={(e) => toCampaigns(e)}>← {t('campaigns.back')}</a>
      <div className="page-head"><h1 id="new-campaign-title">{t('campaigns.new')}</h1></div>
      <div className="card">
        <div className="filter-grid">
          <label>{t('campaigns.description')}<input name="description" maxLength={255} value={form.description} onChange={set('description')} /></label>
          <label>{t('campaigns.type')}
            <select name="type" value={form.type} onChange={set('type')}>
              {['MAIL', 'PHONE', 'CUSTOM_DELIVERY'].map((x) => <option key={x} value={x}>{t(`campaigns.type.${x}` as 'campaigns.type.MAIL')}</option>)}
            </select>
          </label>
          <label>{t('campaigns.service')}
            <select name="service" value={service} onChange={set('service')}>
              {enabled.map((s) => <option key={s.uuid} value={s.uuid}>{s.name}</option>)}
            </select>
          </label>
          <label>{t('campaigns.expires')}<input name="expires" type="date" value={form.expires} onChange={set('expires')} /></label>
          <label className="campaign-wide">{t('campaigns.subject')}<input name="subject" maxLength={255} value={form.subject} onChange={set('subject')} /></label>
        </div>
      </div>
      <div className="card">
        <fieldset className="checks campaign-entry">
          <legend className="sr-only">{t('campaigns.entry')}</legend>
          {(['FILE', 'JSON'] as const).map((x) => (
            <label key={x} className="check"><input type="radio" name="entry" checked={entry === x} onChange={() => { setEntry(x); setErrors([]); setFailure(null); }} />{t(`campaigns.entry.${x}`)}</label>
          ))}
        </fieldset>
        {entry === 'FILE' ? (
          <>
            <label>{t('campaigns.file')}
              <input type="file" accept=".csv,text/csv" onChange={async (e) => { const f = e.target.files?.[0]; setErrors([]); setFailure(null); setFile(f ? { file: f, text: await f.text() } : null); }} />
            </label>
            <p className="muted small">{t('campaigns.file_help')}</p>
            {preview && 'error' in preview && <p className="error" role="alert">{preview.error}</p>}
            {preview && !('error' in preview) && (
              <>
                <h2>{t('campaigns.preview', { rows: String(preview.rows.length) })}</h2>
                <div className="table-wrap">
                  <DataTable
                    className="orders campaign-preview"
                    tableProps={{ 'data-testid': 'preview' }}
                    rows={preview.rows}
                    rowKey={(r) => String(r.line)}
                    rowProps={(r) => ({ 'data-line': String(r.line), className: byLine.has(r.line) ? 'line-bad' : undefined })}
                    columns={[
                      { header: t('campaigns.line'), className: 'num', cell: (r) => <>{r.line}{byLine.has(r.line) && <span className="line-error" data-testid={`line-error-${r.line}`}>{byLine.get(r.line)!.join(' · ')}</span>}</> },
                      ...preview.header.map((h, i) => ({ header: h, cell: (r: (typeof preview.rows)[number]) => r.cells[i] ?? '' })),
                    ]}
                  />
                </div>
              </>
            )}
          </>
        ) : (
          <div className="table-wrap">
            <DataTable
              tableProps={{ 'data-testid': 'typed' }}
              rows={typed}
              rowKey={(_, i) => String(i)}
              rowProps={(_, i) => ({ 'data-line': String(i + 1), className: byLine.has(i + 1) ? 'line-bad' : undefined })}
              columns={[
                { header: t('campaigns.line'), className: 'num', cell: (_, i) => <>{i + 1}{byLine.has(i + 1) && <span className="line-error" data-testid={`line-error-${i + 1}`}>{byLine.get(i + 1)!.join(' · ')}</span>}</> },
                { header: <>{t('campaigns.amount')} ({currency})</>, label: t('campaigns.amount'), cell: (p, i) => <input aria-label={`${t('campaigns.amount')} ${i + 1}`} inputMode="decimal" value={p.amount} aria-invalid={p.amount.trim() !== '' && !((minorOf(p) ?? 0) > 0)} onChange={upd(i, 'amount')} /> },
                { header: t('campaigns.destination'), cell: (p, i) => <input aria-label={`${t('campaigns.destination')} ${i + 1}`} value={p.destination} onChange={upd(i, 'destination')} /> },
                {
                  header: t('campaigns.operative'),
                  cell: (p, i) => (
                    <select aria-label={`${t('campaigns.operative')} ${i + 1}`} value={p.operative} onChange={upd(i, 'operative')}>
                      <option value="AUTHORIZATION">AUTHORIZATION</option>
                      <option value="DEFERRED">DEFERRED</option>
                    </select>
                  ),
                },
                { header: <span className="sr-only">{t('order.actions')}</span>, cell: (_, i) => typed.length > 1 && <button type="button" className="link" onClick={() => setTyped(typed.filter((_, j) => j !== i))}>{t('campaigns.remove_row', { line: String(i + 1) })}</button> },
              ]}
            />
            <button type="button" className="secondary" onClick={() => setTyped([...typed, { amount: '', destination: '', operative: 'AUTHORIZATION' }])}>{t('campaigns.add_row')}</button>
          </div>
        )}
      </div>
      {failure && (
        <div className="error" role="alert" data-testid="campaign-errors">
          <p>{errors.length > 0 ? t('campaigns.errors') : failure}</p>
          {errors.length > 0 && <ul>{errors.map((e, i) => <li key={i}>{t('campaigns.line_error', { line: String(e.line), msg: e.msg })}</li>)}</ul>}
        </div>
      )}
      <button type="button" className="primary" disabled={!ready || busy} onClick={send}>{t('campaigns.send')}</button>
    </section>
  );
}
