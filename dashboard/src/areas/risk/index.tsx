/**
 * Risk: the merchant's security lists (white, black, grey) with their services and items — create,
 * enable or disable, delete, link services, add and remove items, import items from a CSV file — and
 * the antifraud rules every card payment is scored by. Everything goes through the merchant API (the
 * bridge). Cards go into a list by their stored card (CARD_UUID, from a customer's page) or their BIN:
 * the dashboard never carries a card number.
 */
import { useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { parse } from 'csv-parse/browser/esm/sync';
import { ApiError, api, qs, v1, type Answer, type V1Answer } from '../../api';
import { dateTime, money, useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import { Status } from '../../components/Status';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { AntifraudRules } from './rules';
import './area.css';

/** The security lists (L2), and one list (L3). */
export type ListsAnswer = V1Answer<'/security-lists', 'get'>;
type ListAnswer = V1Answer<'/security-list/{list_uuid}', 'get'>;

const TYPES = ['WHITELIST', 'BLACKLIST', 'GREYLIST'] as const;
/** Item types the dashboard adds (CARD would carry a card number: a stored card is CARD_UUID instead). */
const ITEM_TYPES = ['CARD_UUID', 'BIN', 'EMAIL', 'IP', 'COUNTRY', 'CUSTOMER', 'PHONE'] as const;
const PAGE = 50;
/** Items per L8 request of an import (the API takes up to 10 000). */
const BATCH = 1000;

const errorText = (e: unknown, t: (k: Key) => string) => (e instanceof ApiError ? e.details : t('error.network'));

function Tabs({ sub }: { sub: string }) {
  const { t } = useT();
  const onRules = sub.startsWith('/antifraud');
  const onRefusals = sub.startsWith('/refusals');
  const tab = (to: string, label: string, on: boolean) => (
    <a href={`/dashboard/risk${to}`} aria-current={on ? 'page' : undefined} onClick={(e) => { e.preventDefault(); navigate(`/risk${to}`); }}>{label}</a>
  );
  return (
    <nav className="tabs" aria-label={t('risk.title')}>
      {tab('', t('risk.lists'), !onRules && !onRefusals)}
      {tab('/antifraud', t('risk.rules'), onRules)}
      {tab('/refusals', t('risk.refusals'), onRefusals)}
    </nav>
  );
}

export function RiskPage(props: AreaProps) {
  const path = props.sub.split('?')[0] ?? '';
  const m = /^\/l\/([0-9a-fA-F-]{36})$/.exec(path);
  const { t } = useT();
  return (
    <section aria-labelledby="risk-title">
      <div className="page-head"><h1 id="risk-title">{t('risk.title')}</h1></div>
      <Tabs sub={path} />
      {m ? <ListPage {...props} uuid={m[1]!} /> : path.startsWith('/antifraud') ? <AntifraudRules {...props} /> : path.startsWith('/refusals') ? <Refusals {...props} /> : <Lists {...props} />}
    </section>
  );
}

function Lists({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const [type, setType] = useState('');
  const [form, setForm] = useState({ type: 'BLACKLIST', description: '', enabled: true });
  const lists = useQuery({
    queryKey: ['security-lists', me.env, me.merchant.uuid, type],
    queryFn: () => v1<ListsAnswer>('GET', `/security-lists${qs({ type })}`),
  });
  const refresh = () => qc.invalidateQueries({ queryKey: ['security-lists'] });
  return (
    <>
      {can('risk.manage') && (
        <div className="card">
          <h2>{t('risk.create')}</h2>
          <div className="filter-grid">
            <label>{t('risk.type')}
              <select value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value })}>
                {TYPES.map((x) => <option key={x} value={x}>{t(`risk.type.${x}` as Key)}</option>)}
              </select>
            </label>
            <label className="rk-wide">{t('risk.description')}<input value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} /></label>
            <label className="check rk-check"><input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />{t('risk.enabled')}</label>
          </div>
          <div className="action-row rk-gap">
            <ConfirmDialog
              trigger={<button type="button" className="primary" disabled={!form.description.trim()}>{t('risk.create')}</button>}
              title={t('risk.create')}
              message={`${t(`risk.type.${form.type}` as Key)}: ${form.description.trim()}`}
              onConfirm={async () => {
                const r = await v1<V1Answer<'/security-list', 'post'>>('POST', '/security-list', { ...form, description: form.description.trim() });
                setForm({ ...form, description: '' });
                await refresh();
                navigate(`/risk/l/${r.colorlists.uuid}`);
              }}
            />
          </div>
        </div>
      )}
      <div className="card filters">
        <label>{t('risk.type')}
          <select value={type} onChange={(e) => setType(e.target.value)} data-testid="list-type-filter">
            <option value="">{t('risk.all_types')}</option>
            {TYPES.map((x) => <option key={x} value={x}>{t(`risk.type.${x}` as Key)}</option>)}
          </select>
        </label>
      </div>
      {lists.isError && <div role="alert" className="error">{errorText(lists.error, t)}</div>}
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'security-lists' }}
          rows={lists.data?.colorlists ?? []}
          rowKey={(l) => l.uuid}
          rowProps={(l) => ({ 'data-uuid': l.uuid })}
          rowLink={(l) => ({ href: `/dashboard/risk/l/${l.uuid}`, onOpen: () => navigate(`/risk/l/${l.uuid}`) })}
          empty={lists.isSuccess ? t('risk.no_lists') : undefined}
          columns={[
            { header: t('risk.description'), className: 'break', cell: (l) => l.description || l.uuid },
            { header: t('risk.type'), cell: (l) => <span className={`badge ${l.type === 'BLACKLIST' ? 'badge-bad' : l.type === 'GREYLIST' ? 'badge-warn' : 'badge-ok'}`}>{t(`risk.type.${l.type}` as Key)}</span> },
            { header: t('col.status'), cell: (l) => (l.enabled ? <span className="badge badge-ok">{t('risk.on')}</span> : <span className="badge badge-neutral">{t('risk.off')}</span>) },
            { header: t('risk.services'), cell: (l) => l.services.length },
            { header: t('risk.items'), cell: (l) => l.items_count },
            { header: t('col.created'), cell: (l) => dateTime(l.created, lang, me.merchant.timezone) },
          ]}
        />
      </div>
    </>
  );
}

