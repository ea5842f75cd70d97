/**
 * Services and terminals: the merchant's services (D4), creating a service (D5) and a terminal (D6), and
 * a service's page: enable or disable it, link a terminal, the APMs and wallets it offers, DCC. Terminal
 * credentials are write-only: typed once, sent, cleared; the page only ever says which are set.
 */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, v1, type Answer, type V1Answer } from '../../api';
import { useT } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';

/** A terminal of the merchant as the dashboard lists it (which credentials are set, never their values). */
export type Terminal = Answer<'/settings/terminals', 'get'>['terminals'][number];

/** The service (and terminal) types of the API. */
const TYPES = ['REDSYSPSD2', 'CHECKOUT', 'PAYPAL', 'CREDORAX', 'PAYGATE', 'PAYGATEAPM', 'EVOSNAP', 'MIT', 'CREDIBANCOECOMMERCE', 'CLEARHAUS', 'TRUSTPAYMENTS', 'DLOCAL', 'CECABANK', 'NIUBIZ', 'CYBERSOURCE', 'VIACASH', 'SAFETYPAY', 'NUVEI', 'FACILITAPAY', 'COFIDIS', 'WORLDPAY', 'DECTA', 'DEVENGO', 'INESPAY', 'WALLETTO', 'PAYMENTSWAY', 'FLOA', 'BKN301', 'SILVERFLOW', 'EUPAGO', 'PAGSMILE', 'SIBS', 'PAYSHOP'];
/** The credential keys of the types whose credentials the contract names. */
const CREDENTIALS: Record<string, string[]> = {
  REDSYSPSD2: ['key_secure', 'terminal_secure', 'key_not_secure', 'terminal_not_secure'],
  CHECKOUT: ['secret_key', 'processing_channel_id', 'webhook_signature_key'],
  PAYPAL: ['client_id', 'client_secret', 'webhook_id'],
  CREDORAX: ['merchant_id', 'signing_api_key', 'sub_merchant_id', 'merchant_id_amex', 'signing_api_key_amex', 'target_mid_amex', 'sub_merchant_phone_amex'],
};
const REDSYS = ['REDSYSPSD2'];

export function errorText(err: unknown, fallback: string): string {
  return err instanceof ApiError ? err.details : fallback;
}

export function useTerminals(me: AreaProps['me']) {
  return useQuery({ queryKey: ['settings-terminals', me.env, me.merchant.uuid], queryFn: () => api<Answer<'/settings/terminals', 'get'>>('GET', '/settings/terminals') });
}

