/** SQL of MoTo campaigns and their payments. */
import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { CampaignStatus, CampaignType, MotoPaymentStatus } from './campaigns.domain.js';

export interface MotoCampaignsTable {
  id: string;
  merchant_id: string;
  env: Env;
  key_id: string;
  service_id: string;
  type: CampaignType;
  entry: 'FILE' | 'JSON';
  description: string;
  subject: string | null;
  filename: string | null;
  expires_on: string;
  expires_at: Date;
  status: CampaignStatus;
  error: string | null;
  payment_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface MotoPaymentsTable {
  id: string;
  campaign_id: string;
  merchant_id: string;
  env: Env;
  line: number;
  amount: number | string;
  operative: string;
  secure: boolean;
  destination: string | null;
  channel: 'EMAIL' | 'SMS' | null;
  customer_ext_id: string | null;
  additional: string | null;
  url_post: string | null;
  url_ok: string | null;
  url_ko: string | null;
  card_template: string | null;
  moto_template: string | null;
  dcc_template: string | null;
  language: string | null;
  order_id: string;
  open_token: string;
  status: MotoPaymentStatus;
  error: string | null;
  processed: boolean;
  sent_at: Date | null;
  delivered_at: Date | null;
  delivery_provider: string | null;
  delivery_id: string | null;
  opened_at: Date | null;
  opened_ip: string | null;
  opened_user_agent: string | null;
  paid_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    moto_campaigns: MotoCampaignsTable;
    moto_payments: MotoPaymentsTable;
  }
}

export type CampaignRow = Selectable<MotoCampaignsTable>;
export type PaymentRow = Selectable<MotoPaymentsTable>;

export async function insertCampaign(db: Executor, row: CampaignRow): Promise<void> {
  await db.insertInto('moto_campaigns').values(row).execute();
}

export async function insertPayments(db: Executor, rows: PaymentRow[]): Promise<void> {
  // in chunks: one statement has a bounded number of parameters
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('moto_payments').values(rows.slice(i, i + 500)).execute();
}

export async function findCampaign(db: Executor, owner: { merchantId: string; env: Env }, id: string): Promise<CampaignRow | undefined> {
  return db.selectFrom('moto_campaigns').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).executeTakeFirst();
}

/** A page of the merchant's campaigns, newest first. */
export async function listCampaigns(db: Executor, owner: { merchantId: string; env: Env }, limit: number, offset: number): Promise<CampaignRow[]> {
  return db
    .selectFrom('moto_campaigns')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function campaignById(db: Executor, id: string, lock = false): Promise<CampaignRow | undefined> {
  let q = db.selectFrom('moto_campaigns').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function paymentsOf(db: Executor, campaignId: string): Promise<PaymentRow[]> {
  return db.selectFrom('moto_payments').selectAll().where('campaign_id', '=', campaignId).orderBy('line').execute();
}

export async function paymentById(db: Executor, id: string, lock = false): Promise<PaymentRow | undefined> {
  let q = db.selectFrom('moto_payments').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findPayment(db: Executor, owner: { merchantId: string; env: Env }, id: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('moto_payments').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).executeTakeFirst();
}

export async function paymentByToken(db: Executor, token: string, lock = false): Promise<PaymentRow | undefined> {
  let q = db.selectFrom('moto_payments').selectAll().where('open_token', '=', token);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function updatePayment(db: Executor, id: string, set: Partial<PaymentRow>): Promise<void> {
  await db.updateTable('moto_payments').set(set).where('id', '=', id).execute();
}

export async function updateCampaign(db: Executor, id: string, set: Partial<CampaignRow>): Promise<void> {
  await db.updateTable('moto_campaigns').set(set).where('id', '=', id).execute();
}

/** How many payments of a campaign the background job has not finished, and how many failed. */
export async function progress(db: Executor, campaignId: string): Promise<{ unprocessed: number; failed: number; total: number }> {
  const r = await db
    .selectFrom('moto_payments')
    .select((eb) => [
      eb.fn.countAll<string>().as('total'),
      eb.fn.count<string>('id').filterWhere('processed', '=', false).as('unprocessed'),
      eb.fn.count<string>('id').filterWhere('status', '=', 'FAILED').as('failed'),
    ])
    .where('campaign_id', '=', campaignId)
    .executeTakeFirstOrThrow();
  return { unprocessed: Number(r.unprocessed), failed: Number(r.failed), total: Number(r.total) };
}

export interface CertificateKeysTable {
  id: string;
  public_key_pem: string;
  private_key_sealed: string;
  active: boolean;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    certificate_keys: CertificateKeysTable;
  }
}

export async function activeCertificateKey(db: Executor): Promise<CertificateKeysTable | undefined> {
  return db.selectFrom('certificate_keys').selectAll().where('active', '=', true).executeTakeFirst();
}

/** Inserts the first active key; a concurrent first insert wins and this one is dropped. */
export async function insertCertificateKey(db: Executor, row: CertificateKeysTable): Promise<void> {
  await db.insertInto('certificate_keys').values(row).onConflict((oc) => oc.column('active').where('active', '=', true).doNothing()).execute();
}

export async function certificateKeys(db: Executor): Promise<CertificateKeysTable[]> {
  return db.selectFrom('certificate_keys').selectAll().orderBy('created_at').execute();
}
