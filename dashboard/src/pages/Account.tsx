/**
 * The signed-in user's own security: two-factor sign-in with an authenticator app (enrol with the QR
 * code and a first code; the recovery codes are shown once), or turn it off.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, api, setCsrf, type Answer, type Me } from '../api';
import { useT } from '../i18n';

export function Account({ me }: { me: Me }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [setup, setSetup] = useState<Answer<'/account/totp/setup', 'post'> | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    }
  };
  return (
    <section aria-labelledby="account-title">
      <div className="page-head"><h1 id="account-title">{t('nav.account')}</h1></div>
      <div className="card">
        <h2>{t('totp.title')}</h2>
        <p data-testid="totp-state">{me.user.totp_enabled ? t('totp.on') : t('totp.off')}</p>
        {!me.user.totp_enabled && !setup && (
          <button type="button" className="primary" onClick={() => run(async () => setSetup(await api<Answer<'/account/totp/setup', 'post'>>('POST', '/account/totp/setup')))}>{t('totp.start')}</button>
        )}
        {setup && !codes && (
          <div className="totp-setup">
            <p>{t('totp.scan')}</p>
            <img src={setup.qr_code} alt={t('totp.qr_alt')} width={220} height={220} />
            <p className="small">{t('totp.secret')}: <code className="mono break" data-testid="totp-secret">{setup.secret}</code></p>
            <label>{t('totp.code')}<input inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} /></label>
            <button type="button" className="primary" onClick={() => run(async () => {
              const r = await api<Answer<'/account/totp/enable', 'post'>>('POST', '/account/totp/enable', { code: code.trim() });
              setCodes(r.recovery_codes);
              setCode('');
              // it is on now: the card says so while the recovery codes are shown
              await qc.invalidateQueries({ queryKey: ['session'] });
            })}>{t('totp.enable')}</button>
          </div>
        )}
        {codes && (
          <div className="notice" role="status" data-testid="recovery-codes">
            <p><strong>{t('totp.recovery')}</strong></p>
            <ul className="codes mono">{codes.map((c) => <li key={c}>{c}</li>)}</ul>
            <button type="button" className="secondary" onClick={async () => { setCodes(null); setSetup(null); await qc.invalidateQueries({ queryKey: ['session'] }); }}>{t('totp.done')}</button>
          </div>
        )}
        {me.user.totp_enabled && !codes && (
          <div className="filter-grid">
            <label>{t('signin.password')}<input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} /></label>
            <label>{t('totp.code_or_recovery')}<input value={code} onChange={(e) => setCode(e.target.value)} /></label>
            <button type="button" className="secondary" onClick={() => run(async () => {
              await api('POST', '/account/totp/disable', { password, code: code.trim() });
              setPassword('');
              setCode('');
              await qc.invalidateQueries({ queryKey: ['session'] });
            })}>{t('totp.disable')}</button>
          </div>
        )}
        {error && <div role="alert" className="error">{error}</div>}
      </div>
      <ChangePasswordCard />
    </section>
  );
}

/** A new password: the other sessions of the user end, this one goes on with a new token. */
function ChangePasswordCard() {
  const { t } = useT();
  const qc = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async () => {
    if (next !== repeat) return setMessage({ ok: false, text: t('password.mismatch') });
    try {
      const me = await api<Answer<'/session/password', 'post'>>('POST', '/session/password', { current_password: current, new_password: next });
      setCsrf(me.csrf_token);
      qc.setQueryData<Me | null>(['session'], me);
      setCurrent('');
      setNext('');
      setRepeat('');
      setMessage({ ok: true, text: t('account.password_changed') });
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.details : t('error.network') });
    }
  };
  return (
    <div className="card">
      <h2>{t('account.change_password')}</h2>
      <div className="filter-grid">
        <label>{t('password.current')}<input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} /></label>
        <label>{t('password.new')}<input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} /></label>
        <label>{t('password.repeat')}<input type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)} /></label>
      </div>
      <button type="button" className="secondary" disabled={!current || !next} onClick={save}>{t('account.change_password')}</button>
      {message && <div role={message.ok ? 'status' : 'alert'} className={message.ok ? 'notice' : 'error'}>{message.text}</div>}
    </div>
  );
}
