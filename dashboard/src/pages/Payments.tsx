/**
 * The payments list: search, filters, saved views, keyset paging ("load more"), CSV export of the
 * filtered list, and live updates (the list refreshes when the gateway says a payment changed).
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import * as Dialog from '@radix-ui/react-dialog';
import { API, api, qs, type Answer, type Filters, type Me, type OrderRow } from '../api';
import { dateTime, money, statusLabel, useT } from '../i18n';
import { navigate, usePath } from '../router';
import { Status } from '../components/Status';

const STATUSES = ['CREATED', 'PENDING_PROCESSOR_RESPONSE', 'SUCCESS', 'PENDING_CONFIRMATION', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CANCELLED', 'REFUSED', 'ERROR', 'EXPIRED', 'BLACKLISTED'];
const OPERATIVES = ['AUTHORIZATION', 'DEFERRED', 'PAYOUT', 'TRANSFER', 'PARTIAL_AUTHORIZATION'];
const METHODS = ['CARD', 'BIZUM', 'PAYPAL', 'BANK_ACCOUNT', 'GOOGLE_PAY', 'APPLE_PAY'];

type Page = Answer<'/orders', 'get'>;
/** A saved view: a name for a set of filters. */
type SavedView = Answer<'/views', 'get'>['views'][number];

const col = createColumnHelper<OrderRow>();

/** The start of the day after a date field's day (`YYYY-MM-DD`), local time, as an instant. */
function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d! + 1).toISOString();
}

/** A form's fields as filters (amounts typed in units of the currency, sent in minor units). */
function readForm(form: HTMLFormElement): Filters {
  const f = new FormData(form);
  const s = (k: string) => String(f.get(k) ?? '').trim() || undefined;
  const units = (k: string) => (s(k) === undefined ? undefined : Math.round(Number(s(k)!.replace(',', '.')) * 100));
  const status = s('status');
  const operative = s('operative');
  const from = s('from');
  const to = s('to');
  return {
    q: s('q'),
    status: status ? [status] : undefined,
    operative: operative ? [operative] : undefined,
    from: from ? new Date(`${from}T00:00:00`).toISOString() : undefined,
    // the whole "to" day: up to the next day's start (a day is not always 24 hours long)
    to: to ? nextDay(to) : undefined,
    amount_min: units('amount_min'),
    amount_max: units('amount_max'),
    customer: s('customer'),
    email: s('email'),
    reference: s('reference'),
    last4: s('last4'),
    method: s('method'),
  };
}

const clean = (f: Filters): Filters => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0))) as Filters;

/**
 * The filters a page address names (`/dashboard/payments?status=SUCCESS&customer=ana`, as the list
 * writes them): a reload, the back button or a link shared with a colleague shows the same list. A value
 * that is not of its kind is left out; the server checks the rest (a refusal is shown as any other).
 */
export function filtersFromSearch(search: string): Filters {
  const p = new URLSearchParams(search);
  const one = (k: string) => p.get(k)?.trim() || undefined;
  const many = (k: string) => p.getAll(k).map((v) => v.trim()).filter(Boolean);
  const int = (k: string) => (/^\d{1,15}$/.test(one(k) ?? '') ? Number(one(k)) : undefined);
  const instant = (k: string) => (Number.isNaN(Date.parse(one(k) ?? '')) ? undefined : one(k));
  return clean({
    q: one('q'),
    status: many('status'),
    operative: many('operative'),
    from: instant('from'),
    to: instant('to'),
    amount_min: int('amount_min'),
    amount_max: int('amount_max'),
    customer: one('customer'),
    email: one('email'),
    reference: one('reference'),
    last4: one('last4'),
    method: one('method'),
    service: one('service'),
  });
}

