/**
 * The Devices area: the merchant's payment terminals with their connection and status, registering one
 * (its token shown once), and each device's page (devices/<id>: enable or disable it, a new token, send
 * it a payment or pre-authorization and follow it live, its operations with STAN and RRN).
 */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, qs, v1, type V1Answer } from '../../api';
import { dateTime, useT } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { DevicePage } from './DevicePage';
import { battery, Connection, TokenOnce } from './shared';
import './area.css';

export function DevicesPage(props: AreaProps) {
  const [path, query] = props.sub.split('?');
  const id = path.replace(/^\/+/, '').split('/')[0];
  if (id) return <DevicePage {...props} id={id} follow={new URLSearchParams(query ?? '').get('follow')} />;
  return <DeviceList {...props} />;
}

function DeviceList({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const [filter, setFilter] = useState<{ identifier?: string; communication_type?: string; active?: string }>({});
  const list = useQuery({
    queryKey: ['devices', me.env, me.merchant.uuid, filter],
    queryFn: () => v1<V1Answer<'/devices', 'get'>>('GET', `/devices${qs(filter)}`),
    refetchInterval: 5000,
  });
  const search = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? '').trim() || undefined;
    setFilter({ identifier: text('identifier'), communication_type: text('communication_type'), active: text('active') });
  };
  const devices = list.data?.devices ?? [];
  return (
    <section aria-labelledby="devices-title">
      <div className="page-head"><h1 id="devices-title">{t('devices.title')}</h1></div>
      <p className="muted">{t('devices.intro')}</p>
      {can('terminals.manage') && <Register me={me} />}
      <form className="card filters" role="search" onSubmit={search} data-testid="device-filters">
        <label className="grow">{t('devices.identifier')}<input name="identifier" maxLength={100} autoComplete="off" /></label>
        <label>{t('devices.type')}
          <select name="communication_type" defaultValue="">
            <option value="">{t('payments.any')}</option>
            <option value="SOCKET">SOCKET</option>
            <option value="SIMULATION">SIMULATION</option>
          </select>
        </label>
        <label>{t('col.status')}
          <select name="active" defaultValue="">
            <option value="">{t('payments.any')}</option>
            <option value="true">{t('devices.enabled')}</option>
            <option value="false">{t('devices.disabled')}</option>
          </select>
        </label>
        <div className="filter-buttons"><button type="submit" className="primary">{t('payments.apply')}</button></div>
      </form>
      {list.isError && <div role="alert" className="error">{(list.error as Error).message}</div>}
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'devices' }}
          rows={devices}
          rowKey={(d) => d.id}
          rowProps={(d) => ({ 'data-id': d.id })}
          rowLink={(d) => ({ href: `/dashboard/devices/${d.id}`, onOpen: () => navigate(`/devices/${d.id}`) })}
          empty={list.isSuccess ? (Object.values(filter).some(Boolean) ? t('devices.none_match') : t('devices.none')) : undefined}
          columns={[
            { header: t('devices.identifier'), cell: (d) => d.identifier },
            { header: t('devices.name'), cell: (d) => [d.properties.name, d.properties.model].filter(Boolean).join(' · ') || '—' },
            { header: t('devices.tid'), className: 'mono', cell: (d) => d.terminal_id },
            { header: t('devices.connection'), cell: (d) => <Connection d={d} /> },
            { header: t('col.status'), cell: (d) => (d.active ? <span className="badge badge-ok">{t('devices.enabled')}</span> : <span className="badge badge-bad">{t('devices.disabled')}</span>) },
            { header: t('devices.pending'), className: 'num', cell: (d) => d.status.pending_transactions },
            { header: t('devices.battery'), className: 'num', cell: (d) => battery(d, t('devices.charging')) },
            { header: t('devices.last_activity'), cell: (d) => dateTime(d.updated_at, lang, me.merchant.timezone) },
          ]}
        />
      </div>
    </section>
  );
}

function Register({ me }: { me: AreaProps['me'] }) {
  const { t } = useT();
  const qc = useQueryClient();
  const services = useQuery({ queryKey: ['services', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/client/services', 'get'>>('GET', '/client/services') });
  const [issued, setIssued] = useState<V1Answer<'/device', 'post'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    const text = (k: string) => String(f.get(k) ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      const properties = { ...(text('name') ? { name: text('name') } : {}), ...(text('model') ? { model: text('model') } : {}) };
      const r = await v1<V1Answer<'/device', 'post'>>('POST', '/device', {
        service: text('service'), identifier: text('identifier'), communication_type: text('communication_type'),
        ...(Object.keys(properties).length ? { properties } : {}),
      });
      setIssued(r);
      form.reset();
      await qc.invalidateQueries({ queryKey: ['devices'] });
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card">
      <h2>{t('devices.register')}</h2>
        <form className="device-form" onSubmit={submit} data-testid="register-device">
          <label>{t('devices.service')}
            <select name="service" required>
              {(services.data?.services ?? []).map((s) => <option key={s.uuid} value={s.uuid}>{s.name}</option>)}
            </select>
          </label>
          <label>{t('devices.identifier')}<input name="identifier" required maxLength={100} autoComplete="off" /></label>
          <label>{t('devices.type')}
            <select name="communication_type" defaultValue="SOCKET">
              <option value="SOCKET">{t('devices.type_socket')}</option>
              {me.env === 'sandbox' && <option value="SIMULATION">{t('devices.type_simulation')}</option>}
            </select>
          </label>
          <label>{t('devices.name')}<input name="name" maxLength={100} autoComplete="off" /></label>
          <label>{t('devices.model')}<input name="model" maxLength={100} autoComplete="off" /></label>
          <div className="filter-buttons"><button type="submit" className="primary" disabled={busy}>{t('devices.register_button')}</button></div>
        </form>
        {error && <div role="alert" className="error"><strong>{t('error.title')}:</strong> {error}</div>}
      {issued && (
        <>
          <p>{t('devices.registered', { identifier: issued.device.identifier })}{' '}
            <a href={`/dashboard/devices/${issued.device.id}`} onClick={(e) => { e.preventDefault(); navigate(`/devices/${issued.device.id}`); }}>{t('devices.open')}</a>
          </p>
          <TokenOnce token={issued.token} onHide={() => setIssued(null)} />
        </>
      )}
    </div>
  );
}
