/**
 * Customers: the merchant's customers (search by external id, name or e-mail; "load more" pages), and
 * one customer's page: its profile, addresses, accounts, stored sources (brand, BIN and last 4 — never
 * more), their holder verification and deletion, blacklisting a stored card, and its orders. Changes go
 * through the merchant API (the bridge), so the API's rules and answers apply as they are.
 */
import { useState, type FormEvent } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, qs, v1, type Answer, type V1Answer } from '../../api';
import { dateTime, money, useT } from '../../i18n';
import { navigate } from '../../router';
import { Status } from '../../components/Status';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import type { ListsAnswer } from '../risk';
import { AddressAdder, AddressRemover, ProfileEditor, type ProfileData } from './edit';
import './area.css';

type Phone = NonNullable<ProfileData['phone']>;
type Verification = V1Answer<'/payment-method/{type}/verify-holder', 'post'>['verification'];

/** A card as the dashboard shows it: brand, BIN and last 4, the middle masked. */
export function maskedCard(s: { bin: number | null; last4: string }): string {
  return s.bin === null ? `•••• ${s.last4}` : `${String(s.bin).padStart(6, '0')} •• ${s.last4}`;
}

export function CustomersPage(props: AreaProps) {
  const path = props.sub.split('?')[0] ?? '';
  const m = /^\/c\/(.+)$/.exec(path);
  if (m) return <CustomerPage {...props} externalId={decodeURIComponent(m[1]!)} />;
  return <CustomerList {...props} />;
}

