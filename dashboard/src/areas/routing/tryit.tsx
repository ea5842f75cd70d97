/**
 * Trying a profile (POST /routing-profiles/{uuid}/test through the bridge): a hypothetical payment's
 * card, amount, currency, channel, countries and metadata, and the decision: the services in the order
 * they would be tried, the rule and why. A card number never leaves the browser: its BIN is sent and its
 * last 4 digits are shown beside the answer (the bridge refuses card numbers).
 */
import { useState, type FormEvent } from 'react';
import { ApiError, v1, type V1Answer } from '../../api';
import { toMinor, useT } from '../../i18n';
import { DataTable } from '../../components/DataTable';
import { CHANNELS, cardOf } from './model';

type Decision = V1Answer<'/routing-profiles/{uuid}/test', 'post'>['routing_decision'];

export function TryIt({ uuid, serviceName }: { uuid: string; serviceName: (uuid: string) => string }) {
  const { t } = useT();
  const [card, setCard] = useState('');
  const [amount, setAmount] = useState('25.00');
  const [currency, setCurrency] = useState('EUR');
  const [channel, setChannel] = useState<(typeof CHANNELS)[number]>('ECOMMERCE');
  const [customer, setCustomer] = useState('');
  const [issuer, setIssuer] = useState('');
  const [metadata, setMetadata] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<{ decision: Decision; last4: string | null } | null>(null);
  const c = cardOf(card);
  const minor = toMinor(amount, currency);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!c || minor === null) return;
    setBusy(true);
    setError(null);
    try {
      const meta = Object.fromEntries(metadata.split('\n').map((l) => l.trim()).filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')).trim(), l.slice(l.indexOf('=') + 1).trim()]));
      const r = await v1<V1Answer<'/routing-profiles/{uuid}/test', 'post'>>('POST', `/routing-profiles/${uuid}/test`, {
        bin: c.bin, amount: minor, currency, channel,
        customer_country: customer.trim() || undefined,
        issuer_country: issuer.trim() || undefined,
        metadata: Object.keys(meta).length ? meta : undefined,
      });
      setResult({ decision: r.routing_decision, last4: c.last4 });
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  const d = result?.decision;
  return (
    <div className="card" data-testid="routing-try">
      <h2 id="routing-try-title">{t('routing.try')}</h2>
      <p className="small muted">{t('routing.try_help')}</p>
      <form className="routing-grid" onSubmit={submit} aria-labelledby="routing-try-title">
        <label>{t('routing.card')}<input value={card} inputMode="numeric" autoComplete="off" maxLength={23} onChange={(e) => setCard(e.target.value)} data-testid="try-card" />
          {card !== '' && !c && <span className="error small">{t('routing.card_invalid')}</span>}
        </label>
        <label>{t('routing.amount')}<input value={amount} inputMode="decimal" onChange={(e) => setAmount(e.target.value)} data-testid="try-amount" />
          {minor === null && <span className="error small">{t('routing.amount_invalid')}</span>}
        </label>
        <label>{t('routing.currency')}<input value={currency} maxLength={3} onChange={(e) => setCurrency(e.target.value.toUpperCase())} data-testid="try-currency" /></label>
        <label>{t('routing.channel')}
          <select value={channel} onChange={(e) => setChannel(e.target.value as typeof channel)} data-testid="try-channel">
            {CHANNELS.map((x) => <option key={x} value={x}>{x}</option>)}
          </select>
        </label>
        <label>{t('routing.customer_country')}<input value={customer} maxLength={2} onChange={(e) => setCustomer(e.target.value.toUpperCase())} data-testid="try-customer-country" /></label>
        <label>{t('routing.issuer_country')}<input value={issuer} maxLength={2} onChange={(e) => setIssuer(e.target.value.toUpperCase())} data-testid="try-issuer-country" /></label>
        <label className="wide">{t('routing.metadata')}<textarea value={metadata} onChange={(e) => setMetadata(e.target.value)} data-testid="try-metadata" /></label>
        <div><button type="submit" className="primary" disabled={busy || !c || minor === null} data-testid="try-submit">{t('routing.try_button')}</button></div>
      </form>
      {error && <div role="alert" className="error" data-testid="try-error">{error}</div>}
      {d && (
        <div data-testid="try-result" data-rule={d.rule ?? ''}>
          <h3 id="routing-decision-title">{t('routing.decision')}</h3>
          <dl className="facts">
            <dt>{t('routing.card_shown')}</dt>
            <dd data-testid="try-card-shown">{d.facts.bin}{result.last4 ? ` •••• ${result.last4}` : ''}</dd>
            <dt>{t('routing.facts')}</dt>
            <dd>{[d.facts.brand, d.facts.card_type, d.facts.issuer_country, d.facts.channel].filter(Boolean).join(' · ')}</dd>
            <dt>{t('routing.matched')}</dt>
            <dd data-testid="try-rule">{d.rule ?? t('routing.no_rule')}</dd>
          </dl>
          <DataTable
            tableProps={{ 'data-testid': 'try-attempts', 'aria-labelledby': 'routing-decision-title' }}
            rows={d.attempts}
            rowKey={(_, i) => String(i)}
            rowProps={(a) => ({ 'data-service': a.service_uuid })}
            columns={[
              { header: t('routing.attempt'), className: 'num', cell: (_, i) => i + 1 },
              { header: t('routing.service'), cell: (a) => serviceName(a.service_uuid) },
              { header: t('routing.matched'), cell: (a) => a.rule ?? '—' },
              { header: t('routing.reason'), cell: (a) => a.reason },
            ]}
          />
          {d.skipped.length > 0 && (
            <p className="small" data-testid="try-skipped">{t('routing.skipped')}: {d.skipped.map((s) => `${serviceName(s.service_uuid)} (${s.reason})`).join(', ')}</p>
          )}
        </div>
      )}
    </div>
  );
}
