/** SQL of the payment-methods module: the APMs each service offers. */
import type { Executor } from '../../platform/db/database.js';

export interface ServiceApmsTable {
  service_id: string;
  apm: string;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    service_apms: ServiceApmsTable;
  }
}

/** The APMs configured on a service, in the order they were set. */
export async function configuredApms(db: Executor, serviceId: string): Promise<string[]> {
  const rows = await db.selectFrom('service_apms').select('apm').where('service_id', '=', serviceId).orderBy('created_at').orderBy('apm').execute();
  return rows.map((r) => r.apm);
}

/** Replaces the APMs of a service (in the caller's transaction). */
export async function replaceApms(trx: Executor, serviceId: string, apms: string[], at: Date): Promise<void> {
  await trx.deleteFrom('service_apms').where('service_id', '=', serviceId).execute();
  if (apms.length === 0) return;
  // one millisecond apart, so the listing keeps the order they were given in
  await trx.insertInto('service_apms').values(apms.map((apm, i) => ({ service_id: serviceId, apm, created_at: new Date(at.getTime() + i) }))).execute();
}
