/**
 * Subscriptions: the list (filtered by state), subscribing a customer to a plan with one of the
 * customer's stored cards (I12), and a subscription's page: its plan, state and next charge, every charge
 * with its order, the notifications of those orders, and cancelling it (I15).
 */
import { useState, type FormEvent } from 'react';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { qs, v1, type V1Answer } from '../../api';
import { useT } from '../../i18n';
import { navigate } from '../../router';
import { Status } from '../../components/Status';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { SUBSCRIPTION_STATUSES, errorText, json, units, usePlans, when } from './shared';

export function OrderLink({ uuid, can }: { uuid: string | null | undefined; can: AreaProps['can'] }) {
  if (!uuid) return <>—</>;
  if (!can('payments.read')) return <span className="mono" title={uuid}>{uuid.slice(0, 8)}</span>;
  return <a className="mono" href={`/dashboard/payments/${uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${uuid}`); }}>{uuid.slice(0, 8)}</a>;
}

export function SubscriptionLink({ id }: { id: string }) {
  return <a className="mono" href={`/dashboard/subscriptions/${id}`} onClick={(e) => { e.preventDefault(); navigate(`/subscriptions/${id}`); }}>{id.slice(0, 8)}</a>;
}

export function SubscriptionList(props: AreaProps) {
  const { me, can } = props;
  const { t, lang } = useT();
  const [status, setStatus] = useState('');
  const [limit, setLimit] = useState(50);
  const q = useQuery({
    queryKey: ['subs-list', me.merchant.uuid, me.env, status, limit],
    queryFn: () => v1<V1Answer<'/subscriptions/subscriptions', 'get'>>('GET', `/subscriptions/subscriptions${qs({ status, limit })}`),
  });
  return (
    <>
      {can('subscriptions.manage') && <Subscribe {...props} />}
      <div className="card filters">
        <label>{t('subs.status')}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">{t('subs.any')}</option>
            {SUBSCRIPTION_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </div>
      <div className="table-wrap card">
        {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'subscriptions' }}
          rows={q.data?.subscriptions ?? []}
          rowKey={(s) => String(s.id)}
          rowProps={(s) => ({ 'data-id': String(s.id) })}
          empty={q.data ? t('subs.no_subscriptions') : undefined}
          columns={[
            { header: t('subs.subscription'), cell: (s) => <SubscriptionLink id={s.id} /> },
            { header: t('subs.customer'), cell: (s) => s.customer },
            { header: t('subs.plan'), cell: (s) => s.plan.name },
            { header: t('subs.status'), cell: (s) => <Status value={s.status} /> },
            { header: t('subs.amount'), className: 'num', cell: (s) => units(s.amount, s.payments.find((p) => p.currency)?.currency ?? null, lang) },
            { header: t('subs.next_charge'), cell: (s) => when(s.next_charge_date, lang, me.merchant.timezone) },
            { header: t('subs.charged'), cell: (s) => `${s.total_payment_charged}${s.total_payment_number ? ` / ${s.total_payment_number}` : ''}` },
          ]}
        />
        {q.data?.next_offset != null && limit < 1000 && <button type="button" className="secondary more" onClick={() => setLimit(Math.min(1000, limit + 50))}>{t('subs.more')}</button>}
      </div>
    </>
  );
}

