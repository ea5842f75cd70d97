/**
 * Routing (ours, docs/routing.md): the merchant's routing profiles (name, entry service, status,
 * version, rules, last change), a profile's page with its rules and "try it" (a hypothetical payment's
 * decision), the editor (create, edit, delete: MANAGER), and the services' health and circuits. The list
 * comes from the dashboard's own route (entry services named); the rest goes through the merchant API
 * (the bridge).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, v1, type Answer, type V1Answer } from '../../api';
import { dateTime, useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { AreaProps } from '../types';
import { ProfileEditor, type Service } from './editor';
import { TryIt } from './tryit';
import { emptyProfile, toApi, toForm, type ApiCondition, type ApiRule, type FormProfile } from './model';
import './area.css';

type Overview = Answer<'/routing/overview', 'get'>;
type ProfileAnswer = V1Answer<'/routing-profiles/{uuid}', 'get'>;
type Health = V1Answer<'/routing/health', 'get'>['routing_health'][number];

const UUID_RE = /^\/([0-9a-f-]{36})(\/edit)?$/i;
const errorText = (e: unknown, t: (k: Key) => string) => (e instanceof ApiError ? e.details : t('error.network'));
const go = (path: string) => (e: { preventDefault(): void }) => { e.preventDefault(); navigate(path); };

function useOverview(me: AreaProps['me']) {
  return useQuery({ queryKey: ['routing-overview', me.merchant.uuid, me.env], queryFn: () => api<Overview>('GET', '/routing/overview') });
}

function StatusBadge({ value }: { value: string }) {
  const { t } = useT();
  return <span className={`badge badge-${value === 'ACTIVE' ? 'ok' : 'neutral'}`} data-status={value}>{t(`routing.status.${value}` as Key)}</span>;
}

export function RoutingPage(props: AreaProps) {
  const path = props.sub.split('?')[0];
  if (path === '/new') return <EditPage {...props} uuid={null} />;
  const m = UUID_RE.exec(path);
  if (m && m[2]) return <EditPage {...props} uuid={m[1]} />;
  if (m) return <ProfilePage {...props} uuid={m[1]} />;
  return <ProfileList {...props} />;
}

function ProfileList({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const q = useOverview(me);
  return (
    <section aria-labelledby="routing-title">
      <div className="page-head">
        <h1 id="routing-title">{t('routing.title')}</h1>
        {can('routing.manage') && <a className="button primary" href="/dashboard/routing/new" onClick={go('/routing/new')} data-testid="routing-new">{t('routing.new')}</a>}
      </div>
      <p className="muted">{t('routing.intro')}</p>
      <div className="table-wrap card">
        {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'routing-list', 'aria-labelledby': 'routing-title' }}
          rows={q.data?.routing_profiles ?? []}
          rowKey={(p) => p.uuid}
          rowProps={(p) => ({ 'data-uuid': p.uuid, 'data-status': p.status })}
          rowLink={(p) => ({ href: `/dashboard/routing/${p.uuid}`, onOpen: () => navigate(`/routing/${p.uuid}`) })}
          empty={q.data ? t('routing.none') : undefined}
          columns={[
            { header: t('routing.name'), cell: (p) => p.name },
            { header: t('routing.entry'), cell: (p) => p.service_name ?? p.service_uuid },
            { header: t('routing.status'), cell: (p) => <StatusBadge value={p.status} /> },
            { header: t('routing.version'), className: 'num', cell: (p) => p.version },
            { header: t('routing.rules'), className: 'num', testId: 'routing-rules-count', cell: (p) => p.rules },
            { header: t('routing.updated'), cell: (p) => dateTime(p.updated_at, lang, me.merchant.timezone) },
          ]}
        />
      </div>
      <HealthPanel me={me} />
    </section>
  );
}

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)} %`);
const ms = (x: number | null) => (x === null ? '—' : `${Math.round(x)} ms`);

function HealthPanel({ me }: { me: AreaProps['me'] }) {
  const { t } = useT();
  const q = useQuery({ queryKey: ['routing-health', me.merchant.uuid, me.env], queryFn: () => v1<V1Answer<'/routing/health', 'get'>>('GET', '/routing/health') });
  return (
    <div className="table-wrap card">
      <h2 id="routing-health-title">{t('routing.health')}</h2>
      <p className="small muted">{t('routing.health_help')}</p>
      {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
      <DataTable
        tableProps={{ 'data-testid': 'routing-health', 'aria-labelledby': 'routing-health-title' }}
        rows={q.data?.routing_health ?? []}
        rowKey={(h: Health) => h.service_uuid}
        rowProps={(h) => ({ 'data-service': h.service_uuid, 'data-state': h.state, className: h.state === 'OPEN' ? 'routing-open' : undefined })}
        columns={[
          { header: t('routing.service'), cell: (h) => h.service_name },
          { header: t('routing.circuit'), cell: (h) => <span className={`badge badge-${h.state === 'OPEN' ? 'bad' : h.state === 'HALF_OPEN' ? 'warn' : 'ok'}`}>{t(`routing.circuit.${h.state}` as Key)}</span> },
          { header: t('routing.attempts'), className: 'num', cell: (h) => h.attempts },
          { header: t('routing.approval'), className: 'num', cell: (h) => pct(h.approval_rate) },
          { header: t('routing.errors'), className: 'num', cell: (h) => pct(h.error_rate) },
          { header: t('routing.timeouts'), className: 'num', cell: (h) => pct(h.timeout_rate) },
          { header: t('routing.p50'), className: 'num', cell: (h) => ms(h.latency_p50_ms) },
          { header: t('routing.p95'), className: 'num', cell: (h) => ms(h.latency_p95_ms) },
        ]}
      />
    </div>
  );
}

/** A condition in words: its type in the user's language, then its values. */
function conditionText(c: ApiCondition, t: (k: Key) => string): string {
  const label = t(`routing.cond.${c.type}` as Key);
  switch (c.type) {
    case 'bin': return `${label} ${Array.isArray(c.ranges) ? c.ranges.map((r) => (r.from === r.to ? r.from : `${r.from}–${r.to}`)).join(', ') : ''}`;
    case 'amount': return `${label} ${c.min === undefined || c.min === '' ? '' : `≥ ${c.min}`}${c.max === undefined || c.max === '' ? '' : ` ≤ ${c.max}`}`.trim();
    case 'metadata': return `${label} ${c.key ?? ''}${c.equals ? ` = ${c.equals}` : ''}`;
    default: return `${label} ${Array.isArray(c.values) ? c.values.join(', ') : ''}`;
  }
}

