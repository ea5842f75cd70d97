/** Pure rules of the payment-methods module: which APMs a service offers, and how B13 answers. */
import { APM_CATALOGUE, apmInfo, type ApmInfo } from '../../processors/index.js';
import type { ApmRecord } from '../payments/index.js';

/** What a service offers besides cards: its configured APMs, plus Bizum when its Bizum switch is on. */
export function offeredApms(configured: readonly string[], service: { bizumEnabled: boolean; redsysFamily: boolean }): ApmInfo[] {
  const names = new Set(configured);
  if (service.bizumEnabled && service.redsysFamily) names.add('BIZUM');
  // in the catalogue's order
  return APM_CATALOGUE.filter((a) => names.has(a.apm));
}

/** The APM of a B13 request: the one given (which the service must offer), or the service's only one. */
export function chooseApm(given: string | null | undefined, offered: readonly ApmInfo[]): { apm: ApmInfo } | { error: string } {
  if (given === undefined || given === null || given.trim() === '') {
    if (offered.length === 1) return { apm: offered[0] };
    if (offered.length === 0) return { error: 'The order\'s service offers no APM' };
    return { error: `apm is required: the order's service offers ${offered.map((a) => a.apm).join(', ')}` };
  }
  const info = apmInfo(given);
  if (!info) return { error: `apm: ${given.slice(0, 40)} is not an APM` };
  if (!offered.some((a) => a.apm === info.apm)) return { error: `apm: the order's service does not offer ${info.apm}` };
  return { apm: info };
}

/** `extra_data` of a B13 answer: the APM, its kind, and while it waits what the customer does next. */
export function pushExtraData(info: ApmInfo, record: ApmRecord | null, sandboxPhoneUrl: string | null) {
  return {
    apm: {
      apm: info.apm,
      kind: info.kind,
      pending: !!record,
      ...(record?.redirect_url ? { redirect_url: record.redirect_url } : {}),
      ...(record?.voucher ? { voucher: record.voucher } : {}),
      ...(record?.phone ? { phone: record.phone } : {}),
      ...(record && info.kind === 'push' && sandboxPhoneUrl ? { sandbox_phone_url: sandboxPhoneUrl } : {}),
      ...(record?.expires_at ? { expires_at: record.expires_at } : {}),
    },
  };
}

export function presentApm(a: ApmInfo) {
  return { apm: a.apm, kind: a.kind, label: a.label, countries: [...a.countries], ...(a.voucher ? { voucher_format: a.voucher } : {}), payouts: !!a.payout, ...(a.payout ? { payout_to: a.payout } : {}) };
}
