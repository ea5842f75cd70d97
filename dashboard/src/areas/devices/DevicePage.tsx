/**
 * One device: its connection and status, enable/disable and a new token (terminals.manage), sending it
 * a payment or pre-authorization (devices.operate) then following it live, and what it did (the sent
 * operations with their state, its card-present operations with STAN and RRN, refunds sent to it).
 */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, v1, type Answer, type V1Answer } from '../../api';
import { dateTime, money, toMinor, useT } from '../../i18n';
import { navigate } from '../../router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { Follow } from './Follow';
import { battery, Connection, OpState, TokenOnce, type Device } from './shared';

export function DevicePage({ me, can, id, follow }: AreaProps & { id: string; follow: string | null }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const dq = useQuery({ queryKey: ['device', me.env, me.merchant.uuid, id], queryFn: () => v1<V1Answer<'/device/{id}', 'get'>>('GET', `/device/${id}`), refetchInterval: 5000 });
  const ops = useQuery({
    queryKey: ['device-ops', me.env, me.merchant.uuid, id],
    queryFn: () => api<Answer<'/devices/{id}/operations', 'get'>>('GET', `/devices/${id}/operations`),
    refetchInterval: 5000,
  });
  const [token, setToken] = useState<string | null>(null);
  if (dq.isPending) return <p>{t('loading')}</p>;
  if (dq.isError) return <div role="alert" className="error">{(dq.error as Error).message}</div>;
  const d = dq.data.device;
  const currency = ops.data?.currency ?? 'EUR';
  const refresh = () => qc.invalidateQueries({ queryKey: ['device'] }).then(() => qc.invalidateQueries({ queryKey: ['devices'] }));
  const open = (order: string | null) => navigate(`/devices/${id}${order ? `?follow=${order}` : ''}`);
  return (
    <section aria-labelledby="device-title">
      <a className="back" href="/dashboard/devices" onClick={(e) => { e.preventDefault(); navigate('/devices'); }}>← {t('devices.back')}</a>
      <div className="page-head">
        <h1 id="device-title">{d.identifier}</h1>
        <Connection d={d} />
        {d.active ? <span className="badge badge-ok">{t('devices.enabled')}</span> : <span className="badge badge-bad" data-testid="device-disabled">{t('devices.disabled')}</span>}
      </div>
      {follow && (
        <Follow me={me} can={can} device={d} order={follow} currency={currency} onClose={() => open(null)} />
      )}
      <div className="grid2">
        <div className="card">
          <dl className="facts">
            <dt>{t('devices.name')}</dt><dd>{d.properties.name ?? '—'}</dd>
            <dt>{t('devices.model')}</dt><dd>{d.properties.model ?? '—'}</dd>
            <dt>{t('devices.tid')}</dt><dd className="mono">{d.terminal_id}</dd>
            <dt>{t('devices.mid')}</dt><dd className="mono">{d.mid}</dd>
            <dt>{t('devices.type')}</dt><dd>{d.communication.type}</dd>
            <dt>{t('devices.configured')}</dt><dd>{d.configured ? t('devices.yes') : t('devices.no')}</dd>
            <dt>{t('devices.pending')}</dt><dd className="num">{d.status.pending_transactions}</dd>
            <dt>{t('devices.battery')}</dt><dd>{battery(d, t('devices.charging'))}</dd>
            <dt>{t('devices.network')}</dt><dd>{[d.status.connection_type, d.status.connection_quality].filter(Boolean).join(' · ') || '—'}</dd>
            <dt>{t('devices.system')}</dt><dd>{[d.properties.system_name, d.properties.system_version].filter(Boolean).join(' ') || '—'}</dd>
            <dt>{t('devices.build')}</dt><dd>{d.status.build_version ?? '—'}</dd>
            <dt>{t('devices.last_activity')}</dt><dd>{dateTime(d.updated_at, lang, me.merchant.timezone)}</dd>
          </dl>
          {can('terminals.manage') && (
            <>
              <h2 className="sub-h">{t('devices.manage')}</h2>
              <div className="action-row">
                <ConfirmDialog
                  trigger={<button type="button" className="secondary">{d.active ? t('devices.disable') : t('devices.enable')}</button>}
                  title={d.active ? t('devices.disable') : t('devices.enable')}
                  message={t(d.active ? 'devices.confirm_disable' : 'devices.confirm_enable', { identifier: d.identifier })}
                  onConfirm={async () => { await v1('PUT', `/device/${d.id}/enabled`, { enabled: !d.active }); await refresh(); }}
                />
                <ConfirmDialog
                  trigger={<button type="button" className="secondary">{t('devices.rotate')}</button>}
                  title={t('devices.rotate')}
                  message={t('devices.confirm_rotate', { identifier: d.identifier })}
                  onConfirm={async () => { const r = await v1<V1Answer<'/device/{id}/token', 'post'>>('POST', `/device/${d.id}/token`); setToken(r.token); await refresh(); }}
                />
              </div>
              {token && <TokenOnce token={token} onHide={() => setToken(null)} />}
            </>
          )}
        </div>
        {can('devices.operate') && <Send device={d} currency={currency} onSent={(order) => { void qc.invalidateQueries({ queryKey: ['device-ops'] }); open(order); }} />}
      </div>
      <div className="card table-wrap">
        <h2 className="table-title">{t('devices.operations')}</h2>
        <DataTable
          tableProps={{ 'data-testid': 'device-operations' }}
          rows={ops.data?.operations ?? []}
          rowKey={(o) => o.uuid}
          rowProps={(o) => ({ 'data-order': o.order_uuid, 'data-source': o.source })}
          empty={ops.isSuccess ? t('devices.operations_none') : undefined}
          columns={[
            { header: t('col.created'), cell: (o) => dateTime(o.created_at, lang, me.merchant.timezone) },
            { header: t('devices.kind'), cell: (o) => <>{o.kind} <span className="small muted">({t(`devices.source_${o.source}`)})</span></> },
            { header: t('col.amount'), className: 'num', cell: (o) => (o.amount === null ? '—' : money(o.amount, o.currency ?? currency, lang)) },
            { header: t('col.status'), cell: (o) => <OpState value={o.status} /> },
            { header: t('col.card'), className: 'mono', cell: (o) => (o.card ? `${o.card.bin ?? ''}•••• ${o.card.last4}${o.card.reading_method ? ` ${o.card.reading_method}` : ''}` : '—') },
            { header: t('devices.stan'), className: 'mono', cell: (o) => o.stan ?? '—' },
            { header: t('devices.rrn'), className: 'mono', cell: (o) => o.rrn ?? '—' },
            {
              header: t('devices.order'),
              cell: (o) => (
                <span className="inline">
                  <a href={`/dashboard/payments/${o.order_uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${o.order_uuid}`); }}>{o.order_uuid.slice(0, 8)}</a>
                  {o.source !== 'CARD_PRESENT' && (
                    <button type="button" className="link" aria-label={`${t('devices.follow')} ${o.order_uuid.slice(0, 8)}`} onClick={() => open(o.order_uuid)}>{t('devices.follow')}</button>
                  )}
                </span>
              ),
            },
          ]}
        />
      </div>
    </section>
  );
}

