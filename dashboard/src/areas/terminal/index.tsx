/**
 * The virtual terminal (manual.create): a MoTo payment whose card is typed into the gateway's own card
 * form (framed here; the card never passes through this app or its API), and payment links (B1 + B2
 * through the bridge) sent by e-mail or SMS with one of the merchant's page templates.
 */
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, v1, type Answer, type V1Answer } from '../../api';
import { dateTime, money, toMinor, useT } from '../../i18n';
import { navigate } from '../../router';
import type { AreaProps } from '../types';
import './area.css';

/** The merchant's page templates and services, and whether the card may be typed here (PCI). */
type Options = Answer<'/terminal/templates', 'get'>;

/** "42,50" or "42.50" in minor units of the currency; null when not a positive amount of it. */
function positiveMinor(text: string, currency: string): number | null {
  const minor = toMinor(text, currency);
  return minor !== null && minor > 0 ? minor : null;
}

const errorText = (e: unknown) => (e instanceof ApiError ? e.details : String(e));

export function OrderLink({ uuid }: { uuid: string }) {
  return <a href={`/dashboard/payments/${uuid}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${uuid}`); }} className="mono break">{uuid}</a>;
}

export function TerminalPage({ me }: AreaProps) {
  const { t, lang } = useT();
  const options = useQuery({ queryKey: ['terminal-options', me.merchant.uuid, me.env], queryFn: () => api<Options>('GET', '/terminal/templates') });
  const [order, setOrder] = useState({ amount: '', currency: 'EUR', description: '', customer: '', reference: '', service: '', operative: 'AUTHORIZATION' });
  const minor = positiveMinor(order.amount, order.currency || 'EUR');
  const fields = () => ({
    amount: minor!,
    currency: order.currency.toUpperCase(),
    ...(order.service ? { service: order.service } : {}),
    description: order.description,
    operative: order.operative,
    ...(order.customer ? { customer_ext_id: order.customer } : {}),
    ...(order.reference ? { reference: order.reference } : {}),
  });
  const ready = minor !== null && order.description.trim() !== '' && /^[A-Za-z]{3}$/.test(order.currency);
  const set = (k: keyof typeof order) => (e: { target: { value: string } }) => setOrder({ ...order, [k]: e.target.value });

  return (
    <section aria-labelledby="terminal-title" className="terminal">
      <div className="page-head"><h1 id="terminal-title">{t('terminal.title')}</h1></div>
      <p className="muted">{t('terminal.intro')}</p>
      <div className="card">
        <h2>{t('terminal.order')}</h2>
        <div className="filter-grid">
          <label>{t('terminal.amount')}<input name="amount" inputMode="decimal" value={order.amount} onChange={set('amount')} aria-invalid={order.amount !== '' && minor === null} /></label>
          <label>{t('terminal.currency')}<input name="currency" maxLength={3} value={order.currency} onChange={set('currency')} /></label>
          <label className="wide">{t('terminal.description')}<input name="description" maxLength={500} value={order.description} onChange={set('description')} /></label>
          <label>{t('terminal.operative')}
            <select value={order.operative} onChange={set('operative')}>
              <option value="AUTHORIZATION">{t('terminal.op.AUTHORIZATION')}</option>
              <option value="DEFERRED">{t('terminal.op.DEFERRED')}</option>
            </select>
          </label>
          <label>{t('terminal.service')}
            <select value={order.service} onChange={set('service')}>
              <option value="">{t('terminal.service_default')}</option>
              {(options.data?.services ?? []).filter((s) => s.enabled).map((s) => <option key={s.uuid} value={s.uuid}>{s.name}</option>)}
            </select>
          </label>
          <label>{t('terminal.customer')}<input name="customer" maxLength={64} value={order.customer} onChange={set('customer')} /></label>
          <label>{t('terminal.reference')}<input name="reference" maxLength={64} value={order.reference} onChange={set('reference')} /></label>
        </div>
        {order.amount !== '' && minor === null && <p className="error" role="alert">{t('terminal.amount_invalid')}</p>}
        {minor !== null && <p className="muted small">{money(minor, order.currency.toUpperCase(), lang)}</p>}
      </div>
      <div className="grid2">
        {options.data && (options.data.pci ? <CardForm ready={ready} fields={fields} /> : (
          <div className="card" data-testid="no-pci"><h2>{t('terminal.card')}</h2><p className="notice-info">{t('terminal.no_pci')}</p></div>
        ))}
        {options.error && <p className="error">{errorText(options.error)}</p>}
        <PaymentLink ready={ready} fields={fields} templates={options.data?.templates ?? []} defaultLanguage={me.user.language} timezone={me.merchant.timezone} />
      </div>
    </section>
  );
}