/** I12: a customer subscribed to a plan, charged with one of the customer's stored cards. */
function Subscribe({ me, can }: AreaProps) {
  const { t } = useT();
  const qc = useQueryClient();
  const plans = usePlans(me);
  const [plan, setPlan] = useState('');
  const [customer, setCustomer] = useState('');
  const [lookup, setLookup] = useState<string | null>(null);
  const [card, setCard] = useState('');
  const [attempts, setAttempts] = useState('4');
  const [total, setTotal] = useState('');
  const [initial, setInitial] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const readCards = can('cards.read');
  const sources = useQuery({
    queryKey: ['subs-sources', me.merchant.uuid, me.env, lookup],
    queryFn: () => v1<V1Answer<'/customer/{ext_id}/sources', 'get'>>('GET', `/customer/${encodeURIComponent(lookup!)}/sources${qs({ sourceType: 'card', status: 'ALL', unique: true })}`),
    enabled: readCards && !!lookup,
    retry: false,
  });
  const cards = (sources.data?.sources ?? []).filter((s) => s.object === 'CARD');
  const planId = plan || plans.data?.plans[0]?.external_id || '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const r = await v1<V1Answer<'/subscriptions/subscription', 'post'>>('POST', '/subscriptions/subscription', {
        plan: planId, customer, payment_attempts_limit: attempts, total_payment_number: total || null, initial_date: initial || null,
        additional_data: { source_uuid: card },
      });
      setDone(r.status);
      await qc.invalidateQueries({ queryKey: ['subs-list'] });
      navigate(`/subscriptions/${r.subscription}`);
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-subscription">
      <h2 id="new-subscription">{t('subs.new_subscription')}</h2>
      <div className="subs-form">
        <label>{t('subs.plan')}
          <select required value={planId} onChange={(e) => setPlan(e.target.value)} data-testid="sub-plan">
            {(plans.data?.plans ?? []).map((p) => <option key={p.external_id} value={p.external_id}>{p.name} ({p.external_id})</option>)}
          </select>
        </label>
        <div className="subs-card-pick">
          <label>{t('subs.customer')}<input required maxLength={255} value={customer} onChange={(e) => { setCustomer(e.target.value); setCard(''); }} data-testid="sub-customer" /></label>
          {readCards && <button type="button" className="secondary" disabled={!customer} onClick={() => setLookup(customer)} data-testid="sub-find-cards">{t('subs.find_cards')}</button>}
        </div>
        {readCards ? (
          <label>{t('subs.card')}
            <select required value={card} onChange={(e) => setCard(e.target.value)} data-testid="sub-card">
              <option value="">{lookup && sources.isSuccess && cards.length === 0 ? t('subs.no_cards') : t('subs.card_choose')}</option>
              {cards.map((c) => <option key={c.uuid} value={c.uuid}>{c.brand} {c.bin ?? ''}… {c.last4}{c.expire_month && c.expire_year ? ` (${c.expire_month}/${c.expire_year})` : ''}</option>)}
            </select>
          </label>
        ) : (
          <label>{t('subs.card_uuid')}<input required pattern="[0-9a-fA-F-]{36}" value={card} onChange={(e) => setCard(e.target.value.trim())} data-testid="sub-card-uuid" /></label>
        )}
        <label>{t('subs.attempts_limit')}<input required inputMode="numeric" pattern="[0-9]+" value={attempts} onChange={(e) => setAttempts(e.target.value)} /></label>
        <label>{t('subs.total_payments')}<input inputMode="numeric" pattern="[0-9]*" value={total} onChange={(e) => setTotal(e.target.value)} /></label>
        <label>{t('subs.initial_date')}<input type="date" value={initial} onChange={(e) => setInitial(e.target.value)} data-testid="sub-initial" /></label>
        <button type="submit" className="primary" disabled={busy || !planId} data-testid="sub-submit">{t('subs.subscribe')}</button>
      </div>
      {sources.error && <div role="alert" className="error">{errorText(sources.error, t)}</div>}
      {error && <div role="alert" className="error" data-testid="sub-error">{error}</div>}
      {done && <p role="status" className="notice">{t('subs.subscribed', { status: done })}</p>}
    </form>
  );
}