export function ServicesTab({ me }: AreaProps) {
  const { t } = useT();
  const services = useQuery({ queryKey: ['settings-services', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/client/services', 'get'>>('GET', '/client/services') });
  const terminals = useTerminals(me);
  return (
    <>
      <div className="card table-wrap" tabIndex={0} role="region" aria-label={t('settings.services')}>
        <h2 className="pad">{t('settings.services')}</h2>
        <DataTable
          tableProps={{ 'data-testid': 'services' }}
          rows={services.data?.services ?? []}
          rowKey={(s) => s.uuid}
          rowProps={(s) => ({ 'data-uuid': s.uuid })}
          rowLink={(s) => ({ href: `/dashboard/settings/services/${s.uuid}`, onOpen: () => navigate(`/settings/services/${s.uuid}`) })}
          empty={services.data ? t('settings.none') : undefined}
          columns={[
            { header: t('settings.name'), cell: (s) => s.name },
            { header: t('settings.type'), cell: (s) => s.type },
            { header: t('settings.state'), cell: (s) => <span className={`badge ${s.enabled ? 'badge-ok' : 'badge-warn'}`}>{s.enabled ? t('settings.enabled') : t('settings.pending')}</span> },
            { header: t('settings.terminal'), className: 'mono small', cell: (s) => (s.terminal ? s.terminal.slice(0, 8) : '—') },
            { header: 'DCC', cell: (s) => (s.dcc_allowed ? s.dcc_mode ?? 'DYNAMIC' : '—') },
          ]}
        />
      </div>
      <div className="grid2">
        <NewTerminal me={me} />
        <NewService me={me} terminals={terminals.data?.terminals ?? []} />
      </div>
      <div className="card table-wrap" tabIndex={0} role="region" aria-label={t('settings.terminals')}>
        <h2 className="pad">{t('settings.terminals')}</h2>
        <DataTable
          tableProps={{ 'data-testid': 'terminals' }}
          rows={terminals.data?.terminals ?? []}
          rowKey={(x) => x.uuid}
          rowProps={(x) => ({ 'data-uuid': x.uuid })}
          empty={terminals.data ? t('settings.none') : undefined}
          columns={[
            { header: t('settings.description'), cell: (x) => <>{x.description} <span className="mono small muted">{x.uuid.slice(0, 8)}</span></> },
            { header: t('settings.type'), cell: (x) => x.type },
            { header: t('settings.code'), cell: (x) => x.code ?? '—' },
            { header: t('settings.currency'), cell: (x) => x.currency_code },
            { header: t('settings.credentials'), cell: (x) => (x.credentials_set.length > 0 ? x.credentials_set.map((k) => <span key={k} className="badge badge-ok cred">{k}: {t('settings.set')}</span>) : <span className="badge badge-neutral">{t('settings.not_set')}</span>) },
          ]}
        />
      </div>
    </>
  );
}

function NewTerminal({ me }: { me: AreaProps['me'] }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [type, setType] = useState('REDSYSPSD2');
  const [description, setDescription] = useState('');
  const [currency, setCurrency] = useState('EUR');
  const [code, setCode] = useState('');
  const [creds, setCreds] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const keys = CREDENTIALS[type] ?? [];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const credentials = Object.fromEntries(keys.filter((k) => creds[k]).map((k) => [k, creds[k]]));
      const r = await v1<V1Answer<'/terminal', 'post'>>('POST', '/terminal', { type, description, currency_code: currency, code: code || null, credentials: keys.length > 0 ? credentials : null });
      // the credentials are never kept nor shown again
      setCreds({});
      setDescription('');
      setCode('');
      setDone(r.terminal.uuid);
      await qc.invalidateQueries({ queryKey: ['settings-terminals'] });
    } catch (err) {
      setError(errorText(err, t('error.network')));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="new-terminal">
      <h2 id="new-terminal">{t('settings.new_terminal')}</h2>
      <label>{t('settings.type')}<select value={type} onChange={(e) => { setType(e.target.value); setCreds({}); }}>{TYPES.map((x) => <option key={x}>{x}</option>)}</select></label>
      <label>{t('settings.description')}<input required maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} name="terminal-description" /></label>
      <div className="row2">
        <label>{t('settings.currency')}<input required maxLength={3} value={currency} onChange={(e) => setCurrency(e.target.value.toUpperCase())} /></label>
        <label>{t('settings.code')}<input inputMode="numeric" maxLength={12} value={code} onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))} /></label>
      </div>
      {keys.length > 0 && (
        <fieldset className="creds">
          <legend>{t('settings.credentials')}</legend>
          <p className="small muted">{t('settings.credentials_hint')}</p>
          {keys.map((k) => (
            <label key={k}>{k}<input type="password" autoComplete="off" spellCheck={false} value={creds[k] ?? ''} onChange={(e) => setCreds({ ...creds, [k]: e.target.value })} data-credential={k} /></label>
          ))}
        </fieldset>
      )}
      {error && <div role="alert" className="error">{error}</div>}
      {done && <div role="status" className="notice">{t('settings.terminal_created')} <span className="mono">{done.slice(0, 8)}</span></div>}
      <button type="submit" className="primary" disabled={busy}>{t('settings.create_terminal')}</button>
    </form>
  );
}

