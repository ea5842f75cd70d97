/** What the Subscriptions area's pages share: the API's lists of products and plans, and small formatters. */
import { useQuery } from '@tanstack/react-query';
import { ApiError, v1, type Me, type V1Answer } from '../../api';
import { dateTime, type Lang } from '../../i18n';

export const INTERVALS = ['DAILY', 'WEEKLY', 'MONTHLY', 'ANNUAL'] as const;
export const SUBSCRIPTION_STATUSES = ['CREATED', 'PAID', 'UNPAID', 'CANCELLED', 'FINISHED'] as const;
export const PAYMENT_STATUSES = ['CREATED', 'PAID', 'FAILED', 'FAILED_NOTIFICATION'] as const;

/** A JSON text field of the API (payment_details, additional_data) read safely. */
export function json(text: string | null): Record<string, any> {
  if (!text) return {};
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

/** Minor units with two decimals in the user's language (the currency is the charging service's). */
export function units(minor: number, currency: string | null, lang: Lang): string {
  const locale = lang === 'ES' ? 'es-ES' : lang === 'PT' ? 'pt-PT' : 'en-GB';
  if (currency) {
    try {
      const f = new Intl.NumberFormat(locale, { style: 'currency', currency });
      return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
    } catch {
      /* unknown code: plain number */
    }
  }
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(minor / 100);
}

export const when = (iso: string | null, lang: Lang, tz: string) => (iso ? dateTime(iso, lang, tz) : '—');

/** A refusal's own sentence (the API's details), or the network's failure. */
export const errorText = (err: unknown, t: (k: 'error.network') => string) => (err instanceof ApiError ? err.details : t('error.network'));

export function useProducts(me: Me) {
  return useQuery({ queryKey: ['subs-products', me.merchant.uuid, me.env], queryFn: () => v1<V1Answer<'/subscriptions/products', 'get'>>('GET', '/subscriptions/products') });
}

export function usePlans(me: Me) {
  return useQuery({ queryKey: ['subs-plans', me.merchant.uuid, me.env], queryFn: () => v1<V1Answer<'/subscriptions/plans', 'get'>>('GET', '/subscriptions/plans') });
}
