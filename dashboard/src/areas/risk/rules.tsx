/**
 * The antifraud rules of the merchant (getAntifraudRules / putAntifraudRules): every rule with its score
 * and parameters, the thresholds and the low-value exemption. Staff with risk.manage edit and save them
 * (the API answers the rules in force, or why it refused them); the others read them.
 */
import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, v1, type V1Answer } from '../../api';
import { useT, type Key } from '../../i18n';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { AreaProps } from '../types';

type Amounts = Record<string, number>;
/**
 * The rules being edited, and the body sent back: written here, as the form treats every rule alike (one
 * editable shape, by the rule's name). What the API answers (`V1Answer<'/antifraud/rules', 'get'>`, each
 * rule with its own fields) is one of these: `const r: Rules = q.data.antifraud` checks it.
 */
interface Rule { enabled: boolean; score: number; max_payments?: number; window_seconds?: number; amounts?: Amounts; new_for_seconds?: number }
export interface Rules {
  enabled: boolean;
  challenge_threshold: number;
  reject_threshold: number;
  rules: Record<string, Rule>;
  low_value_exemption: { enabled: boolean; max_amounts: Amounts };
}

/** `EUR 250000, USD 250000` ⇄ {EUR: 250000, USD: 250000} (minor units). */
export const amountsText = (a: Amounts) => Object.entries(a).map(([c, v]) => `${c} ${v}`).join(', ');
export function parseAmounts(s: string): Amounts | null {
  const out: Amounts = {};
  for (const part of s.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([A-Za-z]{3})\s*[:= ]\s*(\d{1,12})$/.exec(part);
    if (!m) return null;
    out[m[1]!.toUpperCase()] = Number(m[2]);
  }
  return out;
}

