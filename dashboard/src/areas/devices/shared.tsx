/** What the pages of the Devices area share: the device and operation shapes, amounts, state badges. */
import { useState } from 'react';
import type { Answer, V1Answer } from '../../api';
import { useT } from '../../i18n';

/** A card-present device of the merchant (merchant API, through the bridge). */
export type Device = V1Answer<'/device/{id}', 'get'>['device'];

/** What a device did: an operation sent to it, a card-present payment, a refund (the dashboard's list). */
export type Operation = Answer<'/devices/{id}/operations', 'get'>['operations'][number];

/** Operation and refund states the device has not finished with. */
export const OPEN_STATES = new Set(['QUEUED', 'SENT', 'CARD_READ', 'AUTHENTICATION_REQUIRED', 'PROCESSING']);
/** Order states that still change by themselves. */
export const OPEN_ORDER_STATES = new Set(['CREATED', 'PENDING_PROCESSOR_RESPONSE', 'AUTHENTICATION_REQUIRED']);

const TONE: Record<string, string> = {
  QUEUED: 'neutral', SENT: 'info', CARD_READ: 'info', PROCESSING: 'info', AUTHENTICATION_REQUIRED: 'warn',
  APPROVED: 'ok', REFUNDED: 'ok', REFUSED: 'bad', FAILED: 'bad', CANCELLED: 'neutral', TIMED_OUT: 'neutral',
};

/** An operation's state as a badge: its word is the API's. */
export function OpState({ value }: { value: string | null }) {
  if (!value) return <span className="muted">—</span>;
  return <span className={`badge badge-${TONE[value] ?? 'neutral'}`}>{value}</span>;
}

/** A one-time token with a copy button (clipboard may be refused: the token stays selectable). */
export function TokenOnce({ token, onHide }: { token: string; onHide: () => void }) {
  const { t } = useT();
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <div className="notice token-once" role="status" data-testid="device-token">
      <p><strong>{t('devices.token_once')}</strong></p>
      <p className="mono break" data-testid="device-token-value">{token}</p>
      <div className="action-row">
        <button type="button" className="primary" onClick={async () => {
          try {
            await navigator.clipboard.writeText(token);
            setCopied('yes');
          } catch {
            setCopied('no');
          }
        }}>{t('devices.copy')}</button>
        <button type="button" className="secondary" onClick={onHide}>{t('devices.hide')}</button>
      </div>
      {copied && <p className="small">{copied === 'yes' ? t('devices.copied') : t('devices.copy_failed')}</p>}
    </div>
  );
}

export function battery(d: Device, charging: string): string {
  if (d.status.battery_level === null) return '—';
  return `${d.status.battery_level}%${d.status.charging ? ` (${charging})` : ''}`;
}

export function Connection({ d }: { d: Device }) {
  const { t } = useT();
  const online = d.communication.status === 'ONLINE';
  return (
    <span className="inline" data-testid="connection" data-status={d.communication.status}>
      <span className={`badge ${online ? 'badge-ok' : 'badge-neutral'}`}>{online ? t('devices.online') : t('devices.offline')}</span>
      <span className="small muted">{d.communication.type}</span>
    </span>
  );
}

