/**
 * The profile editor: name, entry service, status, most attempts, and the ordered rules (added, removed,
 * moved up and down), each with its conditions (every type the routing module knows) and its action (one
 * service or a weighted split, with ordered fallbacks). A refusal of the API is shown above the form, and
 * each problem it names beside its field.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../../api';
import { useT, type Key } from '../../i18n';
import { CARD_TYPES, CHANNELS, CONDITION_TYPES, emptyCondition, emptyRule, fieldProblems, move, type ConditionType, type FormAction, type FormCondition, type FormProfile, type FormRule } from './model';

export interface Service { uuid: string; name: string; type: string; enabled: boolean }

type Problems = Map<string, string>;

function Problem({ problems, field }: { problems: Problems; field: string }) {
  const p = problems.get(field);
  return p ? <span className="error small" data-problem={field}>{p}</span> : null;
}

function ServiceSelect({ services, value, onChange, label, testId }: { services: Service[]; value: string; onChange: (v: string) => void; label: string; testId?: string }) {
  const { t } = useT();
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
      <option value="">{t('routing.choose')}</option>
      {value && !services.some((s) => s.uuid === value) && <option value={value}>{value} ({t('routing.unknown_service')})</option>}
      {services.map((s) => <option key={s.uuid} value={s.uuid}>{s.name} · {s.type}</option>)}
    </select>
  );
}

export function ProfileEditor({ initial, services, title, onSave, onCancel }: {
  initial: FormProfile;
  services: Service[];
  title: string;
  onSave: (f: FormProfile) => Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useT();
  const [f, setF] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [problems, setProblems] = useState<Problems>(new Map());
  const setRule = (i: number, r: FormRule) => setF({ ...f, rules: f.rules.map((x, j) => (j === i ? r : x)) });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setProblems(new Map());
    try {
      await onSave(f);
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
      if (err instanceof ApiError) setProblems(fieldProblems(err.body));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card routing-editor" onSubmit={submit} data-testid="routing-editor" aria-labelledby="routing-editor-title">
      <h2 id="routing-editor-title">{title}</h2>
      {error && <div role="alert" className="error" data-testid="routing-error">{error}</div>}
      <div className="routing-grid">
        <label>{t('routing.name')}<input value={f.name} maxLength={100} onChange={(e) => setF({ ...f, name: e.target.value })} data-testid="routing-name" /><Problem problems={problems} field="name" /></label>
        <label>{t('routing.entry')}
          <ServiceSelect services={services} value={f.service_uuid} onChange={(v) => setF({ ...f, service_uuid: v })} label={t('routing.entry')} testId="routing-entry" />
          <Problem problems={problems} field="service_uuid" />
        </label>
        <label>{t('routing.status')}
          <select value={f.status} onChange={(e) => setF({ ...f, status: e.target.value as FormProfile['status'] })} data-testid="routing-status">
            <option value="DRAFT">{t('routing.status.DRAFT')}</option>
            <option value="ACTIVE">{t('routing.status.ACTIVE')}</option>
          </select>
        </label>
        <label>{t('routing.max_attempts')}<input type="number" min={1} max={5} value={f.max_attempts} onChange={(e) => setF({ ...f, max_attempts: e.target.value })} data-testid="routing-max-attempts" /><Problem problems={problems} field="max_attempts" /></label>
      </div>
      <h3>{t('routing.rules')}</h3>
      {f.rules.length === 0 && <p className="muted">{t('routing.no_rules')}</p>}
      <ol className="routing-rules">
        {f.rules.map((r, i) => (
          <RuleEditor
            key={r.id} rule={r} index={i} count={f.rules.length} services={services} problems={problems}
            onChange={(x) => setRule(i, x)}
            onMove={(d) => setF({ ...f, rules: move(f.rules, i, d) })}
            onRemove={() => setF({ ...f, rules: f.rules.filter((_, j) => j !== i) })}
          />
        ))}
      </ol>
      <button type="button" className="secondary" onClick={() => setF({ ...f, rules: [...f.rules, emptyRule(f.rules.length + 1)] })} data-testid="routing-add-rule">{t('routing.add_rule')}</button>
      <div className="routing-actions">
        <button type="submit" className="primary" disabled={busy} data-testid="routing-save">{t('routing.save')}</button>
        <button type="button" className="secondary" onClick={onCancel}>{t('routing.cancel')}</button>
      </div>
    </form>
  );
}

function RuleEditor({ rule, index, count, services, problems, onChange, onMove, onRemove }: {
  rule: FormRule; index: number; count: number; services: Service[]; problems: Problems;
  onChange: (r: FormRule) => void; onMove: (d: -1 | 1) => void; onRemove: () => void;
}) {
  const { t } = useT();
  const at = `rules[${index}]`;
  const setCond = (j: number, c: FormCondition) => onChange({ ...rule, conditions: rule.conditions.map((x, k) => (k === j ? c : x)) });
  return (
    <li className="routing-rule" data-testid="routing-rule" data-index={index}>
      <fieldset>
        <legend>{t('routing.rule', { n: String(index + 1) })}</legend>
        <div className="routing-row">
          <label>{t('routing.rule_name')}<input value={rule.name} maxLength={100} onChange={(e) => onChange({ ...rule, name: e.target.value })} data-testid="rule-name" /><Problem problems={problems} field={`${at}.name`} /></label>
          <span className="routing-buttons">
            <button type="button" className="secondary" disabled={index === 0} onClick={() => onMove(-1)} data-testid="rule-up">{t('routing.up')}</button>
            <button type="button" className="secondary" disabled={index === count - 1} onClick={() => onMove(1)} data-testid="rule-down">{t('routing.down')}</button>
            <button type="button" className="secondary" onClick={onRemove} data-testid="rule-remove">{t('routing.remove_rule')}</button>
          </span>
        </div>
        <p className="small muted">{t('routing.conditions')}</p>
        <ul className="routing-conditions">
          {rule.conditions.map((c, j) => (
            <li key={j} data-testid="rule-condition" data-type={c.type}>
              <ConditionEditor c={c} onChange={(x) => setCond(j, x)} />
              <button type="button" className="secondary" onClick={() => onChange({ ...rule, conditions: rule.conditions.filter((_, k) => k !== j) })}>{t('routing.remove')}</button>
              <Problem problems={problems} field={`${at}.conditions[${j}]`} />
              {[...problems.keys()].filter((k) => k.startsWith(`${at}.conditions[${j}].`)).map((k) => <Problem key={k} problems={problems} field={k} />)}
            </li>
          ))}
        </ul>
        <button type="button" className="secondary" onClick={() => onChange({ ...rule, conditions: [...rule.conditions, emptyCondition()] })} data-testid="rule-add-condition">{t('routing.add_condition')}</button>
        <ActionEditor a={rule.action} services={services} at={`${at}.action`} problems={problems} onChange={(action) => onChange({ ...rule, action })} />
      </fieldset>
    </li>
  );
}

function ConditionEditor({ c, onChange }: { c: FormCondition; onChange: (c: FormCondition) => void }) {
  const { t } = useT();
  const text = (label: string, field: 'values' | 'ranges' | 'min' | 'max' | 'key' | 'equals', placeholder?: string, type = 'text'): ReactNode => (
    <label>{label}<input type={type} value={c[field]} placeholder={placeholder} onChange={(e) => onChange({ ...c, [field]: e.target.value })} data-testid={`condition-${field}`} /></label>
  );
  const chosen = (codes: readonly string[]) => (
    <span className="routing-chosen">
      {codes.map((code) => (
        <label key={code} className="inline">
          <input type="checkbox" checked={c.chosen.includes(code)} onChange={(e) => onChange({ ...c, chosen: e.target.checked ? [...c.chosen, code] : c.chosen.filter((x) => x !== code) })} data-testid={`condition-${code}`} />
          {code}
        </label>
      ))}
    </span>
  );
  return (
    <span className="routing-condition">
      <label>{t('routing.condition')}
        <select value={c.type} onChange={(e) => onChange(emptyCondition(e.target.value as ConditionType))} data-testid="condition-type">
          {CONDITION_TYPES.map((x) => <option key={x} value={x}>{t(`routing.cond.${x}` as Key)}</option>)}
        </select>
      </label>
      {c.type === 'brand' && text(t('routing.values'), 'values', t('routing.hint.brand'))}
      {(c.type === 'issuer_country' || c.type === 'customer_country') && text(t('routing.values'), 'values', t('routing.hint.country'))}
      {c.type === 'currency' && text(t('routing.values'), 'values', t('routing.hint.currency'))}
      {c.type === 'bin' && text(t('routing.ranges'), 'ranges', '45488100-45488199')}
      {c.type === 'amount' && <>{text(t('routing.min'), 'min', undefined, 'number')}{text(t('routing.max'), 'max', undefined, 'number')}</>}
      {c.type === 'metadata' && <>{text(t('routing.key'), 'key')}{text(t('routing.equals'), 'equals')}</>}
      {c.type === 'card_type' && chosen(CARD_TYPES)}
      {c.type === 'channel' && chosen(CHANNELS)}
    </span>
  );
}

function ActionEditor({ a, services, at, problems, onChange }: { a: FormAction; services: Service[]; at: string; problems: Problems; onChange: (a: FormAction) => void }) {
  const { t } = useT();
  const own = [...problems.keys()].filter((k) => k.startsWith(at));
  return (
    <div className="routing-action" data-testid="rule-action">
      <label>{t('routing.action')}
        <select value={a.type} onChange={(e) => onChange({ ...a, type: e.target.value as FormAction['type'] })} data-testid="action-type">
          <option value="service">{t('routing.action.service')}</option>
          <option value="split">{t('routing.action.split')}</option>
        </select>
      </label>
      {a.type === 'service' && (
        <label>{t('routing.service')}<ServiceSelect services={services} value={a.service_uuid} onChange={(v) => onChange({ ...a, service_uuid: v })} label={t('routing.service')} testId="action-service" /></label>
      )}
      {a.type === 'split' && (
        <ol className="routing-splits">
          {a.splits.map((s, k) => (
            <li key={k} data-testid="action-split">
              <ServiceSelect services={services} value={s.service_uuid} label={t('routing.service')} onChange={(v) => onChange({ ...a, splits: a.splits.map((x, m) => (m === k ? { ...x, service_uuid: v } : x)) })} />
              <label className="inline">{t('routing.weight')}<input type="number" min={1} value={s.weight} onChange={(e) => onChange({ ...a, splits: a.splits.map((x, m) => (m === k ? { ...x, weight: e.target.value } : x)) })} /></label>
              {a.splits.length > 2 && <button type="button" className="secondary" onClick={() => onChange({ ...a, splits: a.splits.filter((_, m) => m !== k) })}>{t('routing.remove')}</button>}
            </li>
          ))}
          <li><button type="button" className="secondary" onClick={() => onChange({ ...a, splits: [...a.splits, { service_uuid: '', weight: '10' }] })}>{t('routing.add_split')}</button></li>
        </ol>
      )}
      <p className="small muted">{t('routing.fallbacks')}</p>
      <ol className="routing-fallbacks">
        {a.fallbacks.map((fb, k) => (
          <li key={k} data-testid="action-fallback">
            <ServiceSelect services={services} value={fb} label={t('routing.fallbacks')} onChange={(v) => onChange({ ...a, fallbacks: a.fallbacks.map((x, m) => (m === k ? v : x)) })} testId="fallback-service" />
            <button type="button" className="secondary" disabled={k === 0} onClick={() => onChange({ ...a, fallbacks: move(a.fallbacks, k, -1) })}>{t('routing.up')}</button>
            <button type="button" className="secondary" onClick={() => onChange({ ...a, fallbacks: a.fallbacks.filter((_, m) => m !== k) })}>{t('routing.remove')}</button>
          </li>
        ))}
      </ol>
      <button type="button" className="secondary" onClick={() => onChange({ ...a, fallbacks: [...a.fallbacks, ''] })} data-testid="action-add-fallback">{t('routing.add_fallback')}</button>
      {own.map((k) => <Problem key={k} problems={problems} field={k} />)}
    </div>
  );
}
