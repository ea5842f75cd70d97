/**
 * The charges of the merchant's subscriptions (I7, filtered by state) and the failed-charge view: every
 * declined or not chargeable attempt with its reason and what happens next (the dashboard's own list).
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, qs, v1, type Answer, type V1Answer } from '../../api';
import { useT } from '../../i18n';
import { Status } from '../../components/Status';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { PAYMENT_STATUSES, errorText, json, units, when } from './shared';
import { OrderLink, SubscriptionLink } from './Subscriptions';

export function PaymentList({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const [status, setStatus] = useState('');
  const [limit, setLimit] = useState(100);
  const q = useQuery({
    queryKey: ['subs-payments', me.merchant.uuid, me.env, status, limit],
    queryFn: () => v1<V1Answer<'/subscriptions/payments', 'get'>>('GET', `/subscriptions/payments${qs({ status, limit })}`),
  });
  return (
    <>
      <div className="card filters">
        <label>{t('subs.status')}
          <select value={status} onChange={(e) => setStatus(e.target.value)} data-testid="payments-status">
            <option value="">{t('subs.any')}</option>
            {PAYMENT_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </div>
      <div className="table-wrap card">
        {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'sub-payments' }}
          rows={q.data?.payments ?? []}
          rowKey={(p) => String(p.id)}
          rowProps={(p) => ({ 'data-id': String(p.id) })}
          empty={q.data ? t('subs.no_charges') : undefined}
          columns={[
            { header: t('subs.due'), cell: (p) => when(p.payment_date, lang, me.merchant.timezone) },
            { header: t('subs.subscription'), cell: (p) => <SubscriptionLink id={p.subscription} /> },
            { header: t('subs.payment_number'), className: 'num', cell: (p) => p.payment_number },
            { header: t('subs.attempt'), className: 'num', cell: (p) => p.attempt },
            { header: t('subs.status'), cell: (p) => <Status value={p.status} /> },
            { header: t('subs.amount'), className: 'num', cell: (p) => units(p.amount, p.currency, lang) },
            { header: t('subs.order'), cell: (p) => <OrderLink uuid={json(p.payment_details).order_uuid} can={can} /> },
          ]}
        />
        {q.data?.next_offset != null && limit < 1000 && <button type="button" className="secondary more" onClick={() => setLimit(Math.min(1000, limit + 100))}>{t('subs.more')}</button>}
      </div>
    </>
  );
}

type FailedCharge = Answer<'/subscriptions/failed-charges', 'get'>['charges'][number];

export function FailedCharges({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const [limit, setLimit] = useState(50);
  const q = useQuery({
    queryKey: ['subs-failed', me.merchant.uuid, me.env, limit],
    queryFn: () => api<Answer<'/subscriptions/failed-charges', 'get'>>('GET', `/subscriptions/failed-charges${qs({ limit })}`),
  });
  const at = (iso: string | null) => when(iso, lang, me.merchant.timezone);
  const retry = (c: FailedCharge) =>
    c.retry === 'RETRIED' ? t('subs.retry_RETRIED', { n: String(c.retry_attempt), status: c.retry_status ?? '' })
      : c.retry === 'SCHEDULED' ? t('subs.retry_SCHEDULED', { at: at(c.next_attempt_at) })
        : t('subs.retry_NONE', { status: c.subscription_status });
  return (
    <div className="table-wrap card">
      {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
      <DataTable
        tableProps={{ 'data-testid': 'sub-failed' }}
        rows={q.data?.charges ?? []}
        rowKey={(c) => String(c.id)}
        rowProps={(c) => ({ 'data-id': String(c.id), 'data-subscription': String(c.subscription) })}
        empty={q.data ? t('subs.no_failed') : undefined}
        columns={[
          { header: t('subs.due'), cell: (c) => at(c.payment_date) },
          { header: t('subs.subscription'), cell: (c) => <SubscriptionLink id={c.subscription} /> },
          { header: t('subs.customer'), cell: (c) => c.customer },
          { header: t('subs.plan'), className: 'mono small', cell: (c) => c.plan },
          { header: t('subs.payment_number'), cell: (c) => <>{c.payment_number} · {t('subs.attempt')} {c.attempt}/{c.attempts_limit}</> },
          { header: t('subs.status'), cell: (c) => <Status value={c.status} /> },
          { header: t('subs.amount'), className: 'num', cell: (c) => units(c.amount, c.currency, lang) },
          { header: t('subs.reason'), testId: 'failed-reason', cell: (c) => c.reason ?? t('subs.declined') },
          { header: t('subs.retry'), testId: 'failed-retry', cell: (c) => retry(c) },
          { header: t('subs.order'), cell: (c) => <OrderLink uuid={c.order_uuid} can={can} /> },
        ]}
      />
      {q.data?.next_offset != null && limit < 200 && <button type="button" className="secondary more" onClick={() => setLimit(Math.min(200, limit + 50))}>{t('subs.more')}</button>}
    </div>
  );
}
