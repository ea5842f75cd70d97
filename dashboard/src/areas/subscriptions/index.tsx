/**
 * The Subscriptions area: products, plans, subscriptions and their charges, all through the merchant
 * API (I1–I15), and the failed-charge view. Tabs under /subscriptions; a subscription's page at
 * /subscriptions/<id>. Changes need subscriptions.manage; the pages hide them from other groups.
 */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, v1, type V1Answer } from '../../api';
import { useT } from '../../i18n';
import { navigate } from '../../router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { INTERVALS, errorText, units, usePlans, useProducts, when } from './shared';
import { SubscriptionDetail, SubscriptionList } from './Subscriptions';
import { FailedCharges, PaymentList } from './Charges';
import './area.css';

const TABS = ['subscriptions', 'products', 'plans', 'payments', 'failed'] as const;
type Tab = (typeof TABS)[number];
const ID = /^\/([0-9a-fA-F-]{36})$/;

export function SubscriptionsPage(props: AreaProps) {
  const { t } = useT();
  const path = props.sub.split('?')[0];
  const m = ID.exec(path);
  if (m) return <SubscriptionDetail {...props} id={m[1]} />;
  const tab: Tab = (TABS as readonly string[]).includes(path.slice(1)) ? (path.slice(1) as Tab) : 'subscriptions';
  const label: Record<Tab, string> = {
    subscriptions: t('subs.tab_subscriptions'), products: t('subs.tab_products'), plans: t('subs.tab_plans'), payments: t('subs.tab_payments'), failed: t('subs.tab_failed'),
  };
  return (
    <section aria-labelledby="subs-title">
      <div className="page-head"><h1 id="subs-title">{t('subscriptions.title')}</h1></div>
      <Company {...props} />
      <div className="tabs" role="navigation" aria-label={t('subscriptions.title')}>
        {TABS.map((k) => (
          <a key={k} href={`/dashboard/subscriptions/${k}`} data-testid={`subs-tab-${k}`} aria-current={tab === k ? 'page' : undefined} onClick={(e) => { e.preventDefault(); navigate(`/subscriptions/${k}`); }}>{label[k]}</a>
        ))}
      </div>
      {tab === 'subscriptions' && <SubscriptionList {...props} />}
      {tab === 'products' && <Products {...props} />}
      {tab === 'plans' && <Plans {...props} />}
      {tab === 'payments' && <PaymentList {...props} />}
      {tab === 'failed' && <FailedCharges {...props} />}
    </section>
  );
}

/** I1: the merchant's company; while there is none, a manager creates it (products create it too). */
function Company({ me, can }: AreaProps) {
  const { t } = useT();
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['subs-company', me.merchant.uuid, me.env],
    queryFn: () => v1<V1Answer<'/subscriptions/company', 'get'>>('GET', '/subscriptions/company'),
    retry: false,
  });
  if (!q.error || !(q.error instanceof ApiError) || q.error.status !== 404) return null;
  return (
    <div className="card notice subs-company" data-testid="subs-no-company">
      <p>{t('subs.company_none')}</p>
      {can('subscriptions.manage') && (
        <ConfirmDialog
          trigger={<button type="button" className="primary">{t('subs.company_create')}</button>}
          title={t('subs.company_create')}
          message={t('subs.company_confirm')}
          onConfirm={async () => { await v1('POST', '/subscriptions/company'); await qc.invalidateQueries({ queryKey: ['subs-company'] }); }}
        />
      )}
    </div>
  );
}

function Products({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const q = useProducts(me);
  const [name, setName] = useState('');
  const [externalId, setExternalId] = useState('');
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const manage = can('subscriptions.manage');
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await v1('POST', '/subscriptions/product', { name, external_id: externalId, notification_url: url || null });
      setName('');
      setExternalId('');
      setUrl('');
      await qc.invalidateQueries({ queryKey: ['subs-products'] });
      await qc.invalidateQueries({ queryKey: ['subs-company'] });
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {manage && (
        <form className="card" onSubmit={create} aria-labelledby="new-product">
          <h2 id="new-product">{t('subs.new_product')}</h2>
          <div className="subs-form">
            <label>{t('subs.name')}<input required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} data-testid="product-name" /></label>
            <label>{t('subs.external_id')}<input required maxLength={255} value={externalId} onChange={(e) => setExternalId(e.target.value)} data-testid="product-id" /></label>
            <label>{t('subs.notification_url')}<input type="url" maxLength={2000} value={url} onChange={(e) => setUrl(e.target.value)} /></label>
            <button type="submit" className="primary" disabled={busy}>{t('subs.create_product')}</button>
          </div>
          {error && <div role="alert" className="error">{error}</div>}
        </form>
      )}
      <div className="table-wrap card">
        {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'products' }}
          rows={q.data?.products ?? []}
          rowKey={(p) => p.external_id}
          rowProps={(p) => ({ 'data-id': p.external_id })}
          empty={q.data ? t('subs.no_products') : undefined}
          columns={[
            { header: t('subs.external_id'), className: 'mono', cell: (p) => p.external_id },
            { header: t('subs.name'), cell: (p) => p.name },
            { header: t('subs.notification_url'), className: 'small break', cell: (p) => p.notification_url ?? '—' },
            { header: t('subs.created'), cell: (p) => when(p.created_at, lang, me.merchant.timezone) },
            manage && {
              header: t('subs.actions'),
              cell: (p) => (
                <ConfirmDialog
                  trigger={<button type="button" className="secondary small-button" aria-label={`${t('subs.remove')} ${p.external_id}`}>{t('subs.remove')}</button>}
                  title={t('subs.remove')}
                  message={t('subs.remove_product', { id: p.external_id })}
                  onConfirm={async () => { await v1('DELETE', `/subscriptions/product/${encodeURIComponent(p.external_id)}`); await qc.invalidateQueries({ queryKey: ['subs-products'] }); }}
                />
              ),
            },
          ]}
        />
      </div>
    </>
  );
}

