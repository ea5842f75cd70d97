/**
 * Users and audit (MANAGER): the merchant's dashboard users (invite: D3 e-mails the one-time password, or
 * without e-mail it is shown once to the manager; the invitation's delivery and a new password; change
 * group; disable or enable; see and lift sign-in locks), and the audit log of every staff action and
 * sign-in, exportable as CSV.
 */
import { useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { API, api, qs, type Answer, type Me } from '../api';
import { dateTime, statusLabel, useT } from '../i18n';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';

const GROUPS = ['MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS'];


export function Users({ me }: { me: Me }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const users = useQuery({ queryKey: ['users', me.merchant.uuid], queryFn: () => api<Answer<'/users', 'get'>>('GET', '/users') });
  const [form, setForm] = useState({ username: '', email: '', language: 'ES', group: 'VIEWER' });
  // the one-time password of a user just invited (or sent a new one) when no e-mail can carry it: shown once
  const [given, setGiven] = useState<{ user: string; email: string; password: string | null } | null>(null);
  const at = (iso: string) => dateTime(iso, lang, me.merchant.timezone);
  const [groups, setGroups] = useState<Record<string, string>>({});
  const refresh = () => qc.invalidateQueries({ queryKey: ['users'] });
  return (
    <section aria-labelledby="users-title">
      <div className="page-head"><h1 id="users-title">{t('nav.users')}</h1></div>
      <div className="card">
        <h2>{t('users.invite')}</h2>
        <div className="filter-grid">
          <label>{t('users.username')}<input value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} /></label>
          <label>E-mail<input type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} /></label>
          <label>{t('lang.label')}
            <select value={form.language} onChange={(e) => setForm({ ...form, language: e.target.value })}>
              {['ES', 'EN', 'PT'].map((l) => <option key={l}>{l}</option>)}
            </select>
          </label>
          <label>{t('users.group')}
            <select value={form.group} onChange={(e) => setForm({ ...form, group: e.target.value })}>
              {GROUPS.map((g) => <option key={g}>{g}</option>)}
            </select>
          </label>
        </div>
        <p className="muted small">{t('users.invite_help')}</p>
        <ConfirmDialog
          trigger={<button type="button" className="primary" disabled={!form.username || !form.email}>{t('users.invite')}</button>}
          title={t('users.invite')}
          message={`${form.username} <${form.email}> · ${form.group}`}
          onConfirm={async () => {
            const r = await api<Answer<'/users', 'post'>>('POST', '/users', form);
            setGiven({ user: form.username, email: form.email, password: r.password });
            setForm({ ...form, username: '', email: '' });
            await refresh();
          }}
        />
        {given && <OneTime given={given} onHide={() => setGiven(null)} />}
      </div>
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'users' }}
          rows={users.data?.users ?? []}
          rowKey={(u) => u.uuid}
          rowProps={(u) => ({ 'data-uuid': u.uuid })}
          columns={[
            { header: t('users.username'), cell: (u) => `${u.username}${u.totp_enabled ? ' 🔒' : ''}` },
            { header: 'E-mail', className: 'break', cell: (u) => u.email },
            {
              header: t('users.group'),
              cell: (u) => {
                const chosen = groups[u.uuid] ?? u.group;
                return u.uuid === me.user.uuid ? u.group : (
                  <span className="inline">
                    <select aria-label={`${t('users.group')} ${u.username}`} value={chosen} onChange={(e) => setGroups({ ...groups, [u.uuid]: e.target.value })}>
                      {GROUPS.map((g) => <option key={g}>{g}</option>)}
                    </select>
                    {chosen !== u.group && (
                      <ConfirmDialog
                        trigger={<button type="button" className="secondary small-button">{t('users.save')}</button>}
                        title={t('users.group')}
                        message={`${u.username}: ${u.group} → ${chosen}`}
                        onConfirm={async () => { await api('PUT', `/users/${u.uuid}`, { group: chosen }); await refresh(); }}
                      />
                    )}
                  </span>
                );
              },
            },
            {
              header: t('col.status'),
              cell: (u) => (
                <>
                  {u.signin.locks.length > 0 ? <span className="badge badge-bad" data-testid="user-locked">{t('users.status_locked')}</span> : <span className={`badge ${u.status === 'ACTIVE' ? 'badge-ok' : 'badge-neutral'}`}>{statusLabel(u.status, t)}</span>}
                  {u.signin.locks.map((l) => (
                    <small key={l.address} className="lock-note">{t('users.locked', { address: l.address, until: at(l.locked_until), failures: String(l.failures), attempts: String(l.attempts_during_lock) })}</small>
                  ))}
                  {u.signin.slowed_until && <small className="lock-note">{t('users.slowed', { until: at(u.signin.slowed_until), failures: String(u.signin.failures) })}</small>}
                  {u.must_change_password && u.invitation && (
                    <small className="lock-note" data-testid="user-invitation">
                      {u.invitation.delivery === 'SHOWN' ? t('users.invitation_shown') : u.invitation.mail_status ? t(`users.mail.${u.invitation.mail_status}`) : ''}
                      {u.invitation.mail_error && u.invitation.mail_status !== 'SENT' ? ` (${u.invitation.mail_error})` : ''}
                    </small>
                  )}
                </>
              ),
            },
            {
              header: t('order.actions'),
              cell: (u) => {
                const self = u.uuid === me.user.uuid;
                return (
                  <>
                    {!self && (u.signin.locks.length > 0 || u.signin.slowed_until) && (
                      <ConfirmDialog
                        trigger={<button type="button" className="secondary small-button">{t('users.unlock')}</button>}
                        title={t('users.unlock')}
                        message={t('users.unlock_confirm', { user: u.username })}
                        onConfirm={async () => { await api('POST', `/users/${u.uuid}/unlock`); await refresh(); }}
                      />
                    )}
                    {!self && u.must_change_password && u.status === 'ACTIVE' && (
                      <ConfirmDialog
                        trigger={<button type="button" className="secondary small-button">{t('users.resend')}</button>}
                        title={t('users.resend')}
                        message={t('users.resend_confirm', { user: u.username })}
                        onConfirm={async () => {
                          const r = await api<Answer<'/users/{uuid}/credentials', 'post'>>('POST', `/users/${u.uuid}/credentials`);
                          setGiven({ user: u.username, email: u.email, password: r.password });
                          await refresh();
                        }}
                      />
                    )}
                    {!self && (
                      <ConfirmDialog
                        trigger={<button type="button" className="secondary small-button">{u.status === 'ACTIVE' ? t('users.disable') : t('users.enable')}</button>}
                        title={u.status === 'ACTIVE' ? t('users.disable') : t('users.enable')}
                        message={u.status === 'ACTIVE' ? t('users.disable_confirm', { user: u.username }) : u.username}
                        onConfirm={async () => { await api('PUT', `/users/${u.uuid}`, { status: u.status === 'ACTIVE' ? 'DISABLED' : 'ACTIVE' }); await refresh(); }}
                      />
                    )}
                  </>
                );
              },
            },
          ]}
        />
      </div>
    </section>
  );
}

