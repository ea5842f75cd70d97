/**
 * The charges of the merchant's subscriptions (I7, filtered by state) and the failed-charge view: every
 * declined or not chargeable attempt with its reason and what happens next (the dashboard's own list).
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, qs, v1, type Answer, type V1Answer } from '../../api';
import { useT } from '../../i18n';
import { Status } from '../../components/Status';
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
        <table className="orders" data-testid="sub-payments">
          <thead><tr><th scope="col">{t('subs.due')}</th><th scope="col">{t('subs.subscription')}</th><th scope="col">{t('subs.payment_number')}</th><th scope="col">{t('subs.attempt')}</th><th scope="col">{t('subs.status')}</th><th scope="col">{t('subs.amount')}</th><th scope="col">{t('subs.order')}</th></tr></thead>
          <tbody>
            {(q.data?.payments ?? []).map((p) => (
              <tr key={p.id} data-id={p.id}>
                <td data-label={t('subs.due')}>{when(p.payment_date, lang, me.merchant.timezone)}</td>
                <td data-label={t('subs.subscription')}><SubscriptionLink id={p.subscription} /></td>
                <td data-label={t('subs.payment_number')} className="num">{p.payment_number}</td>
                <td data-label={t('subs.attempt')} className="num">{p.attempt}</td>
                <td data-label={t('subs.status')}><Status value={p.status} /></td>
                <td data-label={t('subs.amount')} className="num">{units(p.amount, p.currency, lang)}</td>
                <td data-label={t('subs.order')}><OrderLink uuid={json(p.payment_details).order_uuid} can={can} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        {q.data && q.data.payments.length === 0 && <p className="empty">{t('subs.no_charges')}</p>}
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
      <table className="orders" data-testid="sub-failed">
        <thead><tr><th scope="col">{t('subs.due')}</th><th scope="col">{t('subs.subscription')}</th><th scope="col">{t('subs.customer')}</th><th scope="col">{t('subs.plan')}</th><th scope="col">{t('subs.payment_number')}</th><th scope="col">{t('subs.status')}</th><th scope="col">{t('subs.amount')}</th><th scope="col">{t('subs.reason')}</th><th scope="col">{t('subs.retry')}</th><th scope="col">{t('subs.order')}</th></tr></thead>
        <tbody>
          {(q.data?.charges ?? []).map((c) => (
            <tr key={c.id} data-id={c.id} data-subscription={c.subscription}>
              <td data-label={t('subs.due')}>{at(c.payment_date)}</td>
              <td data-label={t('subs.subscription')}><SubscriptionLink id={c.subscription} /></td>
              <td data-label={t('subs.customer')}>{c.customer}</td>
              <td data-label={t('subs.plan')} className="mono small">{c.plan}</td>
              <td data-label={t('subs.payment_number')}>{c.payment_number} · {t('subs.attempt')} {c.attempt}/{c.attempts_limit}</td>
              <td data-label={t('subs.status')}><Status value={c.status} /></td>
              <td data-label={t('subs.amount')} className="num">{units(c.amount, c.currency, lang)}</td>
              <td data-label={t('subs.reason')} data-testid="failed-reason">{c.reason ?? t('subs.declined')}</td>
              <td data-label={t('subs.retry')} data-testid="failed-retry">{retry(c)}</td>
              <td data-label={t('subs.order')}><OrderLink uuid={c.order_uuid} can={can} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      {q.data && q.data.charges.length === 0 && <p className="empty">{t('subs.no_failed')}</p>}
      {q.data?.next_offset != null && limit < 200 && <button type="button" className="secondary more" onClick={() => setLimit(Math.min(200, limit + 50))}>{t('subs.more')}</button>}
    </div>
  );
}