function Send({ device, currency, onSent }: { device: Device; currency: string; onSent: (order: string) => void }) {
  const { t } = useT();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    const amount = toMinor(text('amount'), currency);
    if (amount === null) {
      setError(t('devices.amount_invalid'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const path = text('kind') === 'PREAUTHORIZATION' ? '/device/preauthorization' : '/device/payment';
      const r = await v1<V1Answer<'/device/payment' | '/device/preauthorization', 'post'>>('POST', path, {
        device: device.id, amount, description: text('description'), ...(text('reference') ? { reference: text('reference') } : {}),
      });
      form.reset();
      onSent(r.order.uuid);
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card">
      <h2>{t('devices.send')}</h2>
      {!device.active && <p className="muted">{t('devices.device_disabled')}</p>}
      <form className="device-form" onSubmit={submit} data-testid="send-to-device">
        <label>{t('devices.kind')}
          <select name="kind" defaultValue="PAYMENT">
            <option value="PAYMENT">{t('devices.kind_payment')}</option>
            <option value="PREAUTHORIZATION">{t('devices.kind_preauth')}</option>
          </select>
        </label>
        <label>{t('devices.amount', { currency })}<input name="amount" inputMode="decimal" required autoComplete="off" placeholder={t('devices.amount_hint')} /></label>
        <label>{t('devices.description')}<input name="description" required maxLength={500} autoComplete="off" /></label>
        <label>{t('devices.reference')}<input name="reference" maxLength={100} autoComplete="off" /></label>
        <div className="filter-buttons"><button type="submit" className="primary" disabled={busy || !device.active}>{t('devices.send_button')}</button></div>
      </form>
      {error && <div role="alert" className="error"><strong>{t('error.title')}:</strong> {error}</div>}
    </div>
  );
}
