/**
 * Notifications (what the merchant's notifications do and how they stand), wallet keys and DCC, the
 * sandbox test clock, and child merchants with their promotion to production.
 */
import { Fragment, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, v1, type Answer, type V1Answer } from '../../api';
import { useT, dateTime } from '../../i18n';
import { navigate } from '../../router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { errorText } from './services';

function useMerchantSettings(me: AreaProps['me']) {
  return useQuery({ queryKey: ['settings-merchant', me.env, me.merchant.uuid], queryFn: () => api<Answer<'/settings/merchant', 'get'>>('GET', '/settings/merchant') });
}

// ---- notifications ------------------------------------------------------------------------------------

export function NotificationsTab({ me }: AreaProps) {
  const { t } = useT();
  const m = useMerchantSettings(me);
  const counts = useQuery({
    queryKey: ['settings-notification-counts', me.env, me.merchant.uuid],
    queryFn: async () => {
      const out: Record<string, number> = {};
      for (const status of ['PENDING', 'DELIVERED', 'FAILED']) out[status] = (await v1<V1Answer<'/events', 'get'>>('GET', `/events?status=${status}&limit=1`)).count;
      return out;
    },
  });
  const resend = m.data?.merchant.resend_failed_notifications;
  return (
    <div className="grid2">
      <div className="card">
        <h2>{t('settings.notifications')}</h2>
        <p>{t('settings.notif_intro')}</p>
        <dl className="facts">
          <dt>{t('settings.notif_retries')}</dt>
          <dd data-testid="resend-setting">{resend === undefined ? '…' : resend ? t('settings.notif_retry_on') : t('settings.notif_retry_off')}</dd>
          <dt>{t('settings.notif_signature')}</dt>
          <dd className="small">{t('settings.notif_signature_text')}</dd>
        </dl>
        <p className="small muted">{t('settings.notif_contract')}</p>
      </div>
      <div className="card">
        <h2>{t('settings.notif_state')}</h2>
        <dl className="facts">
          {(['PENDING', 'DELIVERED', 'FAILED'] as const).map((s) => (
            <Fragment key={s}><dt>{s}</dt><dd data-testid={`count-${s}`}>{counts.data ? counts.data[s] : '…'}</dd></Fragment>
          ))}
        </dl>
        {me.permissions.includes('developers.read') && (
          <p><a href="/dashboard/developers/deliveries" onClick={(e) => { e.preventDefault(); navigate('/developers/deliveries'); }}>{t('settings.notif_open')}</a></p>
        )}
      </div>
    </div>
  );
}

// ---- wallets and DCC ----------------------------------------------------------------------------------

type WalletKey = V1Answer<'/wallets', 'get'>['wallets']['google_pay']['keys'][number];