function Plans({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const q = usePlans(me);
  const products = useProducts(me);
  const manage = can('subscriptions.manage');
  const [f, setF] = useState({ name: '', external_id: '', product: '', amount: '', interval: '1', interval_type: 'MONTHLY', trial: false, offset: '14', offset_type: 'DAILY' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await v1('POST', '/subscriptions/plan', {
        name: f.name, external_id: f.external_id, product: f.product || products.data?.products[0]?.external_id || '', amount: f.amount,
        interval: f.interval, interval_type: f.interval_type, trial_available: f.trial,
        ...(f.trial ? { interval_offset: f.offset, interval_offset_type: f.offset_type } : {}),
      });
      setF({ ...f, name: '', external_id: '', amount: '' });
      await qc.invalidateQueries({ queryKey: ['subs-plans'] });
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const every = (n: number, type: string) => `${n} ${t(`subs.${type}` as 'subs.DAILY')}`;
  return (
    <>
      {manage && (
        <form className="card" onSubmit={create} aria-labelledby="new-plan">
          <h2 id="new-plan">{t('subs.new_plan')}</h2>
          <div className="subs-form">
            <label>{t('subs.name')}<input required maxLength={255} value={f.name} onChange={set('name')} data-testid="plan-name" /></label>
            <label>{t('subs.external_id')}<input required maxLength={255} value={f.external_id} onChange={set('external_id')} data-testid="plan-id" /></label>
            <label>{t('subs.product')}
              <select required value={f.product || products.data?.products[0]?.external_id || ''} onChange={set('product')} data-testid="plan-product">
                {(products.data?.products ?? []).map((p) => <option key={p.external_id} value={p.external_id}>{p.name} ({p.external_id})</option>)}
              </select>
            </label>
            <label>{t('subs.amount_minor')}<input required inputMode="numeric" pattern="[0-9]+" value={f.amount} onChange={set('amount')} data-testid="plan-amount" /></label>
            <label>{t('subs.interval')}<input required inputMode="numeric" pattern="[0-9]+" value={f.interval} onChange={set('interval')} /></label>
            <label>{t('subs.interval_type')}
              <select value={f.interval_type} onChange={set('interval_type')} data-testid="plan-interval-type">
                {INTERVALS.map((i) => <option key={i} value={i}>{t(`subs.${i}`)}</option>)}
              </select>
            </label>
            <label className="check"><input type="checkbox" checked={f.trial} onChange={(e) => setF({ ...f, trial: e.target.checked })} />{t('subs.trial_available')}</label>
            {f.trial && (
              <>
                <label>{t('subs.trial_length')}<input required inputMode="numeric" pattern="[0-9]+" value={f.offset} onChange={set('offset')} /></label>
                <label>{t('subs.trial_unit')}
                  <select value={f.offset_type} onChange={set('offset_type')}>
                    {INTERVALS.map((i) => <option key={i} value={i}>{t(`subs.${i}`)}</option>)}
                  </select>
                </label>
              </>
            )}
            <button type="submit" className="primary" disabled={busy}>{t('subs.create_plan')}</button>
          </div>
          {error && <div role="alert" className="error">{error}</div>}
        </form>
      )}
      <div className="table-wrap card">
        {q.error && <div role="alert" className="error">{errorText(q.error, t)}</div>}
        <DataTable
          tableProps={{ 'data-testid': 'plans' }}
          rows={q.data?.plans ?? []}
          rowKey={(p) => p.external_id}
          rowProps={(p) => ({ 'data-id': p.external_id })}
          empty={q.data ? t('subs.no_plans') : undefined}
          columns={[
            { header: t('subs.external_id'), className: 'mono', cell: (p) => p.external_id },
            { header: t('subs.name'), cell: (p) => p.name },
            { header: t('subs.product'), cell: (p) => p.product.name },
            { header: t('subs.amount'), className: 'num', cell: (p) => units(p.amount, null, lang) },
            { header: t('subs.every'), cell: (p) => every(p.interval, p.interval_type) },
            { header: t('subs.trial'), cell: (p) => (p.trial_available && p.interval_offset != null && p.interval_offset_type ? every(p.interval_offset, p.interval_offset_type) : '—') },
            manage && {
              header: t('subs.actions'),
              cell: (p) => (
                <ConfirmDialog
                  trigger={<button type="button" className="secondary small-button" aria-label={`${t('subs.remove')} ${p.external_id}`}>{t('subs.remove')}</button>}
                  title={t('subs.remove')}
                  message={t('subs.remove_plan', { id: p.external_id })}
                  onConfirm={async () => { await v1('DELETE', `/subscriptions/plan/${encodeURIComponent(p.external_id)}`); await qc.invalidateQueries({ queryKey: ['subs-plans'] }); }}
                />
              ),
            },
          ]}
        />
      </div>
    </>
  );
}