function NewService({ me, terminals }: { me: AreaProps['me']; terminals: Terminal[] }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState('REDSYSPSD2');
  const [terminal, setTerminal] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fitting = terminals.filter((x) => x.type === type);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await v1<V1Answer<'/service', 'post'>>('POST', '/service', { name, type, terminal_uuid: terminal || null });
      await qc.invalidateQueries({ queryKey: ['settings-services'] });
      navigate(`/settings/services/${r.service.uuid}`);
    } catch (err) {
      setError(errorText(err, t('error.network')));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="new-service">
      <h2 id="new-service">{t('settings.new_service')}</h2>
      <label>{t('settings.name')}<input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} name="service-name" /></label>
      <label>{t('settings.type')}<select value={type} onChange={(e) => { setType(e.target.value); setTerminal(''); }}>{TYPES.map((x) => <option key={x}>{x}</option>)}</select></label>
      <label>{t('settings.terminal')}
        <select value={terminal} onChange={(e) => setTerminal(e.target.value)} name="service-terminal">
          <option value="">{t('settings.no_terminal')}</option>
          {fitting.map((x) => <option key={x.uuid} value={x.uuid}>{x.description} ({x.currency_code}{x.code ? ` · ${x.code}` : ''})</option>)}
        </select>
      </label>
      <p className="small muted">{t('settings.pending_hint')}</p>
      {error && <div role="alert" className="error">{error}</div>}
      <button type="submit" className="primary" disabled={busy}>{t('settings.create_service')}</button>
    </form>
  );
}

