/**
 * The dashboard shell: who is signed in (GET /session), the sign-in and the first password change, then
 * the layout (environment and merchant switches, language, sign-out) around the page of the path.
 * What a user's group may not do is not shown; the server refuses it anyway.
 */
import { Suspense, lazy, useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, onSessionEnd, setCsrf, type Answer, type Me, type Permission } from './api';
import { LANGS, LangContext, translator, useT, type Lang } from './i18n';
import { navigate, usePath } from './router';
import { AREAS } from './areas';

// every page is a script of its own, loaded when it is first shown: the sign-in page needs none of them
const Payments = lazy(() => import('./pages/Payments').then((x) => ({ default: x.Payments })));
const OrderDetail = lazy(() => import('./pages/OrderDetail').then((x) => ({ default: x.OrderDetail })));
const Developers = lazy(() => import('./pages/Developers').then((x) => ({ default: x.Developers })));
const Users = lazy(() => import('./pages/Users').then((x) => ({ default: x.Users })));
const Audit = lazy(() => import('./pages/Users').then((x) => ({ default: x.Audit })));
const Account = lazy(() => import('./pages/Account').then((x) => ({ default: x.Account })));
import type { Key } from './i18n';

// Whether this browser was signed in when it last looked (kept beside the session, never the session
// itself, which is an HttpOnly cookie): without it the sign-in form is shown at once while GET /session is
// asked (a cold load waits one round trip less for the form); with it the app waits for the answer, so a
// signed-in user does not see the form flash. The answer decides either way.
const SIGNED_IN_HINT = 'paygate.signedIn';
function signedInHint(): boolean {
  try {
    return window.localStorage.getItem(SIGNED_IN_HINT) === '1';
  } catch {
    return true;
  }
}
function keepSignedInHint(signedIn: boolean) {
  try {
    if (signedIn) window.localStorage.setItem(SIGNED_IN_HINT, '1');
    else window.localStorage.removeItem(SIGNED_IN_HINT);
  } catch {
    // storage refused (private mode): the app waits for GET /session each time
  }
}

