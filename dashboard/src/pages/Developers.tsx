/**
 * The developers section (MANAGER): API keys (create with profiles, secret shown once, prefix, last use,
 * revoke), the url_post deliveries (filter by state, resend), and the request log (every API request of
 * the merchant with its redacted bodies, found by request id).
 */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, qs, type Answer, type Me } from '../api';
import { dateTime, statusLabel, useT } from '../i18n';
import { navigate } from '../router';
import { Status } from '../components/Status';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';

const PROFILES = ['all', 'payment', 'refund', 'readonly', 'card', 'tokenize', 'moto', 'batch_authorization', 'batch_refund', 'keyentry'];

export function Developers({ me, tab }: { me: Me; tab: 'keys' | 'deliveries' | 'requests' }) {
  const { t } = useT();
  const tabs = [
    ['keys', t('dev.keys')],
    ['deliveries', t('dev.deliveries')],
    ['requests', t('dev.requests')],
  ] as const;
  return (
    <section aria-labelledby="dev-title">
      <div className="page-head"><h1 id="dev-title">{t('nav.developers')}</h1></div>
      <div className="tabs" role="navigation" aria-label={t('nav.developers')}>
        {tabs.map(([k, label]) => (
          <a key={k} href={`/dashboard/developers/${k}`} aria-current={tab === k ? 'page' : undefined} onClick={(e) => { e.preventDefault(); navigate(`/developers/${k}`); }}>{label}</a>
        ))}
      </div>
      {tab === 'keys' && <Keys me={me} />}
      {tab === 'deliveries' && <Deliveries me={me} />}
      {tab === 'requests' && <Requests me={me} />}
    </section>
  );
}

function Keys({ me }: { me: Me }) {
  const { t, lang } = useT();
  const at = (iso: string) => dateTime(iso, lang, me.merchant.timezone);
  const qc = useQueryClient();
  const keys = useQuery({ queryKey: ['keys', me.merchant.uuid], queryFn: () => api<Answer<'/developers/keys', 'get'>>('GET', '/developers/keys') });
  const [profiles, setProfiles] = useState<string[]>(['payment', 'refund']);
  const [description, setDescription] = useState('');
  const [issued, setIssued] = useState<Pick<Answer<'/developers/keys', 'post'>, 'api_key' | 'signature'> | null>(null);
  const canWrite = me.permissions.includes('developers.keys');
  return (
    <>
      {canWrite && (
        <div className="card">
          <h2>{t('dev.new_key')}</h2>
          <fieldset className="checks">
            <legend>{t('dev.profiles')}</legend>
            {PROFILES.map((p) => (
              <label key={p} className="check">
                <input type="checkbox" checked={profiles.includes(p)} onChange={(e) => setProfiles(e.target.checked ? [...profiles, p] : profiles.filter((x) => x !== p))} />
                {p}
              </label>
            ))}
          </fieldset>
          <label>{t('dev.description')}<input value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} /></label>
          <ConfirmDialog
            trigger={<button type="button" className="primary" disabled={profiles.length === 0} data-testid="create-key">{t('dev.create_key')}</button>}
            title={t('dev.create_key')}
            message={profiles.join(', ')}
            onConfirm={async () => {
              const r = await api<Answer<'/developers/keys', 'post'>>('POST', '/developers/keys', { profiles, description: description || null });
              setIssued({ api_key: r.api_key, signature: r.signature });
              await qc.invalidateQueries({ queryKey: ['keys'] });
            }}
          />
          {issued && (
            <div className="notice" role="status" data-testid="issued-key">
              <p><strong>{t('dev.shown_once')}</strong></p>
              <p className="mono break">API key: {issued.api_key}</p>
              <p className="mono break">Signature: {issued.signature}</p>
              <button type="button" className="secondary" onClick={() => setIssued(null)}>{t('dev.hide')}</button>
            </div>
          )}
        </div>
      )}
      <div className="table-wrap card">
        <DataTable
          rows={keys.data?.keys ?? []}
          rowKey={(k) => k.uuid}
          rowProps={(k) => ({ 'data-uuid': k.uuid })}
          columns={[
            { header: t('dev.prefix'), className: 'mono', cell: (k) => `${k.prefix}…` },
            { header: t('dev.profiles'), cell: (k) => k.profiles.join(', ') },
            { header: t('dev.description'), cell: (k) => k.description ?? '' },
            { header: t('dev.created'), cell: (k) => at(k.created_at) },
            { header: t('dev.last_used'), cell: (k) => (k.last_used_at ? at(k.last_used_at) : '—') },
            {
              header: t('col.status'),
              cell: (k) => (k.revoked_at ? <span className="badge badge-neutral">{t('dev.revoked')}</span> : canWrite ? (
                <ConfirmDialog
                  trigger={<button type="button" className="secondary small-button">{t('dev.revoke')}</button>}
                  title={t('dev.revoke')}
                  message={t('dev.revoke_confirm', { prefix: k.prefix })}
                  onConfirm={async () => { await api('POST', `/developers/keys/${k.uuid}/revoke`); await qc.invalidateQueries({ queryKey: ['keys'] }); }}
                />
              ) : <span className="badge badge-ok">{t('dev.active')}</span>),
            },
          ]}
        />
      </div>
    </>
  );
}

