/**
 * The Overview (the landing page of the groups that read payments): the figures of a period (today, 7,
 * 30 or 90 days, a custom range of days) against the period of the same length before it, per currency:
 * KPI cards with their change, and charts (recharts) each followed by its figures as a table for screen
 * readers and for reading exact values. The period lives in the address (`/overview?period=30d`).
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ApiError, api, qs, v1, type Answer, type V1Answer } from '../../api';
import { currencyDigits, money, plural, reasonLabel, useT, type Key } from '../../i18n';
import { navigate } from '../../router';
import type { AreaProps } from '../types';
import './area.css';

type Period = 'today' | '7d' | '30d' | '90d' | 'custom';
const PERIODS: Period[] = ['today', '7d', '30d', '90d', 'custom'];

/** The figures of one currency in one period (the period chosen, or the one of the same length before it). */
type Figures = Answer<'/overview', 'get'>['overview']['currencies'][number]['current'];

/** Colours with at least 3:1 contrast on white (the charts' marks). */
const COLORS = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490', '#4d7c0f', '#9d174d', '#57534e'];

function readSub(sub: string): { period: Period; from: string; to: string } {
  const q = new URLSearchParams(sub.includes('?') ? sub.slice(sub.indexOf('?')) : '');
  const p = q.get('period') as Period | null;
  return { period: p && PERIODS.includes(p) ? p : '30d', from: q.get('from') ?? '', to: q.get('to') ?? '' };
}

function locale(lang: string) {
  return lang === 'ES' ? 'es-ES' : lang === 'PT' ? 'pt-PT' : 'en-GB';
}