function CardForm({ ready, fields }: { ready: boolean; fields: () => Record<string, unknown> }) {
  const { t, lang } = useT();
  const [method, setMethod] = useState<'PHONE' | 'MAIL'>('PHONE');
  const [form, setForm] = useState<{ url: string; order: string } | null>(null);
  const [outcome, setOutcome] = useState<{ order: string; status: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const frame = useRef<HTMLIFrameElement>(null);

  // the gateway's form tells its outcome: only from this origin and from its own frame
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== window.location.origin || !frame.current || e.source !== frame.current.contentWindow) return;
      const d = e.data as { type?: unknown; order_uuid?: unknown; status?: unknown } | null;
      if (!d || d.type !== 'paygate.terminal' || typeof d.order_uuid !== 'string' || typeof d.status !== 'string') return;
      setOutcome({ order: d.order_uuid, status: d.status });
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  const open = async () => {
    setBusy(true);
    setError(null);
    setOutcome(null);
    try {
      const r = await api<Answer<'/terminal/sessions', 'post'>>('POST', '/terminal/sessions', { ...fields(), method, language: lang });
      setForm({ url: r.form_url, order: r.order_uuid });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card" data-testid="card-form">
      <h2>{t('terminal.card')}</h2>
      <p className="muted small">{t('terminal.card_help')}</p>
      {!form && (
        <div className="terminal-row">
          <label>{t('terminal.method')}
            <select value={method} onChange={(e) => setMethod(e.target.value as 'PHONE' | 'MAIL')}>
              <option value="PHONE">{t('terminal.method.PHONE')}</option>
              <option value="MAIL">{t('terminal.method.MAIL')}</option>
            </select>
          </label>
          <button type="button" className="primary" disabled={!ready || busy} onClick={open}>{t('terminal.open_form')}</button>
        </div>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {form && <iframe ref={frame} className="terminal-frame" title={t('terminal.form_title')} src={form.url} />}
      {outcome && (
        <div role="status" className={outcome.status === 'SUCCESS' || outcome.status === 'PENDING_CONFIRMATION' ? 'notice' : 'error'} data-testid="terminal-outcome">
          <p>{t('terminal.outcome', { uuid: outcome.order, status: outcome.status })}</p>
          <p><a href={`/dashboard/payments/${outcome.order}`} onClick={(e) => { e.preventDefault(); navigate(`/payments/${outcome.order}`); }}>{t('terminal.view_order')}</a></p>
        </div>
      )}
      {form && <button type="button" className="secondary" onClick={() => { setForm(null); setOutcome(null); }}>{t('terminal.restart')}</button>}
    </div>
  );
}

/** How long a payment link works: the contract's `expires_in` limits (B1: 600 to 31,536,000 seconds). */
export const LINK_EXPIRY = { minSeconds: 600, maxSeconds: 31_536_000, defaultDays: 7 } as const;
const UNIT_SECONDS = { minutes: 60, hours: 3600, days: 86_400 } as const;
type Unit = keyof typeof UNIT_SECONDS;

/** The seconds of a typed duration, or null when it is no whole number or outside the contract's limits. */
export function expirySeconds(amount: string, unit: Unit): number | null {
  if (!/^\d{1,6}$/.test(amount.trim())) return null;
  const seconds = Number(amount.trim()) * UNIT_SECONDS[unit];
  return seconds >= LINK_EXPIRY.minSeconds && seconds <= LINK_EXPIRY.maxSeconds ? seconds : null;
}

function PaymentLink({ ready, fields, templates, defaultLanguage, timezone }: { ready: boolean; fields: () => Record<string, unknown>; templates: Options['templates']; defaultLanguage: string; timezone: string }) {
  const { t, lang } = useT();
  const [link, setLink] = useState({ destination: '', subject: '', template: '', language: defaultLanguage.toLowerCase() });
  // the customer opens the message later: the link works for days by default (the API's default is 10 minutes)
  const [expiry, setExpiry] = useState<{ amount: string; unit: Unit }>({ amount: String(LINK_EXPIRY.defaultDays), unit: 'days' });
  const seconds = expirySeconds(expiry.amount, expiry.unit);
  const [result, setResult] = useState<{ order: string; url: string; sent: string | null; failed: string | null; expires_at: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);
  // one order and one message per press: a second click while one is under way does nothing
  const sending = useRef(false);

  const send = async () => {
    if (sending.current || seconds === null) return;
    sending.current = true;
    setBusy(true);
    setError(null);
    setResult(null);
    setCopied(false);
    try {
      const created = await v1<V1Answer<'/payment', 'post'>>('POST', '/payment', { ...fields(), secure: false, expires_in: seconds, ...(link.template ? { template_uuid: link.template } : {}) });
      const order = created.order;
      let url = order.urls.payment_card;
      if (link.template) url += `${url.includes('?') ? '&' : '?'}template=${link.template}`;
      // until when it works, as the gateway keeps it
      const expires_at = await api<Answer<'/orders/{uuid}', 'get'>>('GET', `/orders/${order.uuid}`).then((d) => d.expires_at, () => null);
      try {
        await v1('POST', '/payment/link', { order_uuid: order.uuid, destination: link.destination.trim(), subject: link.subject, template_uuid: link.template || null, language: link.language });
        setResult({ order: order.uuid, url, sent: link.destination.trim(), failed: null, expires_at });
      } catch (e) {
        setResult({ order: order.uuid, url, sent: null, failed: errorText(e), expires_at });
      }
    } catch (e) {
      setError(errorText(e));
      sending.current = false;
    } finally {
      setBusy(false);
    }
  };

  // a link made: the form gives way to it until another is asked for (a press never makes a second order)
  const another = () => {
    sending.current = false;
    setResult(null);
    setCopied(false);
  };

  return (
    <div className="card" data-testid="payment-link">
      <h2>{t('terminal.link')}</h2>
      <p className="muted small">{t('terminal.link_help')}</p>
      {!result && (
        <div className="terminal-stack">
          <label>{t('terminal.destination')}<input name="destination" maxLength={254} value={link.destination} onChange={(e) => setLink({ ...link, destination: e.target.value })} /></label>
          <label>{t('terminal.subject')}<input name="subject" maxLength={200} value={link.subject} onChange={(e) => setLink({ ...link, subject: e.target.value })} /></label>
          <label>{t('terminal.template')}
            <select value={link.template} onChange={(e) => setLink({ ...link, template: e.target.value })}>
              <option value="">{t('terminal.template_default')}</option>
              {templates.map((x) => <option key={x.uuid} value={x.uuid}>{x.name}</option>)}
            </select>
          </label>
          <label>{t('terminal.language')}
            <select value={link.language} onChange={(e) => setLink({ ...link, language: e.target.value })}>
              <option value="es">Español</option>
              <option value="en">English</option>
              <option value="pt">Português</option>
            </select>
          </label>
          <fieldset className="expiry">
            <legend>{t('terminal.expiry')}</legend>
            <label><span className="sr-only">{t('terminal.expiry_amount')}</span>
              <input name="expiry" inputMode="numeric" aria-label={t('terminal.expiry_amount')} value={expiry.amount} aria-invalid={seconds === null} onChange={(e) => setExpiry({ ...expiry, amount: e.target.value })} />
            </label>
            <label><span className="sr-only">{t('terminal.expiry_unit')}</span>
              <select aria-label={t('terminal.expiry_unit')} value={expiry.unit} onChange={(e) => setExpiry({ ...expiry, unit: e.target.value as Unit })}>
                <option value="minutes">{t('terminal.unit.minutes')}</option>
                <option value="hours">{t('terminal.unit.hours')}</option>
                <option value="days">{t('terminal.unit.days')}</option>
              </select>
            </label>
          </fieldset>
          {seconds === null && <p className="error" role="alert" data-testid="expiry-invalid">{t('terminal.expiry_invalid')}</p>}
          <button type="button" className="primary" disabled={!ready || busy || seconds === null || link.destination.trim() === '' || link.subject.trim() === ''} onClick={send}>{t('terminal.send_link')}</button>
        </div>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {result && (
        <div role="status" data-testid="link-result">
          {result.sent ? <p className="notice">{t('terminal.sent', { destination: result.sent })}</p> : <p className="error">{t('terminal.not_sent', { details: result.failed ?? '' })}</p>}
          {result.expires_at && <p data-testid="link-expires">{t('terminal.expires_at', { date: dateTime(result.expires_at, lang, timezone) })}</p>}
          <label>{t('terminal.link_label')}<input readOnly value={result.url} onFocus={(e) => e.target.select()} /></label>
          <div className="action-row terminal-after">
            <button type="button" className="secondary" onClick={async () => { await navigator.clipboard?.writeText(result.url).catch(() => {}); setCopied(true); }}>{copied ? t('terminal.copied') : t('terminal.copy')}</button>
            <OrderLink uuid={result.order} />
            <button type="button" className="secondary" onClick={another}>{t('terminal.another')}</button>
          </div>
        </div>
      )}
    </div>
  );
}