export function AntifraudRules({ me, can }: AreaProps) {
  const { t } = useT();
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ['antifraud-rules', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/antifraud/rules', 'get'>>('GET', '/antifraud/rules') });
  const [draft, setDraft] = useState<Rules | null>(null);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!q.data) return;
    const r: Rules = q.data.antifraud;
    setDraft(structuredClone(r));
    const tx: Record<string, string> = { low_value_exemption: amountsText(r.low_value_exemption.max_amounts) };
    for (const [k, v] of Object.entries(r.rules)) if (v.amounts) tx[k] = amountsText(v.amounts);
    setTexts(tx);
  }, [q.data]);
  if (q.isError) return <div role="alert" className="error">{q.error instanceof ApiError ? q.error.details : t('error.network')}</div>;
  if (!draft) return null;
  const manage = can('risk.manage');
  const setRule = (k: string, patch: Partial<Rule>) => { setSaved(false); setDraft({ ...draft, rules: { ...draft.rules, [k]: { ...draft.rules[k]!, ...patch } } }); };
  const num = (v: string) => (v === '' ? 0 : Math.trunc(Number(v)));
  const bad = Object.entries(texts).filter(([, v]) => parseAmounts(v) === null).map(([k]) => k);

  const body = (): Rules => {
    const rules: Record<string, Rule> = {};
    for (const [k, v] of Object.entries(draft.rules)) rules[k] = v.amounts ? { ...v, amounts: parseAmounts(texts[k] ?? '') ?? v.amounts } : v;
    return { ...draft, rules, low_value_exemption: { ...draft.low_value_exemption, max_amounts: parseAmounts(texts.low_value_exemption ?? '') ?? draft.low_value_exemption.max_amounts } };
  };

  return (
    <div data-testid="antifraud-rules">
      <div className="card">
        <h2>{t('risk.rules')}</h2>
        <p className="muted small">{t('risk.rules_help')}</p>
        <div className="filter-grid">
          <label className="check rk-check"><input type="checkbox" disabled={!manage} checked={draft.enabled} onChange={(e) => { setSaved(false); setDraft({ ...draft, enabled: e.target.checked }); }} />{t('risk.antifraud_on')}</label>
          <label>{t('risk.challenge_threshold')}<input type="number" min={1} max={100} disabled={!manage} value={draft.challenge_threshold} onChange={(e) => { setSaved(false); setDraft({ ...draft, challenge_threshold: num(e.target.value) }); }} /></label>
          <label>{t('risk.reject_threshold')}<input type="number" min={1} max={100} disabled={!manage} value={draft.reject_threshold} onChange={(e) => { setSaved(false); setDraft({ ...draft, reject_threshold: num(e.target.value) }); }} /></label>
        </div>
      </div>
      <div className="table-wrap card">
        <table className="orders" data-testid="rules">
          <thead><tr><th scope="col">{t('risk.rule')}</th><th scope="col">{t('risk.enabled')}</th><th scope="col">{t('risk.score')}</th><th scope="col">{t('risk.parameters')}</th></tr></thead>
          <tbody>
            {Object.entries(draft.rules).map(([k, r]) => {
              const label = t(`risk.rule.${k}` as Key);
              return (
                <tr key={k} data-rule={k}>
                  <th scope="row" data-label={t('risk.rule')} className="rk-rule">{label}<div className="muted small mono">{k}</div></th>
                  <td data-label={t('risk.enabled')}><input type="checkbox" className="rk-box" aria-label={`${t('risk.enabled')}: ${label}`} disabled={!manage} checked={r.enabled} onChange={(e) => setRule(k, { enabled: e.target.checked })} /></td>
                  <td data-label={t('risk.score')}><input type="number" className="rk-num" min={0} max={100} aria-label={`${t('risk.score')}: ${label}`} disabled={!manage} value={r.score} onChange={(e) => setRule(k, { score: num(e.target.value) })} /></td>
                  <td data-label={t('risk.parameters')}>
                    <div className="rk-params">
                      {r.max_payments !== undefined && <label>{t('risk.max_payments')}<input type="number" min={1} disabled={!manage} value={r.max_payments} onChange={(e) => setRule(k, { max_payments: num(e.target.value) })} /></label>}
                      {r.window_seconds !== undefined && <label>{t('risk.window_seconds')}<input type="number" min={60} disabled={!manage} value={r.window_seconds} onChange={(e) => setRule(k, { window_seconds: num(e.target.value) })} /></label>}
                      {r.new_for_seconds !== undefined && <label>{t('risk.new_for_seconds')}<input type="number" min={60} disabled={!manage} value={r.new_for_seconds} onChange={(e) => setRule(k, { new_for_seconds: num(e.target.value) })} /></label>}
                      {r.amounts !== undefined && (
                        <label>{t('risk.amounts')}<input disabled={!manage} aria-invalid={bad.includes(k)} value={texts[k] ?? ''} onChange={(e) => { setSaved(false); setTexts({ ...texts, [k]: e.target.value }); }} /></label>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
            <tr>
              <th scope="row" data-label={t('risk.rule')} className="rk-rule">{t('risk.low_value')}</th>
              <td data-label={t('risk.enabled')}><input type="checkbox" className="rk-box" aria-label={`${t('risk.enabled')}: ${t('risk.low_value')}`} disabled={!manage} checked={draft.low_value_exemption.enabled} onChange={(e) => { setSaved(false); setDraft({ ...draft, low_value_exemption: { ...draft.low_value_exemption, enabled: e.target.checked } }); }} /></td>
              <td data-label={t('risk.score')}>—</td>
              <td data-label={t('risk.parameters')}>
                <div className="rk-params"><label>{t('risk.max_amounts')}<input disabled={!manage} aria-invalid={bad.includes('low_value_exemption')} value={texts.low_value_exemption ?? ''} onChange={(e) => { setSaved(false); setTexts({ ...texts, low_value_exemption: e.target.value }); }} /></label></div>
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      {bad.length > 0 && <div role="alert" className="error">{t('risk.amounts_help')}</div>}
      {saved && <div role="status" className="notice">{t('risk.rules_saved')}</div>}
      {manage && (
        <div className="action-row rk-gap">
          <ConfirmDialog
            trigger={<button type="button" className="primary" disabled={bad.length > 0}>{t('risk.save_rules')}</button>}
            title={t('risk.save_rules')}
            message={t('risk.save_rules_confirm')}
            onConfirm={async () => {
              const r = await v1<V1Answer<'/antifraud/rules', 'put'>>('PUT', '/antifraud/rules', body());
              qc.setQueryData(['antifraud-rules', me.env, me.merchant.uuid], r);
              setSaved(true);
            }}
          />
          <ConfirmDialog
            trigger={<button type="button" className="secondary">{t('risk.defaults')}</button>}
            title={t('risk.defaults')}
            message={t('risk.defaults_confirm')}
            onConfirm={async () => {
              const r = await v1<V1Answer<'/antifraud/rules', 'put'>>('PUT', '/antifraud/rules', {});
              qc.setQueryData(['antifraud-rules', me.env, me.merchant.uuid], r);
              setSaved(true);
            }}
          />
        </div>
      )}
    </div>
  );
}
