/**
 * How the customer pages look: payment page templates (colours, logo; the default one), the page
 * settings (who may frame the pages), and checkout configurations (methods, theme, font, texts). Every
 * editor shows the gateway's own hosted page rendered with the values typed, before they are saved.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, v1, type Answer, type V1Answer } from '../../api';
import { useT } from '../../i18n';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { AreaProps } from '../types';
import { errorText } from './services';

type Template = V1Answer<'/templates', 'get'>['templates'][number];
type Checkout = V1Answer<'/checkouts', 'get'>['checkouts'][number];

const COLOUR = /^#[0-9A-Fa-f]{6}$/;
const DEFAULT_BUTTON = '#1F5FBF';
const DEFAULT_BACKGROUND = '#F3F5F8';
const METHODS = ['PAYMENT_CARD', 'GOOGLE_PAY', 'APPLE_PAY', 'BIZUM', 'SOFORT', 'IDEAL', 'CRYPTO', 'PIX', 'VIACASH', 'KLARNA', 'GIROPAY', 'CLICKTOPAY', 'PAYPAL'];
const FONTS = ['', 'Arial', 'Helvetica', 'Verdana', 'Tahoma', 'Trebuchet MS', 'Georgia', 'Times New Roman', 'Courier New', 'Roboto', 'Open Sans', 'Lato', 'Montserrat', 'Inter'];

export interface PreviewValues { logo_url?: string | null; button_color?: string | null; background_color?: string | null; theme_type?: string | null; font?: string | null; description?: string | null; order_number?: string | null }

/** The value after it stopped changing for `ms`. */
function useSettled<T>(value: T, ms = 250): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [JSON.stringify(value)]);
  return v;
}

