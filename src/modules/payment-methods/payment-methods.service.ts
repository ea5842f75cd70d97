/**
 * Payment methods besides cards: which APMs a service offers, B13 (PUSH payments with push and voucher
 * APMs, and redirect APMs answered with the provider's page), and the sandbox endpoint that completes a
 * started APM payment. Orders are paid only through the payments module's public interface.
 */
import type { Platform } from '../../platform/index.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { APM_CATALOGUE, apmInfo, parsePushPhone, type ApmInfo } from '../../processors/index.js';
import type { PaymentsService } from '../payments/index.js';
import { findServiceWithTerminal, isRedsysFamily, type ServicesService } from '../services/index.js';
import { chooseApm, offeredApms, presentApm, pushExtraData } from './payment-methods.domain.js';
import * as repo from './payment-methods.repo.js';

export interface PushInput {
  order_uuid: string;
  apm?: string | null;
  phone?: string | null;
  customer_ip?: string | null;
}

export class PaymentMethodsService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: PaymentsService; services: ServicesService },
  ) {}

  /** Every APM of the API with its kind. */
  catalogue() {
    return APM_CATALOGUE.map(presentApm);
  }

  /** The APMs a service offers (by service id; none for an unknown service). */
  async offered(serviceId: string): Promise<ApmInfo[]> {
    const db = this.p.database.db;
    const [service, configured] = await Promise.all([findServiceWithTerminal(db, serviceId), repo.configuredApms(db, serviceId)]);
    if (!service) return [];
    return offeredApms(configured, { bizumEnabled: service.bizum_enabled, redsysFamily: isRedsysFamily(service.type) });
  }

  /** GET /service/{uuid}/apms. */
  async serviceApms(ctx: RequestContext, serviceUuid: string) {
    await this.deps.services.getService(ctx, serviceUuid);
    return { service_uuid: serviceUuid.toLowerCase(), apms: (await this.offered(serviceUuid.toLowerCase())).map(presentApm) };
  }

  /** PUT /service/{uuid}/apms: the APMs the service offers from now on (Bizum needs the REDSYS family). */
  async setServiceApms(ctx: RequestContext, serviceUuid: string, apms: string[]) {
    const id = serviceUuid.toLowerCase();
    await this.deps.services.getService(ctx, id);
    const db = this.p.database.db;
    const service = await findServiceWithTerminal(db, id);
    if (!service) throw notFound(`The service ${serviceUuid} was not found`);
    const names: string[] = [];
    for (const [i, value] of apms.entries()) {
      const info = apmInfo(value);
      if (!info) throw badRequest(`apms[${i}]: ${String(value).slice(0, 40)} is not an APM`);
      if (info.apm === 'BIZUM' && !isRedsysFamily(service.type)) throw badRequest('apms: BIZUM is offered only by services of the REDSYS family');
      if (!names.includes(info.apm)) names.push(info.apm);
    }
    await this.p.database.transaction((trx) => repo.replaceApms(trx, id, names, ctx.clock.now()));
    return this.serviceApms(ctx, id);
  }

  /**
   * B13: pays an order of the caller with an APM of its service. Push: the push goes to the phone and
   * the order waits (PENDING_PROCESSOR_RESPONSE); voucher: the data to pay in `extra_data`; redirect:
   * the provider's page in `extra_data`. The final state is notified to url_post.
   */
  async push(ctx: RequestContext, input: PushInput) {
    const order = (await this.deps.payments.getOrder(ctx, input.order_uuid)).order;
    const chosen = chooseApm(input.apm, await this.offered(order.service_uuid));
    if ('error' in chosen) throw badRequest(chosen.error);
    const info = chosen.apm;
    let phone: string | null = null;
    if (info.kind === 'push') {
      if (input.phone === undefined || input.phone === null || input.phone === '') throw badRequest(`phone: required for ${info.apm} (the phone number of the paying account)`);
      phone = parsePushPhone(info.apm, input.phone);
      if (!phone) throw badRequest(`phone: not a valid ${info.label} phone number`);
    }
    const r = await this.deps.payments.startApm(ctx, input.order_uuid, { apm: info.apm, phone, customerIp: input.customer_ip ?? null });
    const phoneUrl = ctx.env === 'sandbox' && r.apm ? `${this.p.config.publicUrl}/v1/sandbox/sandbox-apm/phone/${r.order.token}` : null;
    const extra = pushExtraData(info, r.apm, phoneUrl);
    return { ...this.deps.payments.respond(ctx, r, { extra_data: extra }), extra_data: extra };
  }

  /**
   * Sandbox: the customer completes a started APM payment of any kind (pays the voucher, approves on
   * the bank page or the phone), or refuses it (`REFUSED`).
   */
  async sandboxPay(ctx: RequestContext, orderUuid: string, result: 'PAID' | 'REFUSED') {
    if (ctx.env !== 'sandbox') throw notFound('The sandbox APM provider exists only in sandbox (/v1/sandbox/sandbox-apm/...)');
    const r = await this.deps.payments.completeApm(ctx, orderUuid, result);
    return this.deps.payments.respond(ctx, r);
  }
}