export function WalletsTab({ me }: AreaProps) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const w = useQuery({ queryKey: ['settings-wallets', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/wallets', 'get'>>('GET', '/wallets') });
  const services = useQuery({ queryKey: ['settings-services', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/client/services', 'get'>>('GET', '/client/services') });
  const [recipient, setRecipient] = useState('');
  const [cert, setCert] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: ['settings-wallets'] });
  const importApple = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNotice(null);
    try {
      await v1('POST', '/wallet/apple-pay/certificate', { certificate: cert, private_key: privateKey, merchant_identifier: identifier || null });
      // the private key is sealed by the gateway and never shown again
      setPrivateKey('');
      setCert('');
      setNotice(t('settings.apple_imported'));
      await refresh();
    } catch (err) {
      setError(errorText(err, t('error.network')));
    }
  };
  const keyRow = (k: WalletKey) => (
    <li key={k.uuid}>
      <span className="mono small">{k.uuid.slice(0, 8)}</span> · {dateTime(k.created_at, lang, me.merchant.timezone)}
      {k.recipient_id && <> · {k.recipient_id}</>}
      {k.merchant_identifier && <> · {k.merchant_identifier}</>}
      {k.expires_at && <> · {t('settings.expires')} {k.expires_at.slice(0, 10)}</>}
      {k.public_key && <details><summary>{t('settings.public_key')}</summary><pre className="body">{k.public_key}</pre></details>}
    </li>
  );
  const data = w.data?.wallets;
  return (
    <>
      {error && <div role="alert" className="error">{error}</div>}
      {notice && <div role="status" className="notice">{notice}</div>}
      <div className="grid2">
        <div className="card form">
          <h2>Google Pay</h2>
          {data && <p><span className={`badge ${data.google_pay.enabled ? 'badge-ok' : 'badge-neutral'}`}>{data.google_pay.enabled ? t('settings.offered') : t('settings.not_offered')}</span> <span className="small muted">gatewayMerchantId: <span className="mono">{data.google_pay.gateway_merchant_id}</span></span></p>}
          <ul className="keys">{(data?.google_pay.keys ?? []).map(keyRow)}</ul>
          <label>{t('settings.recipient_id')}<input value={recipient} maxLength={120} placeholder="merchant:…" onChange={(e) => setRecipient(e.target.value)} /></label>
          <ConfirmDialog
            trigger={<button type="button" className="primary">{t('settings.generate_key')}</button>}
            title={t('settings.generate_key')}
            message={t('settings.generate_key_confirm')}
            onConfirm={async () => { setError(null); await v1('POST', '/wallet/google-pay/key', { recipient_id: recipient || null }); setNotice(t('settings.key_generated')); await refresh(); }}
          />
        </div>
        <form className="card form" onSubmit={importApple}>
          <h2>Apple Pay</h2>
          {data && <p><span className={`badge ${data.apple_pay.enabled ? 'badge-ok' : 'badge-neutral'}`}>{data.apple_pay.enabled ? t('settings.offered') : t('settings.not_offered')}</span></p>}
          <ul className="keys">{(data?.apple_pay.keys ?? []).map(keyRow)}</ul>
          <label>{t('settings.apple_certificate')}<textarea required rows={3} value={cert} onChange={(e) => setCert(e.target.value)} placeholder="-----BEGIN CERTIFICATE-----" spellCheck={false} /></label>
          <label>{t('settings.apple_private_key')}<textarea required rows={3} value={privateKey} onChange={(e) => setPrivateKey(e.target.value)} placeholder="-----BEGIN PRIVATE KEY-----" spellCheck={false} autoComplete="off" /></label>
          <label>{t('settings.apple_identifier')}<input value={identifier} maxLength={120} placeholder="merchant.com.example" onChange={(e) => setIdentifier(e.target.value)} /></label>
          <p className="small muted">{t('settings.write_only')}</p>
          <div><button type="submit" className="primary">{t('settings.apple_import')}</button></div>
        </form>
      </div>
      <div className="card table-wrap" tabIndex={0} role="region" aria-label={'DCC'}>
        <h2 className="pad">DCC</h2>
        <p className="small muted pad">{t('settings.dcc_intro')}</p>
        <DataTable
          rows={services.data?.services ?? []}
          rowKey={(s) => s.uuid}
          rowLink={(s) => ({ href: `/dashboard/settings/services/${s.uuid}`, onOpen: () => navigate(`/settings/services/${s.uuid}`) })}
          columns={[
            { header: t('settings.name'), cell: (s) => s.name },
            { header: t('settings.type'), cell: (s) => s.type },
            { header: 'DCC', cell: (s) => (s.type !== 'REDSYSPSD2' ? t('settings.dcc_na') : s.dcc_allowed ? s.dcc_mode ?? 'DYNAMIC' : t('settings.dcc_off')) },
          ]}
        />
      </div>
    </>
  );
}

// ---- the sandbox test clock -------------------------------------------------------------------------------

const UNITS = { minutes: 60, hours: 3600, days: 86400 } as const;

export function ClockTab({ me }: AreaProps) {
  const { t } = useT();
  const qc = useQueryClient();
  const clock = useQuery({ queryKey: ['settings-clock', me.merchant.uuid], queryFn: () => v1<V1Answer<'/test-clock', 'get'>>('GET', '/test-clock'), enabled: me.env === 'sandbox' });
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState<keyof typeof UNITS>('days');
  const [error, setError] = useState<string | null>(null);
  if (me.env !== 'sandbox') return <p className="card">{t('settings.clock_sandbox_only')}</p>;
  const c = clock.data?.test_clock;
  const seconds = Math.round(Number(amount) * UNITS[unit]);
  const run = async (what: () => Promise<unknown>) => {
    setError(null);
    try {
      await what();
      await qc.invalidateQueries({ queryKey: ['settings-clock'] });
    } catch (err) {
      setError(errorText(err, t('error.network')));
    }
  };
  const offset = c?.offset_seconds ?? 0;
  return (
    <div className="card form clock">
      <h2>{t('settings.clock')}</h2>
      <p className="small muted">{t('settings.clock_intro')}</p>
      <dl className="facts">
        <dt>{t('settings.clock_now')}</dt><dd data-testid="clock-now">{c ? c.current_time : '…'}</dd>
        <dt>{t('settings.clock_ahead')}</dt><dd data-testid="clock-offset" data-seconds={offset}>{formatDuration(offset, t)}</dd>
      </dl>
      <form className="inline-form" onSubmit={(e) => { e.preventDefault(); void run(() => v1('POST', '/test-clock', { advance_seconds: seconds })); }}>
        <label>{t('settings.clock_by')}<input type="number" min="1" step="1" required value={amount} onChange={(e) => setAmount(e.target.value)} name="clock-amount" /></label>
        <label>{t('settings.clock_unit')}<select value={unit} onChange={(e) => setUnit(e.target.value as keyof typeof UNITS)}>{Object.keys(UNITS).map((u) => <option key={u} value={u}>{t(`settings.unit.${u}` as 'settings.unit.days')}</option>)}</select></label>
        <button type="submit" className="primary" disabled={!(seconds >= 1)}>{t('settings.clock_advance')}</button>
      </form>
      {error && <div role="alert" className="error">{error}</div>}
      <div>
        <ConfirmDialog
          trigger={<button type="button" className="secondary" disabled={offset === 0}>{t('settings.clock_reset')}</button>}
          title={t('settings.clock_reset')}
          message={t('settings.clock_reset_confirm')}
          onConfirm={() => run(() => v1('POST', '/test-clock/reset'))}
        />
      </div>
    </div>
  );
}

function formatDuration(s: number, t: ReturnType<typeof useT>['t']): string {
  if (s === 0) return t('settings.clock_real');
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return [d ? `${d} ${t('settings.unit.days')}` : '', h ? `${h} ${t('settings.unit.hours')}` : '', m ? `${m} ${t('settings.unit.minutes')}` : '', !d && !h && !m ? `${s} s` : ''].filter(Boolean).join(' ');
}

// ---- child merchants ----------------------------------------------------------------------------------

export function MerchantsTab({ me }: AreaProps) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const m = useMerchantSettings(me);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [timezone, setTimezone] = useState(me.merchant.timezone);
  const [resend, setResend] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // the merchant record's key and signature are null except in the answer that creates it (D1): shown as — if missing
  const [issued, setIssued] = useState<{ title: string; uuid: string; api_key: string | null; signature: string | null } | null>(null);
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: ['settings-merchant'] });
    // the merchants the user may switch to
    await qc.invalidateQueries({ queryKey: ['session'] });
  };
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await v1<V1Answer<'/client', 'post'>>('POST', '/client', { name, email, timezone, resend_failed_notifications: resend });
      setIssued({ title: t('settings.child_created', { name: r.client.name }), uuid: r.client.uuid, api_key: r.client.api_key, signature: r.client.signature });
      setName('');
      setEmail('');
      await refresh();
    } catch (err) {
      setError(errorText(err, t('error.network')));
    } finally {
      setBusy(false);
    }
  };
  const children = m.data?.children ?? [];
  return (
    <>
      {issued && (
        <div className="notice" role="status" data-testid="issued-credentials">
          <p><strong>{issued.title}</strong> {t('settings.shown_once')}</p>
          <p className="mono break">UUID: {issued.uuid}</p>
          <p className="mono break">API key: {issued.api_key ?? '—'}</p>
          <p className="mono break">Signature: {issued.signature ?? '—'}</p>
          <button type="button" className="secondary" onClick={() => setIssued(null)}>{t('settings.hide')}</button>
        </div>
      )}
      <div className="card table-wrap" tabIndex={0} role="region" aria-label={t('settings.children')}>
        <h2 className="pad">{t('settings.children')}</h2>
        <DataTable
          tableProps={{ 'data-testid': 'children' }}
          rows={children}
          rowKey={(c) => c.uuid}
          rowProps={(c) => ({ 'data-uuid': c.uuid })}
          empty={m.data ? t('settings.no_children') : undefined}
          columns={[
            { header: t('settings.name'), cell: (c) => <>{c.name}{c.parent_uuid !== me.merchant.uuid && <span className="small muted"> ({t('settings.grandchild')})</span>}</> },
            { header: 'E-mail', cell: (c) => c.email },
            { header: t('settings.created'), cell: (c) => dateTime(c.created_at, lang, me.merchant.timezone) },
            {
              header: t('settings.production'),
              cell: (c) => (
                c.in_production ? <span className="badge badge-ok">{t('settings.in_production')}</span> : me.env === 'sandbox' ? (
                  <ConfirmDialog
                    trigger={<button type="button" className="secondary small-button">{t('settings.promote')}</button>}
                    title={t('settings.promote')}
                    message={t('settings.promote_confirm', { name: c.name })}
                    testId="promote-dialog"
                    onConfirm={async () => {
                      const r = await v1<V1Answer<'/client/{uuid}/promote', 'post'>>('POST', `/client/${c.uuid}/promote`);
                      setIssued({ title: t('settings.promoted', { name: c.name }), uuid: r.uuid, api_key: r.api_key, signature: r.signature });
                      await refresh();
                    }}
                  />
                ) : <span className="badge badge-neutral">{t('settings.sandbox_only')}</span>
              ),
            },
          ]}
        />
      </div>
      <form className="card form" onSubmit={create} aria-labelledby="new-child">
        <h2 id="new-child">{t('settings.new_child')}</h2>
        <div className="row2">
          <label>{t('settings.name')}<input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} name="child-name" /></label>
          <label>E-mail<input required type="email" maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} name="child-email" /></label>
        </div>
        <label>{t('settings.timezone')}<input required maxLength={64} value={timezone} onChange={(e) => setTimezone(e.target.value)} /></label>
        <label className="check"><input type="checkbox" checked={resend} onChange={(e) => setResend(e.target.checked)} />{t('settings.child_resend')}</label>
        {error && <div role="alert" className="error">{error}</div>}
        <div><button type="submit" className="primary" disabled={busy}>{t('settings.create_child')}</button></div>
      </form>
    </>
  );
}
