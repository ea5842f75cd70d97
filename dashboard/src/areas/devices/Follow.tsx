/**
 * An operation sent to a device, followed live: the order (merchant API, through the bridge) and what
 * the device made of it (the area's list narrowed to the order) are read again every 1.5 s until
 * neither can change by itself; then the follow-ups the user's group may make on the device: refund,
 * capture or release a pre-authorization, cancel an operation the device is still waiting on.
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, v1, type Answer, type Me, type Permission, type V1Answer } from '../../api';
import { money, toMinor, useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Status } from '../../components/Status';
import { OPEN_ORDER_STATES, OPEN_STATES, OpState, type Device } from './shared';

type OrderAnswer = V1Answer<'/order/{order_uuid}', 'get'>;
type OperationsAnswer = Answer<'/devices/{id}/operations', 'get'>;

const POLL_MS = 1500;
const STEPS = ['devices.step_sent', 'devices.step_device', 'devices.step_card', 'devices.step_end'] as const;
const STEP_OF: Record<string, number> = { QUEUED: 0, SENT: 1, CARD_READ: 2, AUTHENTICATION_REQUIRED: 1 };

export function Follow({ me, can, device, order, currency, onClose }: { me: Me; can: (p: Permission) => boolean; device: Device; order: string; currency: string; onClose: () => void }) {
  const { t, lang } = useT();
  const qc = useQueryClient();
  const [notice, setNotice] = useState<string | null>(null);
  const oKey = ['device-order', me.env, me.merchant.uuid, order];
  const pKey = ['device-order-ops', me.env, me.merchant.uuid, device.id, order];
  // both are read again while either can still change by itself (a refund a simulated device has not
  // processed yet changes the order later)
  const stillLive = () => {
    if (qc.getQueryState(oKey)?.status === 'error' || qc.getQueryState(pKey)?.status === 'error') return false;
    const od = qc.getQueryData<OrderAnswer>(oKey);
    const pd = qc.getQueryData<OperationsAnswer>(pKey);
    if (!od || !pd) return POLL_MS;
    return OPEN_ORDER_STATES.has(od.order.status) || pd.operations.some((x) => x.status && OPEN_STATES.has(x.status)) ? POLL_MS : false;
  };
  const oq = useQuery({ queryKey: oKey, queryFn: () => v1<OrderAnswer>('GET', `/order/${order}`), refetchInterval: stillLive });
  const pq = useQuery({ queryKey: pKey, queryFn: () => api<OperationsAnswer>('GET', `/devices/${device.id}/operations?order=${order}`), refetchInterval: stillLive });
  const o = oq.data?.order;
  const entries = pq.data?.operations ?? [];
  const sent = entries.find((x) => x.source === 'SENT');
  const refunds = entries.filter((x) => x.source === 'REFUND');
  const live = (o && OPEN_ORDER_STATES.has(o.status)) || entries.some((x) => x.status && OPEN_STATES.has(x.status));
  const state = sent?.status ?? null;
  const step = state ? (STEP_OF[state] ?? 3) : 0;
  const m = (v: number) => money(v, currency, lang);
  const after = async (message: string) => {
    setNotice(message);
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['device-order'] }),
      qc.invalidateQueries({ queryKey: ['device-order-ops'] }),
      qc.invalidateQueries({ queryKey: ['device-ops'] }),
      qc.invalidateQueries({ queryKey: ['device'] }),
    ]);
  };
  const left = o ? Math.max(0, o.amount - o.refunded) : 0;
  const mayRefund = !!o && can('payments.refund') && (o.status === 'SUCCESS' || o.status === 'PARTIALLY_REFUNDED') && left > 0 && !refunds.some((r) => r.status && OPEN_STATES.has(r.status));
  const held = !!o && o.status === 'PENDING_CONFIRMATION' && can('payments.capture');
  const mayCancel = !!sent && ['QUEUED', 'SENT', 'AUTHENTICATION_REQUIRED'].includes(sent.status ?? '') && can('payments.capture');
  return (
    <section className="card follow" data-testid="follow" aria-labelledby="follow-title">
      <div className="follow-head">
        <h2 id="follow-title">{t('devices.following')}</h2>
        {live && <span className="live">● {t('devices.live')}</span>}
        <button type="button" className="link follow-close" onClick={onClose}>{t('devices.close')}</button>
      </div>
      {oq.isError && <div role="alert" className="error">{(oq.error as Error).message}</div>}
      {sent && (
        <p className="follow-what">
          {sent.kind} · <strong className="num">{sent.amount === null ? '' : m(sent.amount)}</strong>
          {sent.card && <span className="mono"> · {sent.card.bin ?? ''}•••• {sent.card.last4}</span>}
        </p>
      )}
      {sent && (
        <ol className="steps" aria-label={t('devices.following')}>
          {STEPS.map((s, i) => (
            <li key={s} className={i < step ? 'done' : i === step ? 'now' : 'later'} aria-current={i === step ? 'step' : undefined}>
              {i === 3 && step === 3 && state ? t(`devices.state_${state}` as Key) : t(s)}
            </li>
          ))}
        </ol>
      )}
      <p role="status" aria-live="polite" className="follow-state" data-testid="follow-state" data-state={state ?? ''} data-order-status={o?.status ?? ''}>
        {state && <OpState value={state} />}{' '}
        {state ? t(`devices.state_${state}` as Key) : ''}
        {sent?.error && state !== 'APPROVED' ? <span className="muted"> · {sent.error}</span> : null}
      </p>
      {o && (
        <p className="follow-order">
          {t('devices.order')}: <Status value={o.status} />{' '}
          <a href={`/dashboard/payments/${o.uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${o.uuid}`); }}>{t('devices.open_order')}</a>
          {o.refunded > 0 && <span className="small muted"> · {t('devices.refunded', { amount: m(o.refunded) })}</span>}
        </p>
      )}
      {refunds.length > 0 && (
        <ul className="follow-refunds">
          {refunds.map((r) => (
            <li key={r.uuid} data-testid="follow-refund" data-state={r.status ?? ''}>
              {r.kind} {r.amount === null ? '' : m(r.amount)} <OpState value={r.status} />{r.error ? <span className="muted"> · {r.error}</span> : null}
            </li>
          ))}
        </ul>
      )}
      {(mayRefund || held || mayCancel) && (
        <div className="action-row">
          {mayRefund && (
            <AmountAction label={t('devices.refund')} message={t('devices.confirm_refund')} currency={currency} testId="device-refund"
              run={async (amount) => {
                const r = await v1<V1Answer<'/device/refund', 'post'>>('POST', '/device/refund', { device: device.id, order_uuid: order, ...(amount !== null ? { amount } : {}) });
                await after(r.refund ? t('devices.refund_queued') : t('done.ok'));
              }} />
          )}
          {held && (
            <AmountAction label={t('devices.capture')} message={t('devices.confirm_capture')} currency={currency}
              run={async (amount) => { await v1('POST', '/device/confirmation', { device: device.id, order_uuid: order, ...(amount !== null ? { amount } : {}) }); await after(t('done.ok')); }} />
          )}
          {held && (
            <ConfirmDialog trigger={<button type="button" className="secondary">{t('devices.release')}</button>} title={t('devices.release')} message={t('devices.confirm_release')}
              onConfirm={async () => { await v1('POST', '/device/cancellation', { device: device.id, order_uuid: order }); await after(t('done.ok')); }} />
          )}
          {mayCancel && (
            <ConfirmDialog trigger={<button type="button" className="secondary">{t('devices.cancel_op')}</button>} title={t('devices.cancel_op')} message={t('devices.confirm_cancel_op')}
              onConfirm={async () => { await v1('POST', '/device/cancellation', { device: device.id, order_uuid: order }); await after(t('done.ok')); }} />
          )}
        </div>
      )}
      {notice && <p className="notice" role="status">{notice}</p>}
    </section>
  );
}

/** A confirmed action with an optional amount (empty: all of it, as the API reads an omitted amount). */
function AmountAction({ label, message, currency, run, testId }: { label: string; message: string; currency: string; run: (amount: number | null) => Promise<void>; testId?: string }) {
  const { t } = useT();
  const [text, setText] = useState('');
  return (
    <ConfirmDialog
      testId={testId}
      trigger={<button type="button" className="primary">{label}</button>}
      title={label}
      message={message}
      onConfirm={async () => {
        const amount = text.trim() === '' ? null : toMinor(text, currency);
        if (text.trim() !== '' && amount === null) throw new ApiError(400, t('devices.amount_invalid'));
        await run(amount);
        setText('');
      }}
    >
      <label>{t('devices.optional_amount', { currency })}<input inputMode="decimal" value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" /></label>
    </ConfirmDialog>
  );
}
