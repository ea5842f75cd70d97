/**
 * The Configuration area: services and terminals (terminals.manage), and for MANAGER the look of the
 * customer pages (templates, page settings, checkouts, with a live preview of the hosted page),
 * notifications, wallet keys and DCC, the sandbox test clock and child merchants. Everything goes
 * through the merchant API's own operations (the bridge), except the lists the API has no operation
 * for and the preview (the area's routes).
 */
import { useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import type { AreaProps } from '../types';
import { ServicesTab, ServicePage } from './services';
import { TemplatesTab, CheckoutsTab } from './look';
import { NotificationsTab, WalletsTab, ClockTab, MerchantsTab } from './more';
import './area.css';

type Tab = 'services' | 'templates' | 'checkouts' | 'notifications' | 'wallets' | 'clock' | 'merchants';

export function SettingsPage(props: AreaProps) {
  const { t } = useT();
  const { me, can } = props;
  const tabs: Array<[Tab, Key]> = [];
  if (can('terminals.manage')) tabs.push(['services', 'settings.tab.services']);
  if (can('settings.manage')) {
    tabs.push(['templates', 'settings.tab.templates'], ['checkouts', 'settings.tab.checkouts'], ['notifications', 'settings.tab.notifications'], ['wallets', 'settings.tab.wallets']);
    if (me.env === 'sandbox') tabs.push(['clock', 'settings.tab.clock']);
    tabs.push(['merchants', 'settings.tab.merchants']);
  }
  const path = props.sub.split('?')[0].replace(/^\/+/, '');
  const [first, second] = path.split('/');
  const tab: Tab | undefined = tabs.find(([k]) => k === first)?.[0] ?? tabs[0]?.[0];
  return (
    <section aria-labelledby="settings-title" className="settings">
      <div className="page-head"><h1 id="settings-title">{t('settings.title')}</h1></div>
      <div className="tabs" role="navigation" aria-label={t('settings.title')}>
        {tabs.map(([k, label]) => (
          <a key={k} href={`/dashboard/settings/${k}`} aria-current={tab === k ? 'page' : undefined} onClick={(e) => { e.preventDefault(); navigate(`/settings/${k}`); }}>{t(label)}</a>
        ))}
      </div>
      {tab === 'services' && (second ? <ServicePage key={second} uuid={second} {...props} /> : <ServicesTab {...props} />)}
      {tab === 'templates' && <TemplatesTab {...props} />}
      {tab === 'checkouts' && <CheckoutsTab {...props} />}
      {tab === 'notifications' && <NotificationsTab {...props} />}
      {tab === 'wallets' && <WalletsTab {...props} />}
      {tab === 'clock' && <ClockTab {...props} />}
      {tab === 'merchants' && <MerchantsTab {...props} />}
      {!tab && <p className="card">{t('settings.nothing')}</p>}
    </section>
  );
}