function RuleSummary({ rule, name }: { rule: ApiRule; name: (uuid: string) => string }) {
  const { t } = useT();
  const a = rule.action;
  const first = a.type === 'split' && Array.isArray(a.splits) ? a.splits.map((s) => `${name(s.service_uuid)} (${s.weight})`).join(' / ') : name(typeof a.service_uuid === 'string' ? a.service_uuid : '');
  const fallbacks = Array.isArray(a.fallbacks) ? a.fallbacks.map(name) : [];
  return (
    <li data-testid="profile-rule" data-name={rule.name}>
      <strong>{rule.name}</strong>{' '}
      <span className="muted small">{rule.conditions.length ? rule.conditions.map((c) => conditionText(c, t)).join(' · ') : '*'}</span>
      <div className="small">→ {first}{fallbacks.length ? ` → ${t('routing.fallbacks')}: ${fallbacks.join(', ')}` : ''}</div>
    </li>
  );
}

function ProfilePage({ me, can, uuid }: AreaProps & { uuid: string }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ['routing-profile', me.merchant.uuid, me.env, uuid], queryFn: () => v1<ProfileAnswer>('GET', `/routing-profiles/${uuid}`) });
  const overview = useOverview(me);
  const name = (id: string) => overview.data?.services.find((s) => s.uuid === id)?.name ?? id;
  if (q.error) return <div role="alert" className="error">{errorText(q.error, t)}</div>;
  if (!q.data) return <p className="muted">{t('routing.loading')}</p>;
  const p = q.data.routing_profile;
  return (
    <section aria-labelledby="routing-profile-title" data-testid="routing-profile" data-version={p.version}>
      <div className="page-head">
        <h1 id="routing-profile-title">{p.name} <StatusBadge value={p.status} /></h1>
        <a href="/dashboard/routing" onClick={go('/routing')}>{t('routing.back')}</a>
      </div>
      <div className="card">
        <dl className="facts">
          <dt>{t('routing.entry')}</dt><dd data-testid="profile-entry">{name(p.service_uuid)}</dd>
          <dt>{t('routing.version')}</dt><dd>{p.version}</dd>
          <dt>{t('routing.max_attempts')}</dt><dd>{p.max_attempts}</dd>
          <dt>{t('routing.updated')}</dt><dd>{dateTime(p.updated_at, lang, me.merchant.timezone)}</dd>
        </dl>
        <h2>{t('routing.rules')}</h2>
        {p.rules.length === 0 ? <p className="muted">{t('routing.no_rules')}</p> : <ol className="routing-summary" data-testid="profile-rules">{p.rules.map((r) => <RuleSummary key={r.name} rule={r} name={name} />)}</ol>}
        {can('routing.manage') && (
          <div className="routing-actions">
            <a className="button primary" href={`/dashboard/routing/${uuid}/edit`} onClick={go(`/routing/${uuid}/edit`)} data-testid="routing-edit">{t('routing.edit')}</a>
            <ConfirmDialog
              trigger={<button type="button" className="secondary" data-testid="routing-delete">{t('routing.delete')}</button>}
              title={t('routing.delete_title')}
              message={t('routing.delete_confirm', { name: p.name })}
              testId="routing-delete-dialog"
              onConfirm={async () => {
                await v1('DELETE', `/routing-profiles/${uuid}`);
                await qc.invalidateQueries({ queryKey: ['routing-overview'] });
                navigate('/routing');
              }}
            />
          </div>
        )}
      </div>
      <TryIt uuid={uuid} serviceName={name} />
    </section>
  );
}