/** An instant as the day of a date field (`YYYY-MM-DD`, local); `end`: the instant ends the day (the "to" filter). */
function dayOf(iso: string | undefined, end = false): string {
  if (!iso) return '';
  const d = new Date(new Date(iso).getTime() - (end ? 1 : 0));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/** Minor units as typed in an amount field. */
const unitsOf = (minor: number | undefined) => (minor === undefined ? '' : String(minor / 100));

export function Payments({ me }: { me: Me }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const [filters, setFilters] = useState<Filters>(() => filtersFromSearch(window.location.search));
  const [formKey, setFormKey] = useState(0);
  const [live, setLive] = useState(false);
  const key = ['orders', me.env, me.merchant.uuid, filters];
  const orders = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => api<Page>('GET', `/orders${qs({ ...filters, limit: 50, cursor: pageParam })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const views = useQuery({ queryKey: ['views'], queryFn: () => api<Answer<'/views', 'get'>>('GET', '/views') });

  // the address names the filters shown: filters applied are written into it (replaced, not pushed: the
  // back button leaves the list), and an address reached otherwise (the menu's link, back, forward) sets them
  const path = usePath();
  const search = path.includes('?') ? path.slice(path.indexOf('?')) : '';
  const atList = () => window.location.pathname.startsWith('/dashboard/payments'); // not the list shown for another address
  useEffect(() => {
    if (!atList()) return;
    const here = `/dashboard/payments${qs(filters as Record<string, unknown>)}`;
    if (window.location.pathname + window.location.search !== here) window.history.replaceState(null, '', here);
  }, [filters]);
  useEffect(() => {
    if (!atList()) return;
    const named = filtersFromSearch(search);
    if (qs(named as Record<string, unknown>) === qs(filters as Record<string, unknown>)) return;
    setFilters(named);
    setFormKey((k) => k + 1);
  }, [search]);

  // live: the gateway's stream says when payments of this merchant change; the list is read again
  useEffect(() => {
    const es = new EventSource(`${API}/live`);
    es.addEventListener('ready', () => setLive(true));
    es.addEventListener('change', () => void qc.invalidateQueries({ queryKey: ['orders', me.env, me.merchant.uuid] }));
    // the stream ended: the session may have (idle, signed out elsewhere); the session is read again
    es.onerror = () => {
      setLive(false);
      void qc.invalidateQueries({ queryKey: ['session'] });
    };
    return () => es.close();
  }, [me.env, me.merchant.uuid, qc]);

  const columns = useMemo(
    () => [
      col.accessor('created_at', { header: t('col.created'), cell: (c) => dateTime(c.getValue(), lang, me.merchant.timezone) }),
      col.accessor('status', { header: t('col.status'), cell: (c) => <Status value={c.getValue()} /> }),
      col.accessor('amount', {
        header: t('col.amount'),
        cell: (c) => (
          <span className="num">
            {money(c.getValue(), c.row.original.currency, lang)}
            {c.row.original.refunded > 0 && <small className="muted"> −{money(c.row.original.refunded, c.row.original.currency, lang)}</small>}
          </span>
        ),
      }),
      col.accessor('reference', { header: t('col.reference'), cell: (c) => c.getValue() ?? '' }),
      col.accessor('customer', { header: t('col.customer'), cell: (c) => c.getValue() ?? '' }),
      col.accessor('card', {
        header: t('col.card'),
        cell: (c) => {
          const card = c.getValue();
          if (card) return <span className="card-no">{card.brand} •••• {card.last4}</span>;
          return c.row.original.method ?? '';
        },
      }),
      col.accessor('description', { header: t('col.description'), cell: (c) => <span className="clip">{c.getValue()}</span> }),
    ],
    [t, lang, me.merchant.timezone],
  );
  const rows = useMemo(() => orders.data?.pages.flatMap((p) => p.orders) ?? [], [orders.data]);
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setFilters(clean(readForm(e.currentTarget)));
  };
  const exportUrl = `${API}/orders/export.csv${qs(filters as Record<string, unknown>)}`;

  return (
    <section aria-labelledby="payments-title">
      <div className="page-head">
        <h1 id="payments-title">{t('payments.title')}</h1>
        <span className={live ? 'live on' : 'live'} data-testid="live" aria-live="polite">{live ? `● ${t('payments.live')}` : ''}</span>
        <a className="button secondary" href={exportUrl} download data-testid="export">{t('payments.export')}</a>
      </div>
      <form key={formKey} className="filters card" onSubmit={apply} role="search">
        <label className="grow">
          <span className="sr-only">{t('payments.search')}</span>
          <input name="q" type="search" placeholder={t('payments.search')} aria-label={t('payments.search')} defaultValue={filters.q} />
        </label>
        <details>
          <summary>{t('payments.filters')}</summary>
          <div className="filter-grid">
            <label>{t('payments.status')}
              <select name="status" defaultValue={filters.status?.[0] ?? ''}>
                <option value="">{t('payments.any')}</option>
                {STATUSES.map((s) => <option key={s} value={s}>{statusLabel(s, t)}</option>)}
              </select>
            </label>
            <label>{t('payments.operative')}
              <select name="operative" defaultValue={filters.operative?.[0] ?? ''}>
                <option value="">{t('payments.any')}</option>
                {OPERATIVES.map((s) => <option key={s} value={s}>{s}</option>)}
              </select>
            </label>
            <label>{t('payments.method')}
              <select name="method" defaultValue={filters.method ?? ''}>
                <option value="">{t('payments.any')}</option>
                {METHODS.map((s) => <option key={s} value={s}>{s}</option>)}
              </select>
            </label>
            <label>{t('payments.from')}<input name="from" type="date" defaultValue={dayOf(filters.from)} /></label>
            <label>{t('payments.to')}<input name="to" type="date" defaultValue={dayOf(filters.to, true)} /></label>
            <label>{t('payments.amount_min')}<input name="amount_min" inputMode="decimal" defaultValue={unitsOf(filters.amount_min)} /></label>
            <label>{t('payments.amount_max')}<input name="amount_max" inputMode="decimal" defaultValue={unitsOf(filters.amount_max)} /></label>
            <label>{t('payments.customer')}<input name="customer" defaultValue={filters.customer} /></label>
            <label>{t('payments.email')}<input name="email" type="email" defaultValue={filters.email} /></label>
            <label>{t('payments.reference')}<input name="reference" defaultValue={filters.reference} /></label>
            <label>{t('payments.last4')}<input name="last4" inputMode="numeric" pattern="[0-9]{4}" maxLength={4} defaultValue={filters.last4} /></label>
          </div>
        </details>
        <div className="filter-buttons">
          <button type="submit" className="primary">{t('payments.apply')}</button>
          <button type="button" className="secondary" onClick={() => { setFilters({}); setFormKey((k) => k + 1); }}>{t('payments.clear')}</button>
          <SavedViews views={views.data?.views ?? []} current={filters} onPick={(f) => { setFilters(f); setFormKey((k) => k + 1); }} />
        </div>
      </form>
      {orders.isError && <div role="alert" className="error">{(orders.error as Error).message}</div>}
      <div className="table-wrap card">
        <table className="orders" data-testid="orders">
          <thead>
            {table.getHeaderGroups().map((hg) => (
              <tr key={hg.id}>{hg.headers.map((h) => <th key={h.id} scope="col">{flexRender(h.column.columnDef.header, h.getContext())}</th>)}</tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((r) => (
              <tr key={r.id} data-uuid={r.original.uuid}>
                {r.getVisibleCells().map((c, i) => (
                  <td key={c.id} data-label={String(c.column.columnDef.header)}>
                    {i === 0 ? (
                      <a href={`/dashboard/payments/${r.original.uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${r.original.uuid}`); }}>
                        {flexRender(c.column.columnDef.cell, c.getContext())}
                      </a>
                    ) : (
                      flexRender(c.column.columnDef.cell, c.getContext())
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {orders.isSuccess && rows.length === 0 && <p className="empty">{t('payments.none')}</p>}
        {orders.isPending && <p className="empty">{t('loading')}</p>}
      </div>
      {orders.hasNextPage && (
        <button type="button" className="secondary more" onClick={() => orders.fetchNextPage()} disabled={orders.isFetchingNextPage}>
          {t('payments.more')}
        </button>
      )}
    </section>
  );
}

function SavedViews({ views, current, onPick }: { views: SavedView[]; current: Filters; onPick: (f: Filters) => void }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    try {
      await api('POST', '/views', { name, filters: current });
      await qc.invalidateQueries({ queryKey: ['views'] });
      setOpen(false);
      setName('');
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div className="views">
      <label>
        <span className="sr-only">{t('payments.views')}</span>
        <select aria-label={t('payments.views')} value="" onChange={(e) => { const v = views.find((x) => x.uuid === e.target.value); if (v) onPick(v.filters); }}>
          <option value="">{t('payments.views')}</option>
          {views.map((v) => <option key={v.uuid} value={v.uuid}>{v.name}</option>)}
        </select>
      </label>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger asChild><button type="button" className="secondary">{t('payments.view_save')}</button></Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay className="overlay" />
          <Dialog.Content className="dialog">
            <Dialog.Title>{t('payments.view_save')}</Dialog.Title>
            <Dialog.Description>{Object.keys(current).join(', ') || '—'}</Dialog.Description>
            <label>{t('payments.view_name')}<input value={name} maxLength={60} onChange={(e) => setName(e.target.value)} /></label>
            {error && <div role="alert" className="error">{error}</div>}
            <div className="dialog-buttons">
              <Dialog.Close asChild><button type="button" className="secondary">{t('confirm.cancel')}</button></Dialog.Close>
              <button type="button" className="primary" disabled={!name.trim()} onClick={save}>{t('payments.view_save')}</button>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </div>
  );
}