/** The hosted payment page for a sample order with `values` (not saved), in a sandboxed frame. */
export function Preview({ values }: { values: PreviewValues }) {
  const { t, lang } = useT();
  const settled = useSettled(values);
  // what the gateway would refuse is left out of the preview (the form says why)
  const body: PreviewValues = {
    ...settled,
    button_color: settled.button_color && COLOUR.test(settled.button_color) ? settled.button_color : null,
    background_color: settled.background_color && COLOUR.test(settled.background_color) ? settled.background_color : null,
    logo_url: settled.logo_url && /^https:\/\/[^\s"'<>]+$/.test(settled.logo_url) ? settled.logo_url : null,
  };
  const q = useQuery({
    queryKey: ['settings-preview', body, lang],
    queryFn: () => api<Answer<'/settings/preview', 'post'>>('POST', '/settings/preview', { ...body, lang: lang.toLowerCase() }),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  return (
    <div className="card preview">
      <h3>{t('settings.preview')}</h3>
      <p className="small muted">{t('settings.preview_hint')}</p>
      {q.error && <div role="alert" className="error">{errorText(q.error, t('error.network'))}</div>}
      <iframe title={t('settings.preview')} sandbox="" srcDoc={q.data?.html ?? ''} data-testid="preview" data-accent={body.button_color ?? ''} />
    </div>
  );
}

function ColourField({ label, value, fallback, onChange, name }: { label: string; value: string; fallback: string; onChange: (v: string) => void; name: string }) {
  const { t } = useT();
  const bad = value !== '' && !COLOUR.test(value);
  return (
    <div className="colour-field">
      <label>{label}
        <span className="colour-row">
          <input type="color" aria-label={`${label} (${t('settings.picker')})`} value={COLOUR.test(value) ? value : fallback} onChange={(e) => onChange(e.target.value.toUpperCase())} />
          <input type="text" name={name} value={value} placeholder={fallback} maxLength={7} aria-invalid={bad || undefined} onChange={(e) => onChange(e.target.value)} />
        </span>
      </label>
      {bad && <p className="error small">{t('settings.colour_hint')}</p>}
    </div>
  );
}

// ---- templates ----------------------------------------------------------------------------------------

export function TemplatesTab({ me }: AreaProps) {
  const { t } = useT();
  const list = useQuery({ queryKey: ['settings-templates', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/templates', 'get'>>('GET', '/templates') });
  const [editing, setEditing] = useState<Template | 'new' | null>(null);
  return (
    <>
      <div className="card table-wrap" tabIndex={0} role="region" aria-label={t('settings.templates')}>
        <div className="pad head-row">
          <h2>{t('settings.templates')}</h2>
          <button type="button" className="primary" onClick={() => setEditing('new')}>{t('settings.new_template')}</button>
        </div>
        <DataTable
          tableProps={{ 'data-testid': 'templates' }}
          rows={list.data?.templates ?? []}
          rowKey={(x) => x.uuid}
          rowProps={(x) => ({ 'data-uuid': x.uuid })}
          empty={list.data ? t('settings.no_templates') : undefined}
          columns={[
            { header: t('settings.name'), cell: (x) => x.name },
            { header: t('settings.type'), cell: (x) => x.type },
            { header: t('settings.colours'), cell: (x) => <><span className="swatch" style={{ background: x.button_color ?? DEFAULT_BUTTON }} aria-hidden="true" /> <span className="mono small">{x.button_color ?? '—'} / {x.background_color ?? '—'}</span></> },
            { header: t('settings.default'), cell: (x) => (x.default ? <span className="badge badge-ok">{t('settings.default')}</span> : '') },
            { header: t('order.actions'), cell: (x) => <button type="button" className="secondary small-button" onClick={() => setEditing(x)}>{t('settings.edit')}</button> },
          ]}
        />
      </div>
      {editing && <TemplateEditor key={editing === 'new' ? 'new' : editing.uuid} me={me} template={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
      <PageSettings me={me} />
    </>
  );
}

function TemplateEditor({ me, template, onDone }: { me: AreaProps['me']; template: Template | null; onDone: () => void }) {
  const { t } = useT();
  const qc = useQueryClient();
  const [name, setName] = useState(template?.name ?? '');
  const [type, setType] = useState<string>(template?.type ?? 'PAYMENT_CARD');
  const [button, setButton] = useState(template?.button_color ?? '');
  const [background, setBackground] = useState(template?.background_color ?? '');
  const [logo, setLogo] = useState(template?.logo_url ?? '');
  const [isDefault, setDefault] = useState(template?.default ?? false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = { name, logo_url: logo || null, button_color: button || null, background_color: background || null, default: isDefault };
    try {
      if (template) await v1('PUT', `/template/${template.uuid}`, body);
      else await v1('POST', '/template', { ...body, type });
      await qc.invalidateQueries({ queryKey: ['settings-templates'] });
      onDone();
    } catch (err) {
      setError(errorText(err, t('error.network')));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="editor grid2" data-testid="template-editor">
      <form className="card form" onSubmit={submit} aria-labelledby="template-editor-title">
        <h2 id="template-editor-title">{template ? t('settings.edit_template') : t('settings.new_template')}</h2>
        <label>{t('settings.name')}<input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} name="template-name" /></label>
        {!template && (
          <label>{t('settings.type')}<select value={type} onChange={(e) => setType(e.target.value)}><option value="PAYMENT_CARD">{t('settings.type_card')}</option><option value="DCC">{t('settings.type_dcc')}</option></select></label>
        )}
        <ColourField label={t('settings.button_color')} name="button-color" value={button} fallback={DEFAULT_BUTTON} onChange={setButton} />
        <ColourField label={t('settings.background_color')} name="background-color" value={background} fallback={DEFAULT_BACKGROUND} onChange={setBackground} />
        <label>{t('settings.logo_url')}<input type="url" maxLength={2000} placeholder="https://" value={logo} onChange={(e) => setLogo(e.target.value)} /></label>
        <label className="check"><input type="checkbox" checked={isDefault} onChange={(e) => setDefault(e.target.checked)} />{t('settings.make_default')}</label>
        {error && <div role="alert" className="error">{error}</div>}
        <div className="action-row">
          <button type="submit" className="primary" disabled={busy} data-testid="save-template">{t('settings.save')}</button>
          <button type="button" className="secondary" onClick={onDone}>{t('confirm.cancel')}</button>
          {template && (
            <ConfirmDialog
              trigger={<button type="button" className="secondary">{t('settings.delete')}</button>}
              title={t('settings.delete')}
              message={t('settings.delete_confirm', { name: template.name })}
              onConfirm={async () => { await v1('DELETE', `/template/${template.uuid}`); await qc.invalidateQueries({ queryKey: ['settings-templates'] }); onDone(); }}
            />
          )}
        </div>
      </form>
      <Preview values={{ button_color: button, background_color: background, logo_url: logo }} />
    </div>
  );
}

function PageSettings({ me }: { me: AreaProps['me'] }) {
  const { t } = useT();
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ['settings-page', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/page-settings', 'get'>>('GET', '/page-settings') });
  const [anyOrigin, setAny] = useState<boolean | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const current = q.data?.page_settings.frame_ancestors;
  const isAny = anyOrigin ?? current === null;
  const lines = text ?? (current ?? []).join('\n');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await v1('PUT', '/page-settings', { frame_ancestors: isAny ? null : lines.split(/\s+/).filter(Boolean) });
      await qc.invalidateQueries({ queryKey: ['settings-page'] });
      setSaved(true);
    } catch (err) {
      setError(errorText(err, t('error.network')));
    }
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="page-settings-title">
      <h2 id="page-settings-title">{t('settings.page_settings')}</h2>
      <p className="small muted">{t('settings.frame_hint')}</p>
      <label className="check"><input type="checkbox" checked={isAny} onChange={(e) => setAny(e.target.checked)} />{t('settings.frame_any')}</label>
      {!isAny && <label>{t('settings.frame_origins')}<textarea rows={3} value={lines} onChange={(e) => setText(e.target.value)} placeholder="https://shop.example.com" /></label>}
      {error && <div role="alert" className="error">{error}</div>}
      {saved && <div role="status" className="notice">{t('settings.saved')}</div>}
      <div><button type="submit" className="primary">{t('settings.save')}</button></div>
    </form>
  );
}

// ---- checkouts ----------------------------------------------------------------------------------------

export function CheckoutsTab({ me }: AreaProps) {
  const { t } = useT();
  const list = useQuery({ queryKey: ['settings-checkouts', me.env, me.merchant.uuid], queryFn: () => v1<V1Answer<'/checkouts', 'get'>>('GET', '/checkouts') });
  const [editing, setEditing] = useState<Checkout | 'new' | null>(null);
  return (
    <>
      <div className="card table-wrap" tabIndex={0} role="region" aria-label={t('settings.checkouts')}>
        <div className="pad head-row">
          <h2>{t('settings.checkouts')}</h2>
          <button type="button" className="primary" onClick={() => setEditing('new')}>{t('settings.new_checkout')}</button>
        </div>
        <p className="small muted pad">{t('settings.checkout_hint')}</p>
        <DataTable
          tableProps={{ 'data-testid': 'checkouts' }}
          rows={list.data?.checkouts ?? []}
          rowKey={(x) => x.uuid}
          rowProps={(x) => ({ 'data-uuid': x.uuid })}
          empty={list.data ? t('settings.none') : undefined}
          columns={[
            { header: t('settings.name'), cell: (x) => x.name },
            { header: t('settings.methods'), cell: (x) => x.payment_methods.join(', ') },
            { header: 'UUID', className: 'mono small break', cell: (x) => x.uuid },
            { header: t('order.actions'), cell: (x) => <button type="button" className="secondary small-button" onClick={() => setEditing(x)}>{t('settings.edit')}</button> },
          ]}
        />
      </div>
      {editing && <CheckoutEditor key={editing === 'new' ? 'new' : editing.uuid} checkout={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
    </>
  );
}

function CheckoutEditor({ checkout, onDone }: { checkout: Checkout | null; onDone: () => void }) {
  const { t } = useT();
  const qc = useQueryClient();
  const c = checkout?.customization ?? null;
  const [name, setName] = useState(checkout?.name ?? '');
  const [methods, setMethods] = useState<string[]>(checkout?.payment_methods ?? ['PAYMENT_CARD']);
  const [suggested, setSuggested] = useState(checkout?.default_payment_method ?? '');
  const [theme, setTheme] = useState(c?.theme_type ?? 'light');
  const [font, setFont] = useState(c?.font ?? '');
  const [description, setDescription] = useState(c?.description ?? '');
  const [orderNumber, setOrderNumber] = useState(c?.payment_details?.order_number != null ? String(c.payment_details.order_number) : '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = {
      name,
      payment_methods: methods,
      default_payment_method: suggested && methods.includes(suggested) ? suggested : null,
      customization: { theme_type: theme, font: font || null, description: description || null, payment_details: { order_number: orderNumber || null } },
    };
    try {
      if (checkout) await v1('PUT', `/checkout/${checkout.uuid}`, body);
      else await v1('POST', '/checkout', body);
      await qc.invalidateQueries({ queryKey: ['settings-checkouts'] });
      onDone();
    } catch (err) {
      setError(errorText(err, t('error.network')));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="editor grid2" data-testid="checkout-editor">
      <form className="card form" onSubmit={submit} aria-labelledby="checkout-editor-title">
        <h2 id="checkout-editor-title">{checkout ? t('settings.edit_checkout') : t('settings.new_checkout')}</h2>
        <label>{t('settings.name')}<input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} name="checkout-name" /></label>
        <fieldset className="checks">
          <legend>{t('settings.methods')}</legend>
          {METHODS.map((m) => (
            <label key={m} className="check"><input type="checkbox" checked={methods.includes(m)} onChange={(e) => setMethods(e.target.checked ? [...methods, m] : methods.filter((x) => x !== m))} />{m}</label>
          ))}
        </fieldset>
        <label>{t('settings.suggested')}<select value={suggested} onChange={(e) => setSuggested(e.target.value)}><option value="">—</option>{methods.map((m) => <option key={m}>{m}</option>)}</select></label>
        <div className="row2">
          <label>{t('settings.theme')}<select value={theme} onChange={(e) => setTheme(e.target.value)}><option value="light">{t('settings.light')}</option><option value="dark">{t('settings.dark')}</option></select></label>
          <label>{t('settings.font')}<select value={font} onChange={(e) => setFont(e.target.value)}>{FONTS.map((f) => <option key={f} value={f}>{f || t('settings.system_font')}</option>)}</select></label>
        </div>
        <label>{t('settings.page_description')}<input maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} name="checkout-description" /></label>
        <label>{t('settings.order_number')}<input maxLength={100} value={orderNumber} onChange={(e) => setOrderNumber(e.target.value)} /></label>
        {error && <div role="alert" className="error">{error}</div>}
        <div className="action-row">
          <button type="submit" className="primary" disabled={busy}>{t('settings.save')}</button>
          <button type="button" className="secondary" onClick={onDone}>{t('confirm.cancel')}</button>
          {checkout && (
            <ConfirmDialog
              trigger={<button type="button" className="secondary">{t('settings.delete')}</button>}
              title={t('settings.delete')}
              message={t('settings.delete_confirm', { name: checkout.name })}
              onConfirm={async () => { await v1('DELETE', `/checkout/${checkout.uuid}`); await qc.invalidateQueries({ queryKey: ['settings-checkouts'] }); onDone(); }}
            />
          )}
        </div>
      </form>
      <Preview values={{ theme_type: theme, font: font || null, description: description || null, order_number: orderNumber || null }} />
    </div>
  );
}