export function SubscriptionDetail({ me, can, id }: AreaProps & { id: string }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['subs-one', me.merchant.uuid, me.env, id],
    queryFn: () => v1<V1Answer<'/subscriptions/subscription/{id}', 'get'>>('GET', `/subscriptions/subscription/${id}`),
    // an active subscription's charges come by themselves
    refetchInterval: (query) => (query.state.data?.subscription.active ? 3000 : false),
  });
  const s = q.data?.subscription;
  const orders = [...new Set((s?.payments ?? []).map((p) => json(p.payment_details).order_uuid as string | undefined).filter((x): x is string => !!x))];
  const events = useQueries({
    queries: orders.map((o) => ({
      queryKey: ['subs-events', me.merchant.uuid, me.env, o],
      queryFn: () => v1<V1Answer<'/events', 'get'>>('GET', `/events${qs({ order_uuid: o, limit: 50 })}`),
      enabled: can('payments.read'),
    })),
  });
  const notifications = events.flatMap((e) => e.data?.events ?? []).sort((a, b) => a.created.localeCompare(b.created));
  const at = (iso: string | null) => when(iso, lang, me.merchant.timezone);
  const additional = json(s?.additional_data ?? null);
  const sourceUuid = typeof additional.source_uuid === 'string' ? additional.source_uuid : null;
  // the card charged, as brand, BIN and last 4 (for staff who may read cards)
  const source = useQuery({
    queryKey: ['subs-source', me.merchant.uuid, me.env, sourceUuid],
    queryFn: () => v1<V1Answer<'/payment-method/{identifier}', 'get'>>('GET', `/payment-method/${sourceUuid}`),
    enabled: !!sourceUuid && can('cards.read'),
    retry: false,
  });
  return (
    <section aria-labelledby="sub-title">
      <a className="back" href="/dashboard/subscriptions" onClick={(e) => { e.preventDefault(); navigate('/subscriptions'); }}>{t('subs.back')}</a>
      <div className="page-head"><h1 id="sub-title">{t('subs.subscription')} <span className="mono">{id.slice(0, 8)}</span></h1></div>
      {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
      {s && (
        <>
          <div className="card">
            <div className="action-row" style={{ alignItems: 'center' }}>
              <span data-testid="sub-status"><Status value={s.status} /></span>
              {s.active && can('subscriptions.manage') && (
                <ConfirmDialog
                  testId="sub-cancel-dialog"
                  trigger={<button type="button" className="secondary" data-testid="sub-cancel">{t('subs.cancel')}</button>}
                  title={t('subs.cancel')}
                  message={t('subs.cancel_confirm')}
                  onConfirm={async () => {
                    await v1('DELETE', `/subscriptions/subscription/${id}`);
                    await qc.invalidateQueries({ queryKey: ['subs-one'] });
                    await qc.invalidateQueries({ queryKey: ['subs-list'] });
                  }}
                />
              )}
            </div>
            <dl className="facts" style={{ marginTop: '.75rem' }}>
              <dt>{t('subs.customer')}</dt><dd>{s.customer}</dd>
              <dt>{t('subs.plan')}</dt><dd>{s.plan.name} <span className="mono small">({s.plan.external_id})</span></dd>
              <dt>{t('subs.product')}</dt><dd>{s.plan.product.name}</dd>
              <dt>{t('subs.amount')}</dt><dd>{units(s.amount, s.payments.find((p) => p.currency)?.currency ?? null, lang)} · {t('subs.every')} {s.plan.interval} {t(`subs.${s.plan.interval_type}` as 'subs.DAILY')}</dd>
              <dt>{t('subs.active')}</dt><dd>{s.active ? t('subs.yes') : t('subs.no')}</dd>
              <dt>{t('subs.next_charge')}</dt><dd data-testid="sub-next">{at(s.next_charge_date)}</dd>
              <dt>{t('subs.first_charge')}</dt><dd>{at(s.first_charge_date)}</dd>
              <dt>{t('subs.charged')}</dt><dd>{s.total_payment_charged}{s.total_payment_number ? ` / ${s.total_payment_number}` : ''}</dd>
              <dt>{t('subs.attempts_limit')}</dt><dd>{s.payment_attempts_limit}</dd>
              <dt>{t('subs.card_shown')}</dt><dd data-testid="sub-card-shown">{source.data ? `${source.data.source.brand} ${source.data.source.bin ?? ''}… ${source.data.source.last4}` : <span className="mono small">{sourceUuid ?? '—'}</span>}</dd>
              <dt>{t('subs.created')}</dt><dd>{at(s.created_at)}</dd>
            </dl>
          </div>
          <div className="table-wrap card">
            <h2 style={{ padding: '0 .75rem' }}>{t('subs.charges')}</h2>
            <DataTable
              tableProps={{ 'data-testid': 'sub-charges' }}
              rows={s.payments}
              rowKey={(p) => String(p.id)}
              rowProps={(p) => ({ 'data-number': String(p.payment_number), 'data-attempt': String(p.attempt) })}
              empty={t('subs.no_charges')}
              columns={[
                { header: t('subs.payment_number'), className: 'num', cell: (p) => p.payment_number },
                { header: t('subs.attempt'), className: 'num', cell: (p) => p.attempt },
                { header: t('subs.due'), cell: (p) => at(p.payment_date) },
                { header: t('subs.status'), cell: (p) => <Status value={p.status} /> },
                { header: t('subs.amount'), className: 'num', cell: (p) => units(p.amount, p.currency, lang) },
                { header: t('subs.order'), cell: (p) => <OrderLink uuid={json(p.payment_details).order_uuid} can={can} /> },
                { header: t('subs.reason'), cell: (p) => json(p.payment_details).error ?? (p.status === 'FAILED' ? t('subs.declined') : '') },
              ]}
            />
          </div>
          {can('payments.read') && (
            <div className="table-wrap card">
              <h2 style={{ padding: '0 .75rem' }}>{t('subs.notifications')}</h2>
              <DataTable
                tableProps={{ 'data-testid': 'sub-notifications' }}
                rows={notifications}
                rowKey={(e) => e.uuid}
                empty={t('subs.notifications_none')}
                columns={[
                  { header: t('subs.created'), cell: (e) => at(e.created) },
                  { header: t('subs.type'), className: 'small', cell: (e) => e.type },
                  { header: t('subs.order'), cell: (e) => <OrderLink uuid={e.order_uuid} can={can} /> },
                  { header: 'URL', className: 'small break', cell: (e) => e.url },
                  { header: t('subs.status'), cell: (e) => <Status value={e.status} /> },
                  { header: t('subs.attempts'), className: 'num', cell: (e) => e.attempts },
                ]}
              />
            </div>
          )}
        </>
      )}
    </section>
  );
}
