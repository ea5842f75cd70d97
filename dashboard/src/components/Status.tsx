/** An order or transaction state as a coloured badge, in the user's language (the API's word in its title). */
import { statusLabel, useT } from '../i18n';

const TONE: Record<string, string> = {
  SUCCESS: 'ok', PAID: 'ok', DELIVERED: 'ok', REFUNDED: 'info', PARTIALLY_REFUNDED: 'info', PENDING_CONFIRMATION: 'warn',
  PENDING: 'warn', PENDING_PROCESSOR_RESPONSE: 'warn', CREATED: 'neutral', EXPIRED: 'neutral', CANCELLED: 'neutral',
  REFUSED: 'bad', ERROR: 'bad', FAILED: 'bad', BLACKLISTED: 'bad', AUTHENTICATION_REQUIRED: 'warn',
};

export function Status({ value }: { value: string }) {
  const { t } = useT();
  return <span className={`badge badge-${TONE[value] ?? 'neutral'}`} title={value} data-status={value}>{statusLabel(value, t)}</span>;
}
