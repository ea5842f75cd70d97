/**
 * Changes to a customer's data (customers.manage), each the merchant API's own operation through the
 * bridge: its profile (E10 create, E11 replace: the fields not edited here are sent back as they are),
 * a new address (E6) and the removal of an address (E8).
 */
import { useState } from 'react';
import { v1, type Answer } from '../../api';
import { useT } from '../../i18n';
import { ConfirmDialog } from '../../components/ConfirmDialog';

/** The profile as GET /customers/one answers it (sent back as it is in the fields not edited here). */
export type ProfileData = NonNullable<Answer<'/customers/one', 'get'>['customer']['profile']>;

const orNull = (s: string) => (s.trim() === '' ? null : s.trim());

export function ProfileEditor({ externalId, profile, onDone }: { externalId: string; profile: ProfileData | null; onDone: () => Promise<unknown> }) {
  const { t } = useT();
  const init = () => ({ first_name: profile?.first_name ?? '', last_name: profile?.last_name ?? '', email: profile?.email ?? '', cardholder_name: profile?.cardholder_name ?? '', occupation: profile?.occupation ?? '' });
  const [f, setF] = useState(init);
  // the API keeps only the last 4 of a social security number: replacing the profile would lose it
  if (profile?.social_security_number) return <p className="muted small">{t('customers.profile_ssn')}</p>;
  const field = (k: keyof typeof f, label: string, type = 'text') => (
    <label>{label}<input type={type} value={f[k]} onChange={(e) => setF({ ...f, [k]: e.target.value })} /></label>
  );
  return (
    <ConfirmDialog
      testId="profile-dialog"
      trigger={<button type="button" className="secondary small-button" onClick={() => setF(init())}>{profile ? t('customers.edit_profile') : t('customers.add_profile')}</button>}
      title={profile ? t('customers.edit_profile') : t('customers.add_profile')}
      message={externalId}
      onConfirm={async () => {
        const kept = profile
          ? {
              document_identification_issuer_type: profile.document_identification_issuer_type ?? null,
              document_identification_type: profile.document_identification_type,
              document_identification_number: profile.document_identification_number,
              phone: profile.phone, mobile_phone: profile.mobile_phone, work_phone: profile.work_phone, home_phone: profile.home_phone,
              birthdate: profile.birthdate, source_of_funds: profile.source_of_funds,
            }
          : {};
        await v1(profile ? 'PUT' : 'POST', '/customer/profile', {
          ...kept,
          external_id: externalId,
          first_name: f.first_name.trim(),
          last_name: f.last_name.trim(),
          email: orNull(f.email),
          cardholder_name: orNull(f.cardholder_name),
          occupation: orNull(f.occupation),
        });
        await onDone();
      }}
    >
      <div className="filter-grid">
        {field('first_name', t('customers.first_name'))}
        {field('last_name', t('customers.last_name'))}
        {field('email', 'E-mail', 'email')}
        {field('cardholder_name', t('customers.cardholder'))}
        {field('occupation', t('customers.occupation'))}
      </div>
    </ConfirmDialog>
  );
}

const ADDRESS_TYPES = ['BILLING', 'SHIPPING', 'OTHER'];

export function AddressAdder({ externalId, onDone }: { externalId: string; onDone: () => Promise<unknown> }) {
  const { t } = useT();
  const empty = { type: 'BILLING', address1: '', address2: '', city: '', state_code: '', zip_code: '', country: '', default: false };
  const [a, setA] = useState(empty);
  const field = (k: 'address1' | 'address2' | 'city' | 'state_code' | 'zip_code' | 'country', label: string) => (
    <label>{label}<input value={a[k]} onChange={(e) => setA({ ...a, [k]: e.target.value })} /></label>
  );
  return (
    <ConfirmDialog
      testId="address-dialog"
      trigger={<button type="button" className="secondary small-button" onClick={() => setA(empty)}>{t('customers.add_address')}</button>}
      title={t('customers.add_address')}
      message={externalId}
      onConfirm={async () => {
        await v1('POST', '/customer/address', {
          external_id: externalId, type: a.type, address1: a.address1.trim(), address2: orNull(a.address2), city: a.city.trim(),
          state_code: a.state_code.trim(), zip_code: a.zip_code.trim(), country: a.country.trim().toUpperCase(), default: a.default,
        });
        await onDone();
      }}
    >
      <div className="filter-grid">
        <label>{t('risk.type')}
          <select value={a.type} onChange={(e) => setA({ ...a, type: e.target.value })}>{ADDRESS_TYPES.map((x) => <option key={x}>{x}</option>)}</select>
        </label>
        {field('address1', t('customers.address1'))}
        {field('address2', t('customers.address2'))}
        {field('zip_code', t('customers.zip'))}
        {field('city', t('customers.city'))}
        {field('state_code', t('customers.state'))}
        {field('country', t('customers.country'))}
        <label className="check"><input type="checkbox" checked={a.default} onChange={(e) => setA({ ...a, default: e.target.checked })} />{t('customers.default')}</label>
      </div>
    </ConfirmDialog>
  );
}

export function AddressRemover({ uuid, label, onDone }: { uuid: string; label: string; onDone: () => Promise<unknown> }) {
  const { t } = useT();
  return (
    <ConfirmDialog
      trigger={<button type="button" className="link small" aria-label={`${t('customers.remove_address')}: ${label}`}>{t('customers.remove_address')}</button>}
      title={t('customers.remove_address')}
      message={label}
      onConfirm={async () => { await v1('DELETE', '/customer/address', { uuid }); await onDone(); }}
    />
  );
}