export function ServicePage({ me, can, uuid }: AreaProps & { uuid: string }) {
  const { t } = useT();
  const qc = useQueryClient();
  const key = ['settings-service', me.env, uuid];
  const service = useQuery({ queryKey: key, queryFn: () => v1<V1Answer<'/service/{service_uuid}', 'get'>>('GET', `/service/${uuid}`) });
  const apms = useQuery({ queryKey: [...key, 'apms'], queryFn: () => v1<V1Answer<'/service/{service_uuid}/apms', 'get'>>('GET', `/service/${uuid}/apms`) });
  const catalogue = useQuery({ queryKey: ['settings-apms', me.env], queryFn: () => v1<V1Answer<'/apms', 'get'>>('GET', '/apms'), staleTime: 600_000 });
  const wallets = useQuery({ queryKey: [...key, 'wallets'], queryFn: () => v1<V1Answer<'/service/{service_uuid}/wallets', 'get'>>('GET', `/service/${uuid}/wallets`), enabled: can('settings.manage') });
  const terminals = useTerminals(me);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const s = service.data?.service;
  const change = async (what: string, run: () => Promise<unknown>) => {
    setError(null);
    setSaved(null);
    try {
      await run();
      setSaved(what);
      await qc.invalidateQueries({ queryKey: key });
      await qc.invalidateQueries({ queryKey: ['settings-services'] });
    } catch (err) {
      setError(errorText(err, t('error.network')));
    }
  };
  if (service.error) return <div role="alert" className="error">{errorText(service.error, t('error.network'))}</div>;
  if (!s) return <p aria-busy="true">{t('settings.loading')}</p>;
  // the service's APMs come as records ({apm, label, kind, ...}); the checks and PUT use their values
  const offered = (apms.data?.service.apms ?? []).map((a) => a.apm);
  const offeredWallets = wallets.data?.service.wallets ?? [];
  const fitting = (terminals.data?.terminals ?? []).filter((x) => x.type === s.type);
  const redsys = REDSYS.includes(s.type);
  return (
    <div className="service-page" data-testid="service-page">
      <a className="back" href="/dashboard/settings/services" onClick={(e) => { e.preventDefault(); navigate('/settings/services'); }}>← {t('settings.services')}</a>
      <div className="card">
        <h2>{s.name}</h2>
        <dl className="facts">
          <dt>{t('settings.type')}</dt><dd>{s.type}</dd>
          <dt>{t('settings.state')}</dt><dd><span className={`badge ${s.enabled ? 'badge-ok' : 'badge-warn'}`} data-testid="service-state">{s.enabled ? t('settings.enabled') : t('settings.pending')}</span></dd>
          <dt>UUID</dt><dd className="mono small break">{s.uuid}</dd>
        </dl>
        <div className="action-row">
          <button type="button" className="secondary" disabled={!s.terminal} onClick={() => change('state', () => v1('PUT', `/service/${uuid}`, { enabled: !s.enabled }))}>{s.enabled ? t('settings.disable') : t('settings.enable')}</button>
        </div>
        {!s.terminal && <p className="small muted">{t('settings.pending_hint')}</p>}
      </div>
      {error && <div role="alert" className="error">{error}</div>}
      {saved && <div role="status" className="notice">{t('settings.saved')}</div>}
      <div className="grid2">
        <div className="card form">
          <h3>{t('settings.terminal')}</h3>
          <label>{t('settings.link_terminal')}
            <select value={s.terminal ?? ''} onChange={(e) => e.target.value && change('terminal', () => v1('PUT', `/service/${uuid}`, { terminal_uuid: e.target.value }))} data-testid="link-terminal">
              <option value="">{t('settings.no_terminal')}</option>
              {fitting.map((x) => <option key={x.uuid} value={x.uuid}>{x.description} ({x.currency_code}{x.code ? ` · ${x.code}` : ''})</option>)}
            </select>
          </label>
          {redsys && (
            <>
              <h3>DCC</h3>
              <label className="check"><input type="checkbox" checked={s.dcc_allowed} onChange={(e) => change('dcc', () => v1('PUT', `/service/${uuid}`, { is_dcc_allowed: e.target.checked }))} />{t('settings.dcc_allowed')}</label>
              <label>{t('settings.dcc_mode')}
                <select value={s.dcc_mode ?? ''} disabled={!s.dcc_allowed} onChange={(e) => change('dcc', () => v1('PUT', `/service/${uuid}`, { dcc_mode: e.target.value }))}>
                  <option value="" disabled>—</option>
                  {['DYNAMIC', 'FOREIGN', 'LOCAL'].map((m) => <option key={m} value={m}>{m}</option>)}
                </select>
              </label>
              <p className="small muted">{t('settings.dcc_hint')}</p>
              <label className="check"><input type="checkbox" checked={s.bizum_enabled} onChange={(e) => change('bizum', () => v1('PUT', `/service/${uuid}`, { bizum_enabled: e.target.checked }))} />{t('settings.bizum')}</label>
            </>
          )}
        </div>
        <div className="card form">
          {can('settings.manage') && (
            <fieldset className="checks">
              <legend>{t('settings.wallets_offered')}</legend>
              {['GOOGLE_PAY', 'APPLE_PAY'].map((w) => (
                <label key={w} className="check"><input type="checkbox" checked={offeredWallets.includes(w)} onChange={(e) => change('wallets', () => v1('PUT', `/service/${uuid}/wallets`, { wallets: e.target.checked ? [...offeredWallets, w] : offeredWallets.filter((x) => x !== w) }))} />{w === 'GOOGLE_PAY' ? 'Google Pay' : 'Apple Pay'}</label>
              ))}
            </fieldset>
          )}
          <fieldset className="checks apms">
            <legend>{t('settings.apms_offered')}</legend>
            {(catalogue.data?.apms ?? []).filter((a) => a.apm !== 'BIZUM' || redsys).map((a) => (
              <label key={a.apm} className="check"><input type="checkbox" checked={offered.includes(a.apm)} onChange={(e) => change('apms', () => v1('PUT', `/service/${uuid}/apms`, { apms: e.target.checked ? [...offered, a.apm] : offered.filter((x) => x !== a.apm) }))} />{a.label}</label>
            ))}
          </fieldset>
        </div>
      </div>
    </div>
  );
}