function CustomerList({ me, can, sub }: AreaProps) {
  const { t, lang } = useT();
  const initial = new URLSearchParams(sub.split('?')[1] ?? '').get('q') ?? '';
  const [q, setQ] = useState(initial);
  const [typed, setTyped] = useState(initial);
  const [newId, setNewId] = useState('');
  const list = useInfiniteQuery({
    queryKey: ['customers', me.env, me.merchant.uuid, q],
    queryFn: ({ pageParam }) => api<Answer<'/customers', 'get'>>('GET', `/customers${qs({ q, cursor: pageParam })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const rows = list.data?.pages.flatMap((p) => p.customers) ?? [];
  const search = (e: FormEvent) => {
    e.preventDefault();
    setQ(typed.trim());
    window.history.replaceState(null, '', `/dashboard/customers${qs({ q: typed.trim() })}`);
  };
  return (
    <section aria-labelledby="customers-title">
      <div className="page-head"><h1 id="customers-title">{t('customers.title')}</h1></div>
      <form className="card filters" role="search" onSubmit={search}>
        <label className="grow">{t('customers.search')}<input name="q" value={typed} onChange={(e) => setTyped(e.target.value)} data-testid="customer-search" /></label>
        <div className="filter-buttons cu-search-button"><button type="submit" className="primary">{t('customers.search_button')}</button></div>
      </form>
      {can('customers.manage') && (
        <div className="card">
          <h2>{t('customers.create')}</h2>
          <div className="filters">
            <label className="grow">{t('customers.external_id')}<input value={newId} onChange={(e) => setNewId(e.target.value)} /></label>
            <div className="filter-buttons cu-search-button">
              <ConfirmDialog
                trigger={<button type="button" className="primary" disabled={!newId.trim()}>{t('customers.create')}</button>}
                title={t('customers.create')}
                message={t('customers.create_confirm', { id: newId.trim() })}
                onConfirm={async () => { await v1('POST', '/customer', { customer_ext_id: newId.trim() }); navigate(`/customers/c/${encodeURIComponent(newId.trim())}`); }}
              />
            </div>
          </div>
        </div>
      )}
      {list.isError && <div role="alert" className="error">{list.error instanceof ApiError ? list.error.details : t('error.network')}</div>}
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'customers' }}
          rows={rows}
          rowKey={(c) => c.external_id}
          rowLink={(c) => ({ href: `/dashboard/customers/c/${encodeURIComponent(c.external_id)}`, onOpen: () => navigate(`/customers/c/${encodeURIComponent(c.external_id)}`) })}
          empty={list.isSuccess ? t('customers.none') : undefined}
          columns={[
            { header: t('customers.external_id'), className: 'break cu-cell', cell: (c) => c.external_id },
            { header: t('customers.name'), cell: (c) => c.name ?? '—' },
            { header: 'E-mail', className: 'break cu-cell', cell: (c) => c.email ?? '—' },
            { header: t('col.created'), cell: (c) => dateTime(c.created_at, lang, me.merchant.timezone) },
          ]}
        />
      </div>
      {list.hasNextPage && <button type="button" className="secondary more" onClick={() => list.fetchNextPage()}>{t('payments.more')}</button>}
    </section>
  );
}

const phone = (p: Phone | null) => (p ? `${p.prefix ? `+${p.prefix.replace(/^\+/, '')} ` : ''}${p.number}` : null);

function CustomerPage({ me, can, externalId }: AreaProps & { externalId: string }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const enc = encodeURIComponent(externalId);
  const detail = useQuery({
    queryKey: ['customer', me.env, me.merchant.uuid, externalId],
    queryFn: () => api<Answer<'/customers/one', 'get'>>('GET', `/customers/one${qs({ external_id: externalId })}`),
    retry: false,
  });
  const sources = useQuery({
    queryKey: ['customer-sources', me.env, me.merchant.uuid, externalId],
    queryFn: () => v1<V1Answer<'/customer/{ext_id}/sources', 'get'>>('GET', `/customer/${enc}/sources?status=ALL`),
    enabled: detail.isSuccess,
  });
  const orders = useQuery({
    queryKey: ['customer-orders', me.env, me.merchant.uuid, externalId],
    queryFn: () => api<Answer<'/orders', 'get'>>('GET', `/orders${qs({ customer: externalId, limit: 20 })}`),
    enabled: detail.isSuccess && can('payments.read'),
  });
  const services = useQuery({
    queryKey: ['services', me.env, me.merchant.uuid],
    queryFn: () => v1<V1Answer<'/client/services', 'get'>>('GET', '/client/services'),
    enabled: can('customers.manage') && can('terminals.manage'),
  });
  const blacklists = useQuery({
    queryKey: ['security-lists', me.env, me.merchant.uuid, 'BLACKLIST'],
    queryFn: () => v1<ListsAnswer>('GET', '/security-lists?type=BLACKLIST'),
    enabled: can('risk.manage'),
  });
  const [verified, setVerified] = useState<Record<string, Verification>>({});
  const [holder, setHolder] = useState('');
  const [service, setService] = useState('');
  const [list, setList] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const refreshSources = () => qc.invalidateQueries({ queryKey: ['customer-sources'] });
  const refreshCustomer = () => qc.invalidateQueries({ queryKey: ['customer', me.env, me.merchant.uuid, externalId] });

  const back = (
    <a className="back" href="/dashboard/customers" onClick={(e) => { e.preventDefault(); navigate('/customers'); }}>← {t('customers.title')}</a>
  );
  if (detail.isError) {
    return (
      <section aria-labelledby="customer-title">
        {back}
        <h1 id="customer-title" className="break">{externalId}</h1>
        <div role="alert" className="error">{detail.error instanceof ApiError ? detail.error.details : t('error.network')}</div>
      </section>
    );
  }
  const c = detail.data?.customer;
  const p = c?.profile ?? null;
  const cards = sources.data?.sources ?? [];
  return (
    <section aria-labelledby="customer-title" data-testid="customer-page">
      {back}
      <div className="page-head">
        <h1 id="customer-title" className="break">{p ? `${p.first_name} ${p.last_name}` : externalId}</h1>
      </div>
      {done && <div role="status" className="notice">{done}</div>}
      <div className="grid2">
        <div className="card">
          <h2>{t('customers.profile')}</h2>
          <dl className="facts">
            <dt>{t('customers.external_id')}</dt><dd className="break">{externalId}</dd>
            {c && <><dt>{t('col.created')}</dt><dd>{dateTime(c.created_at, lang, me.merchant.timezone)}</dd></>}
            {p && (
              <>
                <dt>{t('customers.name')}</dt><dd>{p.first_name} {p.last_name}</dd>
                {p.cardholder_name && <><dt>{t('customers.cardholder')}</dt><dd>{p.cardholder_name}</dd></>}
                {p.email && <><dt>E-mail</dt><dd className="break">{p.email}</dd></>}
                {[p.phone, p.mobile_phone, p.work_phone, p.home_phone].some(Boolean) && (
                  <><dt>{t('customers.phones')}</dt><dd>{[p.phone, p.mobile_phone, p.work_phone, p.home_phone].map(phone).filter(Boolean).join(' · ')}</dd></>
                )}
                {p.document_identification_number && <><dt>{t('customers.document')}</dt><dd>{p.document_identification_type ?? ''} {p.document_identification_number}</dd></>}
                {p.birthdate && <><dt>{t('customers.birthdate')}</dt><dd>{p.birthdate}</dd></>}
                {p.occupation && <><dt>{t('customers.occupation')}</dt><dd>{p.occupation}</dd></>}
              </>
            )}
          </dl>
          {c && !p && <p className="muted">{t('customers.no_profile')}</p>}
          {c && can('customers.manage') && <div className="action-row cu-gap"><ProfileEditor externalId={externalId} profile={p} onDone={refreshCustomer} /></div>}
        </div>
        <div className="card">
          <h2>{t('customers.addresses')}</h2>
          {c && c.addresses.length === 0 && <p className="muted">{t('order.none')}</p>}
          <ul className="cu-list">
            {c?.addresses.map((a) => (
              <li key={a.uuid}>
                <span className="badge badge-neutral">{a.type}</span>{a.default && <> <span className="badge badge-info">{t('customers.default')}</span></>}
                <div>{[a.address1, a.address2, a.address3].filter(Boolean).join(', ')}</div>
                <div>{a.zip_code} {a.city} ({a.state_code}) · {a.country}</div>
                {can('customers.manage') && <AddressRemover uuid={a.uuid} label={`${a.type} · ${a.address1}`} onDone={refreshCustomer} />}
              </li>
            ))}
          </ul>
          {c && can('customers.manage') && <div className="action-row cu-gap cu-bottom"><AddressAdder externalId={externalId} onDone={refreshCustomer} /></div>}
          <h2>{t('customers.accounts')}</h2>
          {c && c.accounts.length === 0 && <p className="muted">{t('order.none')}</p>}
          <ul className="cu-list">
            {c?.accounts.map((a) => <li key={a.uuid}><span className="badge badge-neutral">{a.account_type}</span> <span className="mono">{a.account_number}</span></li>)}
          </ul>
        </div>
      </div>

      <div className="card table-wrap">
        <h2 className="cu-table-title">{t('customers.sources')}</h2>
        <DataTable
          tableProps={{ 'data-testid': 'sources' }}
          rows={cards}
          rowKey={(s) => s.uuid}
          rowProps={(s) => ({ 'data-uuid': s.uuid })}
          empty={sources.isSuccess ? t('customers.no_sources') : undefined}
          columns={[
            { header: t('col.card'), cell: (s) => <><strong>{s.brand || s.object}</strong> <span className="mono">{maskedCard(s)}</span></> },
            { header: t('customers.holder'), cell: (s) => s.holder || '—' },
            { header: t('customers.expiry'), cell: (s) => (s.expire_month && s.expire_year ? `${String(s.expire_month).padStart(2, '0')}/${s.expire_year}` : '—') },
            {
              header: t('col.status'),
              cell: (s) => {
                const v = verified[s.uuid];
                return (
                  <span className="cu-badges">
                    {s.validation_date ? <span className="badge badge-ok">{t('customers.validated')}</span> : <span className="badge badge-neutral">{t('customers.not_validated')}</span>}
                    {s.is_blacklisted && <span className="badge badge-bad">{t('customers.blacklisted')}</span>}
                    {v && <span className={`badge ${v.result === 'MATCH' ? 'badge-ok' : v.result === 'PARTIAL_MATCH' ? 'badge-warn' : 'badge-bad'}`} data-testid="verification">{t('customers.holder_check')}: {v.result ?? v.status}</span>}
                  </span>
                );
              },
            },
            {
              header: t('order.actions'),
              cell: (s) => {
                const type = s.object === 'BANK_ACCOUNT' ? 'bank' : 'card';
                return (
                  <span className="action-row">
                    {can('customers.manage') && (
                      <ConfirmDialog
                        trigger={<button type="button" className="secondary small-button" onClick={() => { setHolder(s.holder); setService(s.tokenization_service_uuid ?? ''); }}>{t('customers.verify')}</button>}
                        title={t('customers.verify')}
                        message={t('customers.verify_help', { card: `${s.brand} ${maskedCard(s)}` })}
                        onConfirm={async () => {
                          const r = await v1<V1Answer<'/payment-method/{type}/verify-holder', 'post'>>('POST', `/payment-method/${type}/verify-holder`, { source_uuid: s.uuid, service, holder: { name: holder } });
                          setVerified((x) => ({ ...x, [s.uuid]: r.verification }));
                        }}
                      >
                        <label>{t('customers.holder')}<input value={holder} onChange={(e) => setHolder(e.target.value)} /></label>
                        {services.data ? (
                          <label>{t('customers.service')}
                            <select value={service} onChange={(e) => setService(e.target.value)}>
                              <option value="">—</option>
                              {services.data.services.map((x) => <option key={x.uuid} value={x.uuid}>{x.name || x.uuid}</option>)}
                            </select>
                          </label>
                        ) : (
                          <label>{t('customers.service')}<input value={service} onChange={(e) => setService(e.target.value.trim())} /></label>
                        )}
                      </ConfirmDialog>
                    )}
                    {can('risk.manage') && s.object !== 'BANK_ACCOUNT' && (
                      <ConfirmDialog
                        testId="blacklist-dialog"
                        trigger={<button type="button" className="secondary small-button" onClick={() => setList(blacklists.data?.colorlists[0]?.uuid ?? '')}>{t('customers.blacklist')}</button>}
                        title={t('customers.blacklist')}
                        message={blacklists.data?.colorlists.length ? t('customers.blacklist_help', { card: `${s.brand} ${maskedCard(s)}` }) : t('customers.no_blacklist')}
                        onConfirm={async () => {
                          const chosen = blacklists.data?.colorlists.find((l) => l.uuid === list);
                          if (!chosen) throw new ApiError(400, t('customers.no_blacklist'));
                          await v1('POST', `/security-list/${list}/items`, { items: [{ type: 'CARD_UUID', value: s.uuid, description: `${s.brand} ${maskedCard(s)} · ${externalId}` }] });
                          setDone(t('customers.blacklisted_done', { card: maskedCard(s), list: chosen.description || chosen.uuid }));
                          await refreshSources();
                        }}
                      >
                        {!!blacklists.data?.colorlists.length && (
                          <label>{t('customers.list')}
                            <select value={list} onChange={(e) => setList(e.target.value)}>
                              {blacklists.data.colorlists.map((l) => <option key={l.uuid} value={l.uuid}>{l.description || l.uuid}{l.enabled ? '' : ` (${t('customers.disabled')})`}</option>)}
                            </select>
                          </label>
                        )}
                      </ConfirmDialog>
                    )}
                    {can('customers.manage') && (
                      <ConfirmDialog
                        testId="delete-source-dialog"
                        trigger={<button type="button" className="secondary small-button">{t('customers.delete_source')}</button>}
                        title={t('customers.delete_source')}
                        message={t('customers.delete_confirm', { card: `${s.brand} ${maskedCard(s)}` })}
                        onConfirm={async () => {
                          await v1('DELETE', `/payment-method/${s.object === 'BANK_ACCOUNT' ? 'bank' : 'card'}`, { source_uuid: s.uuid, customer_external_id: externalId });
                          await refreshSources();
                        }}
                      />
                    )}
                  </span>
                );
              },
            },
          ]}
        />
        {sources.isError && <div role="alert" className="error">{sources.error instanceof ApiError ? sources.error.details : t('error.network')}</div>}
      </div>

      {can('payments.read') && (
        <div className="card table-wrap">
          <h2 className="cu-table-title">{t('customers.orders')}</h2>
          <DataTable
            tableProps={{ 'data-testid': 'customer-orders' }}
            rows={orders.data?.orders ?? []}
            rowKey={(o) => o.uuid}
            rowLink={(o) => ({ href: `/dashboard/payments/${o.uuid}`, onOpen: () => navigate(`/payments/${o.uuid}`) })}
            empty={orders.isSuccess ? t('customers.no_orders') : undefined}
            columns={[
              { header: t('col.created'), cell: (o) => dateTime(o.created_at, lang, me.merchant.timezone) },
              { header: t('col.status'), cell: (o) => <Status value={o.status} /> },
              { header: t('col.amount'), className: 'num', cell: (o) => money(o.amount, o.currency, lang) },
              { header: t('col.reference'), cell: (o) => o.reference ?? '' },
              { header: t('col.card'), cell: (o) => (o.card ? `${o.card.brand} ${maskedCard({ bin: o.card.bin === null ? null : Number(o.card.bin), last4: o.card.last4 })}` : '') },
            ]}
          />
          {orders.data?.next_cursor && <p className="muted small cu-table-title">{t('customers.orders_more')}</p>}
        </div>
      )}
    </section>
  );
}