/** Rows of an import file: a header with `type` and `value` (any case), `description` optional. */
export function readItemsCsv(text: string): { items: { type: string; value: string; description: string | null }[]; skipped: { line: number; why: string }[] } {
  const rows = parse(text, { columns: (h: string[]) => h.map((x) => x.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true, relax_column_count: true }) as Record<string, string>[];
  const items: { type: string; value: string; description: string | null }[] = [];
  const skipped: { line: number; why: string }[] = [];
  rows.forEach((r, i) => {
    const line = i + 2;
    const type = (r.type ?? '').toUpperCase();
    const value = r.value ?? '';
    if (type === 'CARD') skipped.push({ line, why: 'CARD' });
    else if (!(ITEM_TYPES as readonly string[]).includes(type) || value === '') skipped.push({ line, why: 'INVALID' });
    else items.push({ type, value, description: r.description ? r.description : null });
  });
  return { items, skipped };
}

function ListPage({ me, can, uuid }: AreaProps & { uuid: string }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [item, setItem] = useState({ type: 'EMAIL', value: '', description: '' });
  const [service, setService] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const file = useRef<HTMLInputElement>(null);
  const list = useQuery({ queryKey: ['security-list', me.env, uuid], queryFn: () => v1<ListAnswer>('GET', `/security-list/${uuid}`), retry: false });
  const items = useQuery({
    queryKey: ['security-list-items', me.env, uuid, offset],
    queryFn: () => v1<V1Answer<'/security-list/{list_uuid}/items', 'get'>>('GET', `/security-list/${uuid}/items${qs({ limit: PAGE, offset })}`),
    enabled: list.isSuccess,
  });
  const services = useQuery({
    queryKey: ['services', me.env, me.merchant.uuid],
    queryFn: () => v1<V1Answer<'/client/services', 'get'>>('GET', '/client/services'),
    enabled: can('terminals.manage'),
  });
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: ['security-list', me.env, uuid] });
    await qc.invalidateQueries({ queryKey: ['security-list-items', me.env, uuid] });
    await qc.invalidateQueries({ queryKey: ['security-lists'] });
  };
  const back = <a className="back" href="/dashboard/risk" onClick={(e) => { e.preventDefault(); navigate('/risk'); }}>← {t('risk.lists')}</a>;
  if (list.isError) return <>{back}<div role="alert" className="error">{errorText(list.error, t)}</div></>;
  const l = list.data?.colorlists;
  if (!l) return back;
  const manage = can('risk.manage');
  const name = (id: string) => services.data?.services.find((s) => s.uuid === id)?.name ?? id;
  const unlinked = (services.data?.services ?? []).filter((s) => !l.services.includes(s.uuid));

  const importFile = async (e: FormEvent) => {
    e.preventDefault();
    setNote(null);
    setImportError(null);
    const f = file.current?.files?.[0];
    if (!f) return;
    setBusy(true);
    try {
      const { items: rows, skipped } = readItemsCsv(await f.text());
      let added = 0;
      for (let i = 0; i < rows.length; i += BATCH) {
        const r = await v1<V1Answer<'/security-list/{list_uuid}/items', 'post'>>('POST', `/security-list/${uuid}/items`, { items: rows.slice(i, i + BATCH) });
        added += r.added;
      }
      const cards = skipped.filter((s) => s.why === 'CARD').map((s) => s.line);
      const bad = skipped.filter((s) => s.why !== 'CARD').map((s) => s.line);
      setNote([
        t('risk.imported', { added: String(added), rows: String(rows.length) }),
        cards.length ? t('risk.skipped_cards', { lines: cards.join(', ') }) : '',
        bad.length ? t('risk.skipped_bad', { lines: bad.join(', ') }) : '',
      ].filter(Boolean).join(' '));
      if (file.current) file.current.value = '';
      setOffset(0);
      await refresh();
    } catch (err) {
      setImportError(err instanceof ApiError ? err.details : err instanceof Error ? err.message : t('error.network'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="list-page">
      {back}
      <div className="card">
        <div className="page-head rk-head">
          <h2 className="break">{l.description || l.uuid}</h2>
          <span className={`badge ${l.type === 'BLACKLIST' ? 'badge-bad' : l.type === 'GREYLIST' ? 'badge-warn' : 'badge-ok'}`}>{t(`risk.type.${l.type}` as Key)}</span>
          {l.enabled ? <span className="badge badge-ok" data-testid="list-state">{t('risk.on')}</span> : <span className="badge badge-neutral" data-testid="list-state">{t('risk.off')}</span>}
        </div>
        <p className="muted small">{t(`risk.help.${l.type}` as Key)}</p>
        {manage && (
          <div className="action-row">
            <ConfirmDialog
              trigger={<button type="button" className="secondary">{l.enabled ? t('risk.disable') : t('risk.enable')}</button>}
              title={l.enabled ? t('risk.disable') : t('risk.enable')}
              message={l.enabled ? t('risk.disable_confirm') : t('risk.enable_confirm')}
              onConfirm={async () => { await v1('PUT', `/security-list/${uuid}/enabled`, { enabled: !l.enabled }); await refresh(); }}
            />
            <ConfirmDialog
              trigger={<button type="button" className="secondary">{t('risk.delete')}</button>}
              title={t('risk.delete')}
              message={t('risk.delete_confirm', { count: String(l.items_count) })}
              onConfirm={async () => { await v1('DELETE', `/security-list/${uuid}`, {}); await qc.invalidateQueries({ queryKey: ['security-lists'] }); navigate('/risk'); }}
            />
          </div>
        )}
      </div>

      <div className="card">
        <h2>{t('risk.services')}</h2>
        {l.services.length === 0 && <p className="muted">{t('risk.no_services')}</p>}
        <ul className="rk-services" data-testid="list-services">
          {l.services.map((s) => (
            <li key={s}>
              <span className="break">{name(s)}</span>
              {manage && (
                <ConfirmDialog
                  trigger={<button type="button" className="secondary small-button" aria-label={`${t('risk.unlink')} ${name(s)}`}>{t('risk.unlink')}</button>}
                  title={t('risk.unlink')}
                  message={t('risk.unlink_confirm', { service: name(s) })}
                  onConfirm={async () => { await v1('DELETE', `/security-list/${uuid}/service`, { service_uuid: s }); await refresh(); }}
                />
              )}
            </li>
          ))}
        </ul>
        {manage && (
          <div className="filters">
            {/* a user who may list the services picks one (the list disabled while it loads: never the
                uuid field, swapped for the list under the user's typing); others type its uuid */}
            {can('terminals.manage') && !services.isError ? (
              <label className="grow">{t('risk.service')}
                <select value={service} disabled={!services.data} onChange={(e) => setService(e.target.value)}>
                  <option value="">—</option>
                  {unlinked.map((s) => <option key={s.uuid} value={s.uuid}>{s.name} ({s.type})</option>)}
                </select>
              </label>
            ) : (
              <label className="grow">{t('risk.service_uuid')}<input value={service} onChange={(e) => setService(e.target.value.trim())} /></label>
            )}
            <div className="filter-buttons rk-end">
              <ConfirmDialog
                trigger={<button type="button" className="primary" disabled={!service}>{t('risk.link')}</button>}
                title={t('risk.link')}
                message={t('risk.link_confirm', { service: name(service) })}
                onConfirm={async () => { await v1('POST', `/security-list/${uuid}/service`, { service_uuid: service }); setService(''); await refresh(); }}
              />
            </div>
          </div>
        )}
      </div>

      {manage && (
        <div className="grid2">
          <div className="card">
            <h2>{t('risk.add_item')}</h2>
            <div className="filter-grid">
              <label>{t('risk.item_type')}
                <select value={item.type} onChange={(e) => setItem({ ...item, type: e.target.value })}>
                  {ITEM_TYPES.map((x) => <option key={x} value={x}>{t(`risk.item.${x}` as Key)}</option>)}
                </select>
              </label>
              <label>{t('risk.value')}<input value={item.value} onChange={(e) => setItem({ ...item, value: e.target.value })} /></label>
              <label>{t('risk.description')}<input value={item.description} onChange={(e) => setItem({ ...item, description: e.target.value })} /></label>
            </div>
            <p className="muted small">{t('risk.cards_help')}</p>
            <ConfirmDialog
              trigger={<button type="button" className="primary" disabled={!item.value.trim()}>{t('risk.add')}</button>}
              title={t('risk.add_item')}
              message={`${t(`risk.item.${item.type}` as Key)}: ${item.value.trim()}`}
              onConfirm={async () => {
                await v1('POST', `/security-list/${uuid}/items`, { items: [{ type: item.type, value: item.value.trim(), description: item.description.trim() || null }] });
                setItem({ ...item, value: '', description: '' });
                await refresh();
              }}
            />
          </div>
          <form className="card" onSubmit={importFile}>
            <h2>{t('risk.import')}</h2>
            <p className="muted small">{t('risk.import_help')}</p>
            <label>{t('risk.file')}<input ref={file} type="file" accept=".csv,text/csv" data-testid="import-file" /></label>
            <div className="action-row rk-gap"><button type="submit" className="primary" disabled={busy}>{t('risk.import_button')}</button></div>
            {note && <div role="status" className="notice" data-testid="import-result">{note}</div>}
            {importError && <div role="alert" className="error"><strong>{t('error.title')}:</strong> {importError}</div>}
          </form>
        </div>
      )}

      <div className="card table-wrap">
        <h2 className="rk-table-title">{t('risk.items')} ({items.data?.count ?? l.items_count})</h2>
        <DataTable
          tableProps={{ 'data-testid': 'list-items' }}
          rows={items.data?.items ?? []}
          rowKey={(it) => it.uuid}
          rowProps={(it) => ({ 'data-uuid': it.uuid })}
          empty={items.isSuccess ? t('risk.no_items') : undefined}
          columns={[
            { header: t('risk.item_type'), cell: (it) => t(`risk.item.${it.type}` as Key) },
            { header: t('risk.value'), className: 'mono break rk-value', cell: (it) => it.value },
            { header: t('risk.description'), cell: (it) => it.description ?? '' },
            { header: t('col.created'), cell: (it) => dateTime(it.created, lang, me.merchant.timezone) },
            manage && {
              header: t('order.actions'),
              cell: (it) => (
                <ConfirmDialog
                  trigger={<button type="button" className="secondary small-button" aria-label={`${t('risk.remove')} ${it.value}`}>{t('risk.remove')}</button>}
                  title={t('risk.remove')}
                  message={t('risk.remove_confirm', { value: it.value })}
                  onConfirm={async () => { await v1('DELETE', `/security-list/${uuid}/items`, { items: [it.uuid] }); await refresh(); }}
                />
              ),
            },
          ]}
        />
        <div className="action-row rk-pager">
          <button type="button" className="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>{t('risk.previous')}</button>
          <button type="button" className="secondary" disabled={items.data?.next_offset == null} onClick={() => setOffset(items.data?.next_offset ?? offset)}>{t('risk.next')}</button>
        </div>
      </div>
    </div>
  );
}

/** The latest payments refused by a black list or by antifraud (their outcome is on each payment's page). */
function Refusals({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const q = useQuery({
    queryKey: ['risk-refusals', me.env, me.merchant.uuid],
    queryFn: () => api<Answer<'/orders', 'get'>>('GET', `/orders${qs({ status: ['BLACKLISTED', 'FRAUD'], limit: 50 })}`),
    enabled: can('payments.read'),
  });
  if (!can('payments.read')) return null;
  return (
    <div className="card table-wrap">
      <p className="muted small rk-table-title">{t('risk.refusals_help')}</p>
      {q.isError && <div role="alert" className="error">{errorText(q.error, t)}</div>}
      <DataTable
        tableProps={{ 'data-testid': 'refusals' }}
        rows={q.data?.orders ?? []}
        rowKey={(o) => o.uuid}
        rowLink={(o) => ({ href: `/dashboard/payments/${o.uuid}`, onOpen: () => navigate(`/payments/${o.uuid}`) })}
        empty={q.isSuccess ? t('risk.no_refusals') : undefined}
        columns={[
          { header: t('col.created'), cell: (o) => dateTime(o.created_at, lang, me.merchant.timezone) },
          { header: t('col.status'), cell: (o) => <Status value={o.status} /> },
          { header: t('col.amount'), className: 'num', cell: (o) => money(o.amount, o.currency, lang) },
          { header: t('col.customer'), cell: (o) => o.customer ?? '' },
          { header: t('col.card'), className: 'mono', cell: (o) => (o.card ? `${o.card.brand} ${o.card.bin ?? ''} •• ${o.card.last4}` : '') },
        ]}
      />
    </div>
  );
}