function dayLabel(day: string, lang: string) {
  return new Intl.DateTimeFormat(locale(lang), { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

function currencyUnits(v: number, currency: string, lang: string) {
  try {
    return new Intl.NumberFormat(locale(lang), { style: 'currency', currency }).format(v);
  } catch {
    return `${v.toFixed(2)} ${currency}`;
  }
}

function percent(v: number, lang: string, digits = 1) {
  return new Intl.NumberFormat(locale(lang), { style: 'percent', maximumFractionDigits: digits }).format(v);
}

export function OverviewPage({ me, sub, can }: AreaProps) {
  const { t, lang } = useT();
  const sel = readSub(sub);
  const [custom, setCustom] = useState({ from: sel.from, to: sel.to });
  const [currency, setCurrency] = useState<string | null>(null);
  const query = sel.period === 'custom' ? { period: 'custom', from: sel.from, to: sel.to } : { period: sel.period };
  const data = useQuery({
    queryKey: ['overview', me.env, me.merchant.uuid, query],
    queryFn: () => api<Answer<'/overview', 'get'>>('GET', `/overview${qs(query)}`).then((r) => r.overview),
    enabled: sel.period !== 'custom' || (!!sel.from && !!sel.to),
  });
  const choose = (p: Period) => {
    if (p === 'custom') navigate(`/overview${qs({ period: 'custom', from: custom.from || sel.from, to: custom.to || sel.to })}`);
    else navigate(`/overview${qs({ period: p })}`);
  };
  const applyCustom = (e: FormEvent) => {
    e.preventDefault();
    navigate(`/overview${qs({ period: 'custom', from: custom.from, to: custom.to })}`);
  };
  const ov = data.data;
  const shown = ov?.currencies.find((c) => c.currency === currency) ?? ov?.currencies[0];
  return (
    <div className="overview" data-testid="overview">
      <section className="card overview-head">
        <h1>{t('overview.title')}</h1>
        <div role="group" aria-label={t('overview.period')} className="period-picker">
          {PERIODS.map((p) => (
            <button key={p} type="button" data-testid={`period-${p}`} aria-pressed={sel.period === p} className={sel.period === p ? 'primary' : 'secondary'} onClick={() => choose(p)}>
              {t(`overview.period.${p}` as Key)}
            </button>
          ))}
        </div>
        {sel.period === 'custom' && (
          <form className="custom-range" onSubmit={applyCustom}>
            <label>{t('overview.from')}<input type="date" name="from" value={custom.from} required onChange={(e) => setCustom({ ...custom, from: e.target.value })} /></label>
            <label>{t('overview.to')}<input type="date" name="to" value={custom.to} required onChange={(e) => setCustom({ ...custom, to: e.target.value })} /></label>
            <button type="submit" className="primary">{t('overview.apply')}</button>
          </form>
        )}
        {ov && (
          <p className="muted small" data-testid="overview-range">
            {t('overview.range', { from: dayLabel(ov.from, lang), to: dayLabel(ov.to, lang), pfrom: dayLabel(ov.previous.from, lang), pto: dayLabel(ov.previous.to, lang) })}
          </p>
        )}
        {ov && ov.currencies.length > 1 && (
          <label className="currency-pick">
            {t('overview.currency')}
            <select value={shown?.currency} onChange={(e) => setCurrency(e.target.value)} data-testid="overview-currency">
              {ov.currencies.map((c) => <option key={c.currency} value={c.currency}>{c.currency}</option>)}
            </select>
          </label>
        )}
      </section>
      {data.isPending && data.fetchStatus !== 'idle' && <p className="card">{t('loading')}</p>}
      {data.error && <div role="alert" className="error">{data.error instanceof ApiError ? data.error.details : t('error.network')}</div>}
      {ov && !shown && <p className="card" data-testid="overview-empty">{t('overview.empty')}</p>}
      {ov && shown && <Figures key={shown.currency} currency={shown.currency} current={shown.current} previous={shown.previous} />}
      {can('disputes.read') && <DisputeRisk me={me} />}
    </div>
  );
}

/** This month's dispute ratio by scheme against its monitoring programme (docs/disputes.md "Risk"). */
function DisputeRisk({ me }: { me: AreaProps['me'] }) {
  const { t } = useT();
  const q = useQuery({
    queryKey: ['dispute-ratios-month', me.env, me.merchant.uuid],
    queryFn: () => v1<V1Answer<'/disputes/ratios', 'get'>>('GET', '/disputes/ratios?months=1'),
  });
  const rows = (q.data?.ratios ?? []).filter((r) => r.programme !== null);
  if (rows.length === 0) return null;
  return (
    <section className="card" data-testid="overview-disputes" aria-labelledby="overview-disputes-title">
      <h2 id="overview-disputes-title">
        <a href="/dashboard/disputes" onClick={(e) => { e.preventDefault(); navigate('/disputes'); }}>{t('disputes.ratios')}</a>
      </h2>
      <ul className="dispute-risk">
        {rows.map((r) => (
          <li key={r.scheme} data-scheme={r.scheme} data-standing={r.standing}>
            {r.scheme} ({r.programme}): {(r.ratio * 100).toFixed(2)} % <span className="muted small">({r.disputes} / {r.sales})</span>{' '}
            <span className={`badge badge-${r.standing === 'EXCEEDED' ? 'bad' : r.standing === 'WARNING' ? 'warn' : 'ok'}`}>{t(`disputes.standing.${r.standing}` as Key)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Change({ now, before }: { now: number; before: number }) {
  const { t, lang } = useT();
  if (now === before) return <span className="change same">{t('overview.change.same')}</span>;
  if (before === 0) return <span className="change up">{t('overview.change.new')}</span>;
  const rel = (now - before) / before;
  const up = rel > 0;
  return (
    <span className={`change ${up ? 'up' : 'down'}`}>
      <span aria-hidden="true">{up ? '▲ ' : '▼ '}</span>
      {t(up ? 'overview.change.up' : 'overview.change.down', { value: percent(Math.abs(rel), lang) })}
    </span>
  );
}

function Kpi({ id, label, value, previous, now, before, extra }: { id: string; label: string; value: string; previous: string; now: number; before: number; extra?: string }) {
  const { t } = useT();
  return (
    <div className="card kpi" data-testid={`kpi-${id}`}>
      <h2 className="kpi-label">{label}</h2>
      <p className="kpi-value" data-testid={`kpi-${id}-value`}>{value}</p>
      {extra && <p className="small muted">{extra}</p>}
      <p className="small"><Change now={now} before={before} /></p>
      <p className="small muted">{t('overview.previous', { value: previous })}</p>
    </div>
  );
}

function ChartCard({ id, title, children, table }: { id: string; title: string; children: React.ReactNode; table: React.ReactNode }) {
  const { t } = useT();
  return (
    <section className="card chart" aria-labelledby={`chart-${id}`} data-testid={`chart-${id}`}>
      <h2 id={`chart-${id}`}>{title}</h2>
      <div className="chart-box" aria-hidden="true">{children}</div>
      <details>
        <summary>{t('overview.figures')}</summary>
        <div className="table-wrap">{table}</div>
      </details>
    </section>
  );
}

function Figures({ currency, current, previous }: { currency: string; current: Figures; previous: Figures }) {
  const { t, lang } = useT();
  const m = (v: number) => money(v, currency, lang);
  const n = (v: number) => new Intl.NumberFormat(locale(lang)).format(v);
  const conv = (f: Figures) => (f.conversion === null ? '—' : percent(f.conversion, lang));
  const declines = (f: Figures) => f.declines.reduce((s, d) => s + d.count, 0);
  const tds = (o: string) => (`overview.tds.${o}` in TDS_KEYS ? t(`overview.tds.${o}` as Key) : o);
  const method = (x: { method: string }) => (x.method.startsWith('CARD:') ? t('overview.method.card', { brand: x.method.slice(5) }) : x.method.replace(/_/g, ' '));
  const series = current.series.map((d, i) => ({ ...d, label: dayLabel(d.date, lang), before: previous.series[i]?.volume ?? 0 }));
  const units = (v: number) => v / 10 ** currencyDigits(currency);
  return (
    <>
      <div className="kpis">
        <Kpi id="volume" label={t('overview.kpi.volume')} value={m(current.volume)} previous={m(previous.volume)} now={current.volume} before={previous.volume} />
        <Kpi id="paid" label={t('overview.kpi.paid')} value={n(current.paid)} previous={n(previous.paid)} now={current.paid} before={previous.paid} />
        <Kpi id="orders" label={t('overview.kpi.orders')} value={n(current.orders)} previous={n(previous.orders)} now={current.orders} before={previous.orders} />
        <Kpi id="conversion" label={t('overview.kpi.conversion')} value={conv(current)} previous={conv(previous)} now={current.conversion ?? 0} before={previous.conversion ?? 0} />
        <Kpi id="refunds" label={t('overview.kpi.refunds')} value={m(current.refunds.amount)} previous={m(previous.refunds.amount)} now={current.refunds.amount} before={previous.refunds.amount} extra={t(`overview.refunds_count.${plural(lang, current.refunds.count)}`, { count: n(current.refunds.count) })} />
        <Kpi id="disputes-lost" label={t('overview.kpi.disputes_lost')} value={m(current.disputes_lost.amount)} previous={m(previous.disputes_lost.amount)} now={current.disputes_lost.amount} before={previous.disputes_lost.amount} />
        <Kpi id="net" label={t('overview.kpi.net')} value={m(current.net)} previous={m(previous.net)} now={current.net} before={previous.net} />
        <Kpi id="declines" label={t('overview.kpi.declines')} value={n(declines(current))} previous={n(declines(previous))} now={declines(current)} before={declines(previous)} />
      </div>
      <div className="charts">
        <ChartCard
          id="volume"
          title={t('overview.chart.volume')}
          table={
            <table className="orders figures">
              <thead><tr><th scope="col">{t('overview.col.day')}</th><th scope="col">{t('overview.col.current')}</th><th scope="col">{t('overview.col.previous')}</th></tr></thead>
              <tbody>{series.map((d, i) => <tr key={d.date}><th scope="row">{d.label}</th><td>{m(d.volume)}</td><td>{m(previous.series[i]?.volume ?? 0)}</td></tr>)}</tbody>
            </table>
          }
        >
          <ResponsiveContainer width="100%" height={240}>
            <LineChart accessibilityLayer={false} data={series.map((d) => ({ label: d.label, current: units(d.volume), previous: units(d.before) }))} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#d6d9df" />
              <XAxis dataKey="label" tick={{ fontSize: 12, fill: '#374151' }} minTickGap={16} />
              <YAxis tick={{ fontSize: 12, fill: '#374151' }} width={56} />
              <Tooltip formatter={(v) => currencyUnits(Number(v), currency, lang)} />
              <Legend />
              <Line type="monotone" dataKey="current" name={t('overview.col.current')} stroke={COLORS[0]} strokeWidth={2} dot={false} isAnimationActive={false} />
              <Line type="monotone" dataKey="previous" name={t('overview.col.previous')} stroke={COLORS[1]} strokeDasharray="5 4" dot={false} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </ChartCard>
        <ChartCard
          id="orders"
          title={t('overview.chart.orders')}
          table={
            <table className="orders figures">
              <thead><tr><th scope="col">{t('overview.col.day')}</th><th scope="col">{t('overview.col.orders')}</th><th scope="col">{t('overview.col.paid')}</th></tr></thead>
              <tbody>{series.map((d) => <tr key={d.date}><th scope="row">{d.label}</th><td>{n(d.orders)}</td><td>{n(d.paid)}</td></tr>)}</tbody>
            </table>
          }
        >
          <ResponsiveContainer width="100%" height={240}>
            <BarChart accessibilityLayer={false} data={series} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#d6d9df" />
              <XAxis dataKey="label" tick={{ fontSize: 12, fill: '#374151' }} minTickGap={16} />
              <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: '#374151' }} width={40} />
              <Tooltip />
              <Legend />
              <Bar dataKey="orders" name={t('overview.col.orders')} fill={COLORS[5]} isAnimationActive={false} />
              <Bar dataKey="paid" name={t('overview.col.paid')} fill={COLORS[2]} isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
        <Breakdown
          id="declines"
          title={t('overview.chart.declines')}
          head={t('overview.col.reason')}
          rows={current.declines.map((d) => ({ key: d.reason, label: reasonLabel(d.reason, t), count: d.count }))}
          kind="bar"
        />
        <Breakdown
          id="threeds"
          title={t('overview.chart.threeds')}
          head={t('overview.col.outcome')}
          rows={current.threeds.map((d) => ({ key: d.outcome, label: tds(d.outcome), count: d.count }))}
          kind="pie"
        />
        <Breakdown
          id="methods"
          title={t('overview.chart.methods')}
          head={t('overview.col.method')}
          rows={current.methods.map((d) => ({ key: d.method, label: method(d), count: d.count, amount: m(d.amount) }))}
          amountHead={t('overview.col.amount')}
          kind="bar"
        />
      </div>
    </>
  );
}

const TDS_KEYS: Record<string, true> = Object.fromEntries(
  ['FRICTIONLESS', 'CHALLENGE', 'EXTERNAL', 'WALLET', 'EXEMPTED', 'PENDING', 'FAILED', 'NOT_ATTEMPTED'].map((o) => [`overview.tds.${o}`, true]),
);

function Breakdown({ id, title, head, rows, kind, amountHead }: { id: string; title: string; head: string; rows: Array<{ key: string; label: string; count: number; amount?: string }>; kind: 'bar' | 'pie'; amountHead?: string }) {
  const { t, lang } = useT();
  const total = rows.reduce((s, r) => s + r.count, 0);
  const n = (v: number) => new Intl.NumberFormat(locale(lang)).format(v);
  return (
    <ChartCard
      id={id}
      title={title}
      table={rows.length === 0 ? <p className="muted small">{t('overview.none')}</p> : (
        <table className="orders figures" data-testid={`figures-${id}`}>
          <thead><tr><th scope="col">{head}</th><th scope="col">{t('overview.col.count')}</th>{amountHead && <th scope="col">{amountHead}</th>}<th scope="col">%</th></tr></thead>
          <tbody>{rows.map((r) => <tr key={r.key}><th scope="row">{r.label}</th><td>{n(r.count)}</td>{amountHead && <td>{r.amount}</td>}<td>{percent(r.count / total, lang)}</td></tr>)}</tbody>
        </table>
      )}
    >
      {rows.length === 0 ? <p className="muted small">{t('overview.none')}</p> : kind === 'pie' ? (
        <ResponsiveContainer width="100%" height={240}>
          <PieChart accessibilityLayer={false}>
            <Pie data={rows} dataKey="count" nameKey="label" innerRadius={50} outerRadius={90} isAnimationActive={false} rootTabIndex={-1}>
              {rows.map((r, i) => <Cell key={r.key} fill={COLORS[i % COLORS.length]} />)}
            </Pie>
            <Tooltip />
            <Legend />
          </PieChart>
        </ResponsiveContainer>
      ) : (
        <ResponsiveContainer width="100%" height={Math.max(120, rows.length * 34 + 40)}>
          <BarChart accessibilityLayer={false} data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#d6d9df" />
            <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12, fill: '#374151' }} />
            <YAxis type="category" dataKey="label" width={150} tick={{ fontSize: 12, fill: '#374151' }} />
            <Tooltip />
            <Bar dataKey="count" name={t('overview.col.count')} isAnimationActive={false}>
              {rows.map((r, i) => <Cell key={r.key} fill={COLORS[i % COLORS.length]} />)}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      )}
    </ChartCard>
  );
}
