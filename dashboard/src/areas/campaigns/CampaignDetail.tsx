/**
 * A campaign's page: its progress and every payment's state (the campaign as the API reads it, every
 * payment brought up to date with its order), refreshed while anything can still change; each order's
 * link; the receipt and link-opening certificates (signed PDFs) to download.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, v1, type Answer, type V1Answer } from '../../api';
import { dateTime, money, useT } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { toCampaigns } from './index';

/** The campaign, its progress and every payment (G5). */
type CampaignState = V1Answer<'/moto/campaign/{campaign_uuid}', 'get'>;
type Payment = CampaignState['payments'][number];

const LIVE = new Set(['PENDING', 'SENT', 'OPENED']);
const STATES = ['PENDING', 'SENT', 'OPENED', 'PAID', 'EXPIRED', 'FAILED'] as const;
const TONE: Record<string, string> = { PAID: 'ok', FAILED: 'bad', EXPIRED: 'neutral', OPENED: 'info', SENT: 'info', PENDING: 'warn' };

/** Saves a certificate (base64 PDF of G3/G4) as a file. */
async function saveCertificate(path: string, name: string) {
  const r = await v1<V1Answer<'/moto/payment/{moto_payment_uuid}/opening-certificate' | '/moto/payment/{moto_payment_uuid}/receipt-certificate', 'get'>>('GET', path);
  const bytes = Uint8Array.from(atob(r.certificate), (c) => c.charCodeAt(0));
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export function CampaignDetail({ me, uuid }: AreaProps & { uuid: string }) {
  const { t, lang } = useT();
  const [failure, setFailure] = useState<string | null>(null);
  const state = useQuery({
    queryKey: ['campaign', me.merchant.uuid, me.env, uuid],
    queryFn: () => v1<CampaignState>('GET', `/moto/campaign/${uuid}`),
    refetchInterval: (q) => {
      const d = q.state.data;
      if (!d) return false;
      // every 2 s while the campaign is being processed; then, while links may still be opened or paid, every 5 s
      if (d.detail.status === 'PENDING' || d.detail.status === 'PROCESSING') return 2000;
      return d.payments.some((p) => LIVE.has(p.status)) ? 5000 : false;
    },
  });
  const d = state.data;
  const running = !!d && (d.detail.status === 'PENDING' || d.detail.status === 'PROCESSING' || d.payments.some((p) => LIVE.has(p.status)));
  // the amounts are in minor units of the currency of the campaign's service (its terminal's)
  const services = useQuery({ queryKey: ['campaign-services', me.merchant.uuid, me.env], queryFn: () => api<Answer<'/campaigns/services', 'get'>>('GET', '/campaigns/services') });
  const currency = services.data?.services.find((x) => x.uuid === d?.detail.serviceUUID)?.currency ?? null;
  const amount = (minor: number) => (currency ? money(minor, currency, lang) : String(minor));
  const certificate = async (p: Payment, kind: 'receipt' | 'opening') => {
    setFailure(null);
    try {
      await saveCertificate(`/moto/payment/${p.uuid}/${kind}-certificate`, `${kind}-certificate-${p.uuid}.pdf`);
    } catch (e) {
      setFailure(e instanceof ApiError ? e.details : String(e));
    }
  };
  return (
    <section aria-labelledby="campaign-title">
      <a className="back" href="/dashboard/campaigns" onClick={(e) => toCampaigns(e)}>← {t('campaigns.back')}</a>
      {state.error && <p className="error" role="alert">{state.error instanceof ApiError ? state.error.details : String(state.error)}</p>}
      {d && (
        <>
          <div className="page-head">
            <h1 id="campaign-title">{d.detail.description}</h1>
            <span className={`badge ${d.detail.status === 'COMPLETED' ? 'badge-ok' : d.detail.status === 'FAILED' ? 'badge-bad' : 'badge-warn'}`} data-testid="campaign-status">{d.detail.status}</span>
            {running && <span className="live">● {t('campaigns.refreshing')}</span>}
          </div>
          <div className="card">
            <dl className="facts">
              <dt>{t('campaigns.type')}</dt><dd>{t(`campaigns.type.${d.detail.type}` as 'campaigns.type.MAIL')}</dd>
              <dt>{t('campaigns.created')}</dt><dd>{dateTime(d.detail.createdAt, lang, me.merchant.timezone)}</dd>
              <dt>{t('campaigns.expires')}</dt><dd>{dateTime(d.detail.expiresAt, lang, me.merchant.timezone)}</dd>
              {d.detail.error && <><dt>{t('campaigns.status')}</dt><dd className="error">{d.detail.error}</dd></>}
            </dl>
            <p data-testid="campaign-progress"><progress max={d.progress.total} value={d.progress.processed} aria-label={t('campaigns.progress', { processed: String(d.progress.processed), total: String(d.progress.total) })} /> {t('campaigns.progress', { processed: String(d.progress.processed), total: String(d.progress.total) })}</p>
            <ul className="campaign-counts">
              {STATES.map((s) => <li key={s}><span className={`badge badge-${TONE[s]}`}>{t(`campaigns.status.${s}`)}</span> <span className="num" data-testid={`count-${s}`}>{d.progress[s]}</span></li>)}
            </ul>
          </div>
          {failure && <p className="error" role="alert">{failure}</p>}
          <div className="table-wrap card">
            <DataTable
              tableProps={{ 'data-testid': 'campaign-payments' }}
              rows={d.payments}
              rowKey={(p) => p.uuid}
              rowProps={(p) => ({ 'data-line': String(p.line), 'data-uuid': p.uuid })}
              columns={[
                { header: t('campaigns.line'), className: 'num', cell: (p) => p.line },
                { header: t('campaigns.destination'), className: 'break', cell: (p) => <>{p.destination ?? ''}{d.detail.type === 'CUSTOM_DELIVERY' && <> <a href={p.link} target="_blank" rel="noreferrer">{t('campaigns.link')}</a></>}</> },
                { header: t('campaigns.amount'), className: 'num', cell: (p) => amount(p.amount) },
                { header: t('campaigns.status'), cell: (p) => <><span className={`badge badge-${TONE[p.status] ?? 'neutral'}`} data-testid="payment-status">{p.status}</span>{p.error && <span className="muted small"> {p.error}</span>}</> },
                { header: t('campaigns.order'), cell: (p) => p.orderUUID && <a href={`/dashboard/payments/${p.orderUUID}`} className="mono clip" onClick={(e) => { e.preventDefault(); navigate(`/payments/${p.orderUUID}`); }}>{p.orderUUID}</a> },
                {
                  header: t('campaigns.certificates'),
                  cell: (p) => (
                    <span className="inline">
                      {d.detail.type !== 'CUSTOM_DELIVERY' && p.sentAt && <button type="button" className="secondary small-button" aria-label={t('campaigns.receipt_of', { line: String(p.line) })} onClick={() => certificate(p, 'receipt')}>{t('campaigns.receipt')}</button>}
                      {d.detail.type === 'PHONE' && p.openedAt && <button type="button" className="secondary small-button" aria-label={t('campaigns.opening_of', { line: String(p.line) })} onClick={() => certificate(p, 'opening')}>{t('campaigns.opening')}</button>}
                    </span>
                  ),
                },
              ]}
            />
          </div>
        </>
      )}
    </section>
  );
}
