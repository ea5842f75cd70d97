/**
 * MoTo campaigns (moto.read; sending needs moto.create): the merchant's campaigns, a new campaign from a
 * CSV file (previewed here, sent base64 as G1) or typed payments (G2) with the API's line errors shown
 * next to their lines, and a campaign's page (G5 and the campaign's state, refreshed while it runs).
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../api';
import { dateTime, useT } from '../../i18n';
import { navigate } from '../../router';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { NewCampaign } from './NewCampaign';
import { CampaignDetail } from './CampaignDetail';
import './area.css';

const UUID_RE = /^\/([0-9a-f-]{36})$/i;

export function CampaignsPage(props: AreaProps) {
  const path = props.sub.split('?')[0];
  if (path === '/new' && props.can('moto.create')) return <NewCampaign {...props} />;
  const m = UUID_RE.exec(path);
  if (m) return <CampaignDetail {...props} uuid={m[1]} />;
  return <CampaignList {...props} />;
}

export function toCampaigns(e: { preventDefault(): void }, to = '') {
  e.preventDefault();
  navigate(`/campaigns${to}`);
}

function CampaignList({ me, can }: AreaProps) {
  const { t, lang } = useT();
  const list = useInfiniteQuery({
    queryKey: ['campaigns', me.merchant.uuid, me.env],
    queryFn: ({ pageParam }) => api<Answer<'/campaigns', 'get'>>('GET', `/campaigns?limit=20&offset=${pageParam}`),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next_offset ?? undefined,
  });
  const rows = list.data?.pages.flatMap((p) => p.campaigns) ?? [];
  return (
    <section aria-labelledby="campaigns-title">
      <div className="page-head">
        <h1 id="campaigns-title">{t('campaigns.title')}</h1>
        {can('moto.create') && <a className="button primary" href="/dashboard/campaigns/new" onClick={(e) => toCampaigns(e, '/new')}>{t('campaigns.new')}</a>}
      </div>
      <p className="muted">{t('campaigns.intro')}</p>
      {!can('moto.create') && <p className="muted small">{t('campaigns.read_only')}</p>}
      {list.error && <p className="error">{String((list.error as Error).message)}</p>}
      <div className="table-wrap card">
        <DataTable
          tableProps={{ 'data-testid': 'campaigns' }}
          rows={rows}
          rowKey={(c) => c.uuid}
          rowProps={(c) => ({ 'data-uuid': c.uuid })}
          empty={list.isSuccess ? t('campaigns.none') : undefined}
          columns={[
            { header: t('campaigns.created'), className: 'num', cell: (c) => dateTime(c.createdAt, lang, me.merchant.timezone) },
            { header: t('campaigns.description'), cell: (c) => <a href={`/dashboard/campaigns/${c.uuid}`} onClick={(e) => toCampaigns(e, `/${c.uuid}`)}>{c.description}</a> },
            { header: t('campaigns.type'), cell: (c) => t(`campaigns.type.${c.type}` as 'campaigns.type.MAIL') },
            { header: t('campaigns.status'), cell: (c) => <span className={`badge ${c.status === 'COMPLETED' ? 'badge-ok' : c.status === 'FAILED' ? 'badge-bad' : 'badge-warn'}`}>{c.status}</span> },
            { header: t('campaigns.payments'), className: 'num', cell: (c) => c.paymentCount },
          ]}
        />
      </div>
      {list.hasNextPage && <button type="button" className="secondary more" onClick={() => list.fetchNextPage()}>{t('campaigns.more')}</button>}
    </section>
  );
}