function EditPage({ me, can, uuid }: AreaProps & { uuid: string | null }) {
  const { t } = useT();
  const qc = useQueryClient();
  const overview = useOverview(me);
  const q = useQuery({ queryKey: ['routing-profile', me.merchant.uuid, me.env, uuid], queryFn: () => v1<ProfileAnswer>('GET', `/routing-profiles/${uuid}`), enabled: uuid !== null });
  if (!can('routing.manage')) return <div role="alert" className="error" data-testid="routing-forbidden">{t('routing.read_only')}</div>;
  if (overview.error || q.error) return <div role="alert" className="error">{errorText(overview.error ?? q.error, t)}</div>;
  if (!overview.data || (uuid && !q.data)) return <p className="muted">{t('routing.loading')}</p>;
  const services: Service[] = overview.data.services;
  const initial: FormProfile = uuid && q.data ? toForm(q.data.routing_profile) : emptyProfile(services[0]?.uuid ?? '');
  const save = async (f: FormProfile) => {
    const r = uuid
      ? await v1<ProfileAnswer>('PUT', `/routing-profiles/${uuid}`, toApi(f))
      : await v1<ProfileAnswer>('POST', '/routing-profiles', toApi(f));
    await qc.invalidateQueries({ queryKey: ['routing-overview'] });
    await qc.invalidateQueries({ queryKey: ['routing-profile'] });
    navigate(`/routing/${r.routing_profile.uuid}`);
  };
  return (
    <section aria-labelledby="routing-edit-title">
      <div className="page-head">
        <h1 id="routing-edit-title">{uuid ? t('routing.edit_title') : t('routing.create_title')}</h1>
        <a href="/dashboard/routing" onClick={go('/routing')}>{t('routing.back')}</a>
      </div>
      <ProfileEditor key={uuid ?? 'new'} initial={initial} services={services} title={uuid ? (q.data?.routing_profile.name ?? '') : t('routing.new')} onSave={save} onCancel={() => navigate(uuid ? `/routing/${uuid}` : '/routing')} />
    </section>
  );
}
