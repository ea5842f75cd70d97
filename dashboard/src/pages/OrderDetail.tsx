/**
 * One order: amounts, state, customer, card (BIN and last 4 only), 3-D Secure and antifraud, the
 * timeline of its transactions, its notifications with every attempt, and the actions the user's group
 * may take, each confirmed first and showing the gateway's answer when refused.
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer, type Me, type Permission } from '../api';
import { dateTime, money, reasonLabel, toMinor, useT } from '../i18n';
import { navigate } from '../router';
import { Status } from '../components/Status';
import { ConfirmDialog } from '../components/ConfirmDialog';

/** An order with its transactions, notifications and API requests. */
type Detail = Answer<'/orders/{uuid}', 'get'>;

const PAYMENTS = new Set(['AUTHORIZATION', 'DEFERRED', 'PAYOUT']);

export function OrderDetail({ me, uuid }: { me: Me; uuid: string }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ['order', me.env, me.merchant.uuid, uuid], queryFn: () => api<Detail>('GET', `/orders/${uuid}`) });
  const [copied, setCopied] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const can = (p: Permission) => me.permissions.includes(p);
  // the names of the merchant's services, for the routing of each attempt (a group that may not read routing sees uuids)
  const routed = q.data?.order.transactions.some((x) => x.routing) ?? false;
  const services = useQuery({
    queryKey: ['routing-overview', me.merchant.uuid, me.env],
    queryFn: () => api<Answer<'/routing/overview', 'get'>>('GET', '/routing/overview'),
    enabled: routed && can('routing.read'),
  });
  const serviceName = (uuid: string) => services.data?.services.find((s) => s.uuid === uuid)?.name ?? uuid;
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: ['order', me.env, me.merchant.uuid, uuid] });
    await qc.invalidateQueries({ queryKey: ['orders'] });
    setNotice(t('done.ok'));
  };
  if (q.isPending) return <p>{t('loading')}</p>;
  if (q.isError) return <div role="alert" className="error">{(q.error as Error).message}</div>;
  const { order, currency, notifications, payment_url, requests, description, expires_at, metadata } = q.data;
  const at = (iso: string) => dateTime(iso, lang, me.merchant.timezone);
  const m = (v: number) => money(v, currency, lang);
  const payment = [...order.transactions].reverse().find((x) => PAYMENTS.has(x.operative));
  const approved = order.transactions.find((x) => PAYMENTS.has(x.operative) && x.status === 'SUCCESS');
  // a stored card or account has its last 4; an APM's source (Bizum, a voucher...) has none
  const card = payment?.source && 'last4' in payment.source && payment.source.last4 ? payment.source : null;
  const captured = order.transactions.filter((x) => x.operative === 'CONFIRMATION' && x.status === 'SUCCESS').reduce((s, x) => s + x.amount, 0);
  const paidAmount = approved ? (approved.operative === 'DEFERRED' ? captured : approved.amount) : 0;
  const left = Math.max(0, paidAmount - order.refunded);
  const deferredHeld = order.status === 'PENDING_CONFIRMATION';
  const open = payment_url !== null;

  return (
    <article aria-labelledby="order-title">
      <a href="/dashboard/payments" className="back" onClick={(e) => { e.preventDefault(); navigate('/payments'); }}>← {t('order.back')}</a>
      <div className="page-head">
        <h1 id="order-title">{t('order.title')} <span className="amount-big">{m(order.amount)}</span> <Status value={order.status} /></h1>
      </div>
      <p className="mono small">{order.uuid}</p>
      {notice && <div role="status" className="notice">{notice}</div>}

      {(() => {
        const actions = [
          can('payments.refund') && approved && left > 0 && (
            <RefundAction key="refund" uuid={order.uuid} left={left} currency={currency} m={m} onDone={refresh} />
          ),
          can('payments.capture') && deferredHeld && (
            <ConfirmDialog
              key="confirm"
              trigger={<button type="button" className="secondary" data-testid="confirm-order">{t('order.confirm')}</button>}
              title={t('order.confirm')}
              message={t('confirm.confirm', { amount: m(order.amount) })}
              onConfirm={async () => { await api('POST', `/orders/${order.uuid}/confirm`, {}); await refresh(); }}
            />
          ),
          can('payments.capture') && deferredHeld && (
            <ConfirmDialog
              key="cancel"
              trigger={<button type="button" className="secondary" data-testid="cancel-order">{t('order.cancel')}</button>}
              title={t('order.cancel')}
              message={t('confirm.cancel_order')}
              onConfirm={async () => { await api('POST', `/orders/${order.uuid}/cancel`); await refresh(); }}
            />
          ),
          can('payments.expire') && open && (
            <ConfirmDialog
              key="expire"
              trigger={<button type="button" className="secondary" data-testid="expire-order">{t('order.expire')}</button>}
              title={t('order.expire')}
              message={t('confirm.expire')}
              onConfirm={async () => { await api('POST', `/orders/${order.uuid}/expire`); await refresh(); }}
            />
          ),
          open && (
            <button key="copy" type="button" className="secondary" onClick={async () => { await navigator.clipboard?.writeText(payment_url!).catch(() => undefined); setCopied(true); }}>
              {copied ? t('order.copied') : t('order.copy_link')}
            </button>
          ),
        ].filter(Boolean);
        // a group that may do nothing here sees no empty card
        if (actions.length === 0) return null;
        return (
          <section className="card actions" aria-labelledby="actions-title">
            <h2 id="actions-title">{t('order.actions')}</h2>
            <div className="action-row">{actions}</div>
            {open && <p className="small mono break">{payment_url}</p>}
            {open && expires_at && <p className="small" data-testid="order-expires">{t('order.expires')}: {at(expires_at)}</p>}
          </section>
        );
      })()}

      <div className="grid2">
        <section className="card" aria-labelledby="summary-title">
          <h2 id="summary-title">{t('order.summary')}</h2>
          <dl className="facts">
            <dt>{t('order.amount')}</dt><dd>{m(order.amount)}</dd>
            <dt>{t('order.captured')}</dt><dd>{m(paidAmount)}</dd>
            <dt>{t('order.refunded')}</dt><dd data-testid="refunded">{m(order.refunded)}</dd>
            {order.disputes && <>
              <dt>{t('order.disputed')}</dt><dd data-testid="order-disputed">{m(order.disputes.disputed)}</dd>
              <dt>{t('order.dispute_lost')}</dt><dd data-testid="order-dispute-lost">{m(order.disputes.lost)}</dd>
              <dt>{t('order.dispute_won')}</dt><dd data-testid="order-dispute-won">{m(order.disputes.won)}</dd>
            </>}
            <dt>{t('order.created')}</dt><dd>{order.created}</dd>
            <dt>{t('order.customer')}</dt><dd>{order.customer ?? '—'}</dd>
            <dt>{t('order.reference')}</dt><dd>{order.reference ?? '—'}</dd>
            <dt>{t('order.description')}</dt><dd data-testid="order-description">{description || '—'}</dd>
            {order.additional && <><dt>{t('order.additional')}</dt><dd data-testid="order-additional">{order.additional}</dd></>}
          </dl>
        </section>
        <section className="card" aria-labelledby="card-title">
          <h2 id="card-title">{t('order.card')}</h2>
          <dl className="facts">
            <dt>{t('order.card')}</dt>
            <dd data-testid="card">{card ? `${card.brand ?? ''} ${card.bin ?? ''} •••• ${card.last4}` : payment?.source?.object ?? t('order.none')}</dd>
            <dt>{t('order.threeds')}</dt>
            <dd>{order.threeds_data ? [order.threeds_data.flow, order.threeds_data.status, order.threeds_data.eci && `ECI ${order.threeds_data.eci}`, order.threeds_data.exemption].filter(Boolean).join(' · ') : t('order.none')}</dd>
            <dt>{t('order.antifraud')}</dt>
            <dd>{payment?.antifraud ? `${payment.antifraud.evaluation} (${payment.antifraud.score})${payment.antifraud.triggered_rules.length ? ` · ${payment.antifraud.triggered_rules.join(', ')}` : ''}` : t('order.none')}</dd>
          </dl>
        </section>
      </div>

      <section className="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">{t('order.timeline')}</h2>
        <ol className="timeline">
          {order.transactions.map((x) => (
            <li key={x.uuid}>
              <div className="tl-head">
                <strong>{x.operative}</strong> <Status value={x.status} /> <span className="num">{m(x.amount)}</span>
                <span className="muted small">{x.created}</span>
              </div>
              <div className="small muted mono">
                {x.uuid}
                {x.authorization && ` · auth ${x.authorization}`}
                {x.error !== 'NONE' && ` · ${reasonLabel(x.error, t)}`}
                {x.error_details && ` · ${x.error_details}`}
              </div>
              {x.routing && (
                <div className="small" data-testid="tx-routing" data-attempt={x.routing.attempt} data-service={x.routing.service_uuid}>
                  {t('order.routing', { attempt: String(x.routing.attempt), service: serviceName(x.routing.service_uuid), type: x.routing.service })}
                  {' · '}{x.routing.rule ? t('order.routing_rule', { rule: x.routing.rule }) : t('order.routing_no_rule')}
                  {' · '}<span className="muted">{x.routing.reason}</span>
                </div>
              )}
              <Metadata pairs={metadata[x.uuid] ?? {}} />
              {can('payments.metadata') && <MetadataAction tx={x.uuid} current={metadata[x.uuid] ?? {}} onDone={refresh} />}
            </li>
          ))}
        </ol>
      </section>

      <section className="card" aria-labelledby="notifications-title">
        <h2 id="notifications-title">{t('order.notifications')}</h2>
        {notifications.length === 0 && <p className="muted">{t('order.no_notifications')}</p>}
        <ul className="notifications">
          {notifications.map((n) => (
            <li key={n.uuid} data-testid="notification">
              <div className="tl-head">
                <Status value={n.status} /> <span className="mono small break">{n.url}</span>
                <span className="muted small">{t('order.attempts')}: {n.attempts}</span>
                {can('notifications.resend') && (
                  <ConfirmDialog
                    trigger={<button type="button" className="secondary small-button">{t('order.resend')}</button>}
                    title={t('order.resend')}
                    message={t('confirm.resend')}
                    onConfirm={async () => { await api('POST', `/notifications/${n.uuid}/resend`); await refresh(); }}
                  />
                )}
              </div>
              <ul className="attempts small">
                {(n.deliveries ?? []).map((d, i) => (
                  <li key={i}>{at(d.attempted_at)} · HTTP {d.http_status ?? '—'} {d.error ? `· ${d.error}` : ''} · {d.duration_ms} ms</li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </section>

      <section className="card" aria-labelledby="requests-title">
        <h2 id="requests-title">{t('order.requests')}</h2>
        <ul className="attempts small" data-testid="order-requests">
          {requests.map((r) => (
            <li key={r.uuid}>
              <span>{at(r.created_at)}</span> · {r.method} <span className="mono break">{r.path}</span> ·{' '}
              <span className={`badge ${r.status < 400 ? 'badge-ok' : 'badge-bad'}`}>{r.status}</span> ·{' '}
              {can('developers.read') ? (
                <a href={`/dashboard/developers/requests`} onClick={(e) => { e.preventDefault(); navigate('/developers/requests'); }} className="mono">{r.request_id}</a>
              ) : (
                <span className="mono">{r.request_id}</span>
              )}
            </li>
          ))}
        </ul>
      </section>
    </article>
  );
}

function RefundAction({ uuid, left, currency, m, onDone }: { uuid: string; left: number; currency: string; m: (v: number) => string; onDone: () => Promise<void> }) {
  const { t } = useT();
  const [value, setValue] = useState('');
  // empty: all that is left (no amount sent); anything else must be an amount of the order's currency
  // (a text that is none never becomes "no amount", which would refund everything), and no more than is
  // left: said in the order's currency here, rather than the API's minor units after a refusal
  const whole = value.trim() === '';
  const minor = whole ? null : toMinor(value, currency);
  const over = minor !== null && minor > left;
  const invalid = (!whole && minor === null) || over;
  return (
    <ConfirmDialog
      testId="refund-dialog"
      trigger={<button type="button" className="primary" data-testid="refund">{t('order.refund')}</button>}
      title={t('order.refund')}
      message={t('confirm.refund', { amount: m(minor ?? left) })}
      invalid={invalid}
      onConfirm={async () => {
        await api('POST', `/orders/${uuid}/refund`, whole ? {} : { amount: minor });
        await onDone();
      }}
    >
      <label>
        {t('order.refund_amount')}
        <input name="amount" inputMode="decimal" value={value} aria-invalid={invalid} onChange={(e) => setValue(e.target.value)} />
      </label>
      {!whole && minor === null && <p className="error" role="alert" data-testid="refund-invalid">{t('order.refund_invalid', { currency })}</p>}
      {over && <p className="error" role="alert" data-testid="refund-over">{t('order.refund_over', { amount: m(left) })}</p>}
    </ConfirmDialog>
  );
}

/** A transaction's metadata (C4), key = value. */
function Metadata({ pairs }: { pairs: Record<string, string> }) {
  const { t } = useT();
  const entries = Object.entries(pairs);
  if (entries.length === 0) return <p className="small muted" data-testid="metadata-none">{t('order.metadata_none')}</p>;
  return (
    <dl className="facts small metadata" data-testid="metadata" aria-label={t('order.metadata')}>
      {entries.map(([k, v]) => <div key={k} className="contents"><dt className="mono">{k}</dt><dd className="mono break">{v}</dd></div>)}
    </dl>
  );
}

/**
 * Edits a transaction's metadata starting from the keys it has: each shown to change or remove, new ones
 * added; what is saved is the whole set as edited (C4 sets the whole set), so no key is lost unseen.
 */
function MetadataAction({ tx, current, onDone }: { tx: string; current: Record<string, string>; onDone: () => Promise<void> }) {
  const { t } = useT();
  const start = () => [...Object.entries(current).map(([k, v]) => ({ k, v })), ...(Object.keys(current).length === 0 ? [{ k: '', v: '' }] : [])];
  const [rows, setRows] = useState(start);
  const metadata = Object.fromEntries(rows.filter((r) => r.k.trim() !== '').map((r) => [r.k.trim(), r.v]));
  const set = (i: number, field: 'k' | 'v', value: string) => setRows(rows.map((r, j) => (j === i ? { ...r, [field]: value } : r)));
  return (
    <ConfirmDialog
      testId="metadata-dialog"
      trigger={<button type="button" className="link small" onClick={() => setRows(start())}>{t('order.edit_metadata')}</button>}
      title={t('order.metadata')}
      message={t('confirm.metadata')}
      invalid={Object.keys(metadata).length === 0 || Object.keys(metadata).length > 20}
      onConfirm={async () => {
        await api('PUT', `/transactions/${tx}/metadata`, { metadata });
        await onDone();
      }}
    >
      <div className="metadata-rows">
        {rows.map((r, i) => (
          <div key={i} className="metadata-row">
            <label>{t('order.metadata_key')}<input value={r.k} maxLength={64} onChange={(e) => set(i, 'k', e.target.value)} /></label>
            <label>{t('order.metadata_value')}<input value={r.v} maxLength={500} onChange={(e) => set(i, 'v', e.target.value)} /></label>
            <button type="button" className="link small" aria-label={t('order.metadata_remove', { key: r.k || '…' })} onClick={() => setRows(rows.filter((_, j) => j !== i))}>✕</button>
          </div>
        ))}
      </div>
      {rows.length < 20 && <button type="button" className="secondary small-button" onClick={() => setRows([...rows, { k: '', v: '' }])}>{t('order.metadata_add')}</button>}
    </ConfirmDialog>
  );
}