function Deliveries({ me }: { me: Me }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [status, setStatus] = useState('');
  const q = useQuery({ queryKey: ['deliveries', me.merchant.uuid, status], queryFn: () => api<Answer<'/developers/deliveries', 'get'>>('GET', `/developers/deliveries${qs({ status })}`) });
  return (
    <>
      <div className="card filters">
        <label>{t('col.status')}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">{t('payments.any')}</option>
            {['PENDING', 'DELIVERED', 'FAILED'].map((s) => <option key={s} value={s}>{statusLabel(s, t)}</option>)}
          </select>
        </label>
      </div>
      <div className="table-wrap card">
        <DataTable
          rows={q.data?.events ?? []}
          rowKey={(e) => e.uuid}
          columns={[
            { header: t('col.created'), cell: (e) => e.created },
            { header: t('col.status'), cell: (e) => <Status value={e.status} /> },
            { header: 'URL', className: 'mono small break', cell: (e) => e.url },
            { header: t('order.attempts'), cell: (e) => e.attempts },
            { header: t('order.title'), cell: (e) => e.order_uuid && <a href={`/dashboard/payments/${e.order_uuid}`} onClick={(x) => { x.preventDefault(); navigate(`/payments/${e.order_uuid}`); }}>{e.order_uuid.slice(0, 8)}</a> },
            {
              header: t('order.actions'),
              cell: (e) => me.permissions.includes('notifications.resend') && (
                <ConfirmDialog
                  trigger={<button type="button" className="secondary small-button">{t('order.resend')}</button>}
                  title={t('order.resend')}
                  message={t('confirm.resend')}
                  onConfirm={async () => { await api('POST', `/notifications/${e.uuid}/resend`); await qc.invalidateQueries({ queryKey: ['deliveries'] }); }}
                />
              ),
            },
          ]}
        />
      </div>
    </>
  );
}

function pretty(body: string | null | undefined): string {
  if (!body) return '—';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Requests({ me }: { me: Me }) {
  const { t, lang } = useT();
  const [filter, setFilter] = useState<{ request_id?: string; status?: string }>({});
  const [open, setOpen] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['requests', filter], queryFn: () => api<Answer<'/developers/requests', 'get'>>('GET', `/developers/requests${qs(filter)}`) });
  const detail = useQuery({ queryKey: ['request', open], enabled: !!open, queryFn: () => api<Answer<'/developers/requests/{uuid}', 'get'>>('GET', `/developers/requests/${open}`) });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setFilter({ request_id: String(f.get('request_id') ?? '').trim() || undefined, status: String(f.get('status') ?? '') || undefined });
  };
  return (
    <>
      <form className="card filters" onSubmit={submit} role="search">
        <label className="grow">{t('dev.request_id')}<input name="request_id" className="mono" /></label>
        <label>{t('col.status')}
          <select name="status" defaultValue="">
            <option value="">{t('payments.any')}</option>
            <option value="ok">2xx/3xx</option>
            <option value="error">4xx/5xx</option>
          </select>
        </label>
        <div className="filter-buttons"><button type="submit" className="primary">{t('payments.apply')}</button></div>
      </form>
      {list.data && <p className="muted small">{t('dev.retention', { days: String(list.data.retention_days) })}</p>}
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'requests' }}
          rows={list.data?.requests ?? []}
          rowKey={(r) => r.uuid}
          rowProps={(r) => ({ 'data-uuid': r.uuid })}
          columns={[
            { header: t('col.created'), cell: (r) => <button type="button" className="link" aria-expanded={open === r.uuid} onClick={() => setOpen(open === r.uuid ? null : r.uuid)}>{dateTime(r.created_at, lang, me.merchant.timezone, true)}</button> },
            { header: t('dev.method'), cell: (r) => r.method },
            { header: t('dev.path'), className: 'mono small break', cell: (r) => r.path },
            { header: t('col.status'), cell: (r) => <span className={`badge ${r.status < 400 ? 'badge-ok' : 'badge-bad'}`}>{r.status}</span> },
            { header: 'ms', cell: (r) => r.duration_ms },
            { header: t('dev.request_id'), className: 'mono small break', cell: (r) => r.request_id },
          ]}
        />
      </div>
      {open && detail.data && (
        <div className="card" data-testid="request-detail">
          <h2>{detail.data.request.method} {detail.data.request.path}</h2>
          <p className="small muted">{t('dev.request_id')}: <span className="mono">{detail.data.request.request_id}</span>{detail.data.request.idempotency_key ? ` · Idempotency-Key: ${detail.data.request.idempotency_key}` : ''}</p>
          <div className="grid2">
            <div><h3>{t('dev.request_body')}</h3><pre className="body" data-testid="request-body" tabIndex={0} aria-label={t('dev.request_body')}>{pretty(detail.data.request.request_body)}</pre></div>
            <div><h3>{t('dev.response_body')}</h3><pre className="body" data-testid="response-body" tabIndex={0} aria-label={t('dev.response_body')}>{pretty(detail.data.request.response_body)}</pre></div>
          </div>
        </div>
      )}
    </>
  );
}