/** After an invitation: the one-time password shown once (no e-mail), or where the e-mail went. */
function OneTime({ given, onHide }: { given: { user: string; email: string; password: string | null }; onHide: () => void }) {
  const { t } = useT();
  if (!given.password) return <div role="status" className="notice" data-testid="invite-mailed">{t('users.mailed', { email: given.email })}</div>;
  return (
    <div role="status" className="notice" data-testid="one-time-password">
      <p>{t('users.password_once', { user: given.user })}</p>
      <p><code className="mono one-time">{given.password}</code></p>
      <div className="action-row">
        <button type="button" className="secondary" onClick={() => navigator.clipboard?.writeText(given.password!).catch(() => undefined)}>{t('users.copy')}</button>
        <button type="button" className="secondary" onClick={onHide}>{t('users.hide')}</button>
      </div>
    </div>
  );
}

export function Audit({ me }: { me: Me }) {
  const { t, lang } = useT();
  const [action, setAction] = useState('');
  const q = useInfiniteQuery({
    queryKey: ['audit', me.merchant.uuid, action],
    queryFn: ({ pageParam }) => api<Answer<'/audit', 'get'>>('GET', `/audit${qs({ action, cursor: pageParam, limit: 100 })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <section aria-labelledby="audit-title">
      <div className="page-head">
        <h1 id="audit-title">{t('nav.audit')}</h1>
        <a className="button secondary" href={`${API}/audit/export.csv${qs({ action })}`} download>{t('payments.export')}</a>
      </div>
      <div className="card filters">
        <label>{t('audit.action')}<input value={action} placeholder="signin, order.refund…" onChange={(e) => setAction(e.target.value.trim())} /></label>
      </div>
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'audit' }}
          rows={rows}
          rowKey={(e) => String(e.id)}
          columns={[
            { header: t('col.created'), cell: (e) => dateTime(e.created_at, lang, me.merchant.timezone, true) },
            { header: t('users.username'), cell: (e) => e.username ?? '—' },
            { header: t('audit.action'), className: 'mono small', cell: (e) => e.action },
            { header: t('audit.target'), className: 'mono small break', cell: (e) => e.target ?? '' },
            { header: 'IP', className: 'mono small', cell: (e) => e.ip ?? '' },
          ]}
        />
      </div>
      {q.hasNextPage && <button type="button" className="secondary more" onClick={() => q.fetchNextPage()}>{t('payments.more')}</button>}
    </section>
  );
}