function useSession() {
  const hint = useMemo(signedInHint, []);
  const session = useQuery<Me | null>({
    queryKey: ['session'],
    ...(hint ? {} : { initialData: null, initialDataUpdatedAt: 0 }),
    queryFn: async () => {
      try {
        const me = await api<Me>('GET', '/session');
        setCsrf(me.csrf_token);
        return me;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
  });
  useEffect(() => {
    if (session.isFetchedAfterMount || session.data) keepSignedInHint(Boolean(session.data));
  }, [session.data, session.isFetchedAfterMount]);
  return session;
}

export function App() {
  const session = useSession();
  const qc = useQueryClient();
  // the session ended (idle, signed out elsewhere, disabled): back to the sign-in, nothing else kept
  useEffect(() => {
    onSessionEnd(() => {
      setCsrf(null);
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      qc.setQueryData(['session'], null);
    });
    return () => onSessionEnd(null);
  }, [qc]);
  const [chosen, setChosen] = useState<Lang | null>(null);
  const lang: Lang = chosen ?? ((session.data?.user.language as Lang) || (navigator.language.startsWith('es') ? 'ES' : navigator.language.startsWith('pt') ? 'PT' : 'EN'));
  const ctx = useMemo(() => ({ lang, t: translator(lang) }), [lang]);
  useEffect(() => {
    document.documentElement.lang = lang.toLowerCase();
  }, [lang]);
  const path = usePath();
  let body: ReactNode;
  if (session.isPending) body = <p className="center">{ctx.t('loading')}</p>;
  else if (!session.data && path.startsWith('/reset')) body = <ResetPassword token={new URLSearchParams(window.location.search).get('token') ?? ''} />;
  else if (!session.data) body = <SignIn onLang={setChosen} />;
  else if (session.data.stage === 'TOTP') body = <SecondFactor />;
  else if (session.data.stage === 'PASSWORD_CHANGE') body = <ChangePassword />;
  else body = <Layout me={session.data} onLang={setChosen} />;
  return <LangContext.Provider value={ctx}>{body}</LangContext.Provider>;
}

function LanguageSelect({ onLang, signedIn }: { onLang: (l: Lang) => void; signedIn: boolean }) {
  const { lang, t } = useT();
  const qc = useQueryClient();
  return (
    <label className="lang">
      <span className="sr-only">{t('lang.label')}</span>
      <select
        aria-label={t('lang.label')}
        value={lang}
        onChange={async (e) => {
          const l = e.target.value as Lang;
          onLang(l);
          if (signedIn) {
            await api('PUT', '/session/language', { language: l });
            await qc.invalidateQueries({ queryKey: ['session'] });
          }
        }}
      >
        {LANGS.map((l) => (
          <option key={l} value={l}>{l}</option>
        ))}
      </select>
    </label>
  );
}

function SignIn({ onLang }: { onLang: (l: Lang) => void }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const submit = useMutation({
    mutationFn: (f: { login: string; password: string }) => api<Answer<'/session', 'post'>>('POST', '/session', f),
    onSuccess: async (me) => {
      // the first GET /session may still be on its way (the form is shown before its answer): its 401,
      // asked before this sign-in, must not sign the user out again
      await qc.cancelQueries({ queryKey: ['session'] });
      setCsrf(me.csrf_token);
      qc.setQueryData<Me | null>(['session'], me);
      onLang(me.user.language as Lang);
    },
    onError: (err) => setError(err instanceof ApiError ? err.details : t('error.network')),
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setError(null);
    submit.mutate({ login: String(f.get('login')), password: String(f.get('password')) });
  };
  return (
    <main className="auth">
      <div className="auth-top"><LanguageSelect onLang={onLang} signedIn={false} /></div>
      <form className="card auth-card" onSubmit={onSubmit}>
        <h1>{t('signin.title')}</h1>
        <label>
          {t('signin.login')}
          <input name="login" autoComplete="username" required />
        </label>
        <label>
          {t('signin.password')}
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error && <div role="alert" className="error">{error}</div>}
        <button className="primary" type="submit" disabled={submit.isPending}>{t('signin.submit')}</button>
        <ForgotPassword />
      </form>
    </main>
  );
}

function ForgotPassword() {
  const { t } = useT();
  const [open, setOpen] = useState(false);
  const [login, setLogin] = useState('');
  const [sent, setSent] = useState(false);
  if (!open) return <button type="button" className="link" onClick={() => setOpen(true)}>{t('reset.forgot')}</button>;
  return (
    <div className="forgot">
      <h2>{t('reset.title')}</h2>
      <p className="small">{t('reset.intro')}</p>
      <label>{t('signin.login')}<input value={login} onChange={(e) => setLogin(e.target.value)} /></label>
      {sent ? <div role="status" className="notice">{t('reset.sent')}</div> : (
        <button type="button" className="secondary" disabled={!login.trim()} onClick={async () => { await api('POST', '/password-reset', { login }).catch(() => undefined); setSent(true); }}>{t('reset.send')}</button>
      )}
    </div>
  );
}

function ResetPassword({ token }: { token: string }) {
  const { t } = useT();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    if (f.get('new_password') !== f.get('repeat')) return setError(t('password.mismatch'));
    try {
      await api('POST', '/password-reset/confirm', { token, new_password: String(f.get('new_password')) });
      setDone(true);
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    }
  };
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={onSubmit}>
        <h1>{t('reset.title')}</h1>
        {done ? (
          <>
            <div role="status" className="notice">{t('reset.done')}</div>
            <a href="/dashboard" onClick={(e) => { e.preventDefault(); navigate('/'); }}>{t('reset.back')}</a>
          </>
        ) : (
          <>
            <label>{t('password.new')}<input name="new_password" type="password" autoComplete="new-password" minLength={12} required /></label>
            <label>{t('password.repeat')}<input name="repeat" type="password" autoComplete="new-password" minLength={12} required /></label>
            {error && <div role="alert" className="error">{error}</div>}
            <button className="primary" type="submit">{t('reset.save')}</button>
          </>
        )}
      </form>
    </main>
  );
}

function SecondFactor() {
  const { t } = useT();
  const qc = useQueryClient();
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const value = String(new FormData(e.currentTarget).get('code') ?? '').trim();
    setError(null);
    try {
      const me = await api<Answer<'/session/totp', 'post'>>('POST', '/session/totp', recovery ? { recovery_code: value } : { code: value });
      setCsrf(me.csrf_token);
      qc.setQueryData<Me | null>(['session'], me);
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    }
  };
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={onSubmit}>
        <h1>{t('totp.step_title')}</h1>
        <p>{t('totp.step_intro')}</p>
        <label>
          {recovery ? t('totp.recovery_code') : t('totp.code')}
          <input key={String(recovery)} name="code" inputMode={recovery ? 'text' : 'numeric'} autoComplete="one-time-code" required />
        </label>
        {error && <div role="alert" className="error">{error}</div>}
        <button className="primary" type="submit">{t('totp.verify')}</button>
        {!recovery && <button type="button" className="link" onClick={() => setRecovery(true)}>{t('totp.use_recovery')}</button>}
      </form>
    </main>
  );
}

function ChangePassword() {
  const { t } = useT();
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    if (f.get('new_password') !== f.get('repeat')) return setError(t('password.mismatch'));
    setError(null);
    try {
      const me = await api<Answer<'/session/password', 'post'>>('POST', '/session/password', { current_password: String(f.get('current_password')), new_password: String(f.get('new_password')) });
      setCsrf(me.csrf_token);
      qc.setQueryData<Me | null>(['session'], me);
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    }
  };
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={onSubmit}>
        <h1>{t('password.title')}</h1>
        <p>{t('password.intro')}</p>
        <label>
          {t('password.current')}
          <input name="current_password" type="password" autoComplete="current-password" required />
        </label>
        <label>
          {t('password.new')}
          <input name="new_password" type="password" autoComplete="new-password" minLength={12} required />
        </label>
        <label>
          {t('password.repeat')}
          <input name="repeat" type="password" autoComplete="new-password" minLength={12} required />
        </label>
        {error && <div role="alert" className="error">{error}</div>}
        <button className="primary" type="submit">{t('password.submit')}</button>
      </form>
    </main>
  );
}

function Layout({ me, onLang }: { me: Me; onLang: (l: Lang) => void }) {
  const { t } = useT();
  const qc = useQueryClient();
  const path = usePath();
  const [menu, setMenu] = useState(false);
  const switchTo = async (path: '/session/env' | '/session/merchant', body: unknown) => {
    const next = await api<Answer<'/session/env' | '/session/merchant', 'put'>>('PUT', path, body);
    setCsrf(next.csrf_token);
    // nothing of the other environment or merchant stays on screen
    qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    qc.setQueryData<Me | null>(['session'], next);
    navigate('/payments');
  };
  const signOut = async (everywhere: boolean) => {
    await api(everywhere ? 'POST' : 'DELETE', everywhere ? '/session/everywhere' : '/session').catch(() => undefined);
    setCsrf(null);
    qc.clear();
    qc.setQueryData(['session'], null);
    navigate('/');
  };
  const can = (p: Permission) => me.permissions.includes(p);
  // the landing page (the dashboard's root, and right after sign-in) is the overview for the groups that read payments
  const landing = path === '/' && can('payments.read');
  useEffect(() => {
    if (!landing) return;
    window.history.replaceState(null, '', '/dashboard/overview');
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, [landing]);
  const orderMatch = /^\/payments\/([0-9a-f-]{36})/.exec(path);
  const devMatch = /^\/developers(?:\/(keys|deliveries|requests))?/.exec(path);
  const area = AREAS.find((x) => (path === x.path || path.startsWith(`${x.path}/`) || path.startsWith(`${x.path}?`)) && x.visible(can));
  let page: ReactNode;
  if (path.startsWith('/account')) page = <Account me={me} />;
  else if (path.startsWith('/users') && can('users.manage')) page = <Users key={`${me.env}-${me.merchant.uuid}`} me={me} />;
  else if (path.startsWith('/audit') && can('audit.read')) page = <Audit key={`${me.env}-${me.merchant.uuid}`} me={me} />;
  else if (devMatch && can('developers.read')) page = <Developers key={`${me.env}-${me.merchant.uuid}`} me={me} tab={(devMatch[1] as 'keys' | 'deliveries' | 'requests') ?? 'keys'} />;
  else if (area) page = <area.Page key={`${me.env}-${me.merchant.uuid}`} me={me} sub={path.slice(area.path.length)} can={can} />;
  else if (orderMatch && can('payments.read')) page = <OrderDetail key={`${me.merchant.uuid}-${orderMatch[1]}`} me={me} uuid={orderMatch[1]} />;
  else if (can('payments.read')) page = <Payments key={`${me.env}-${me.merchant.uuid}`} me={me} />;
  else page = <p className="card">{me.user.group}</p>;
  return (
    <div className={`shell env-${me.env}`}>
      <a className="skip" href="#main">{t('skip')}</a>
      <header className="top">
        <div className="brand">
          <button type="button" className="menu-button" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>
            {t('nav.menu')}
          </button>
          <span className="logo" aria-hidden="true">◆</span>
          <span className="merchant-name" data-testid="merchant-name">{me.merchant.name}</span>
        </div>
        <div className="controls">
          <div role="group" aria-label={t('env.label')} className="env-switch">
            {(['sandbox', 'production'] as const).map((e) => (
              <button
                key={e}
                type="button"
                data-testid={`env-${e}`}
                aria-pressed={me.env === e}
                disabled={!me.envs.includes(e)}
                className={me.env === e ? `env-on env-${e}` : ''}
                onClick={() => me.env !== e && switchTo('/session/env', { env: e })}
              >
                {t(e === 'sandbox' ? 'env.sandbox' : 'env.production')}
              </button>
            ))}
          </div>
          {me.merchants.length > 1 && (
            <label>
              <span className="sr-only">{t('merchant.label')}</span>
              <select aria-label={t('merchant.label')} value={me.merchant.uuid} onChange={(e) => switchTo('/session/merchant', { merchant_uuid: e.target.value })}>
                {me.merchants.map((m) => (
                  <option key={m.uuid} value={m.uuid}>{m.parent_uuid ? `↳ ${m.name}` : m.name}</option>
                ))}
              </select>
            </label>
          )}
          <LanguageSelect onLang={onLang} signedIn />
          <a className="who" href="/dashboard/account" title={me.user.email} onClick={(e) => { e.preventDefault(); navigate('/account'); }}>{me.user.username} · {me.user.group}</a>
          <button type="button" className="link" onClick={() => signOut(false)}>{t('user.signout')}</button>
          <button type="button" className="link" onClick={() => signOut(true)}>{t('user.signout_all')}</button>
        </div>
      </header>
      {me.env === 'sandbox' && <div className="sandbox-banner" role="note">{t('env.banner')}</div>}
      <div className="body">
        <nav id="nav" className={menu ? 'nav open' : 'nav'} aria-label={t('app.title')}>
          <ul>
            {can('payments.read') && (
              <li>
                <a href="/dashboard/payments" data-testid="menu-payments" aria-current={path.startsWith('/payments') ? 'page' : undefined} onClick={(e) => { e.preventDefault(); setMenu(false); navigate('/payments'); }}>
                  {t('nav.payments')}
                </a>
              </li>
            )}
            {AREAS.filter((x) => x.visible(can)).map((x) => (
              <li key={x.id}>
                <a href={`/dashboard${x.path}`} data-testid={`nav-${x.id}`} aria-current={path.startsWith(x.path) ? 'page' : undefined} onClick={(e) => { e.preventDefault(); setMenu(false); navigate(x.path); }}>
                  {t(x.nav as Key)}
                </a>
              </li>
            ))}
            {can('developers.read') && (
              <li>
                <a href="/dashboard/developers/keys" aria-current={path.startsWith('/developers') ? 'page' : undefined} onClick={(e) => { e.preventDefault(); setMenu(false); navigate('/developers/keys'); }}>
                  {t('nav.developers')}
                </a>
              </li>
            )}
            <li>
              <a href="/dashboard/account" aria-current={path.startsWith('/account') ? 'page' : undefined} onClick={(e) => { e.preventDefault(); setMenu(false); navigate('/account'); }}>
                {t('nav.account')}
              </a>
            </li>
            {can('users.manage') && (
              <li>
                <a href="/dashboard/users" aria-current={path.startsWith('/users') ? 'page' : undefined} onClick={(e) => { e.preventDefault(); setMenu(false); navigate('/users'); }}>
                  {t('nav.users')}
                </a>
              </li>
            )}
            {can('audit.read') && (
              <li>
                <a href="/dashboard/audit" aria-current={path.startsWith('/audit') ? 'page' : undefined} onClick={(e) => { e.preventDefault(); setMenu(false); navigate('/audit'); }}>
                  {t('nav.audit')}
                </a>
              </li>
            )}
          </ul>
        </nav>
        <main id="main" className="main"><Suspense fallback={<p>{t('loading')}</p>}>{page}</Suspense></main>
      </div>
    </div>
  );
}
