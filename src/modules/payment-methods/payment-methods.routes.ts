/** HTTP of payment methods: B13, the APM catalogue, the APMs of a service, the sandbox APM provider. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './payment-methods.schemas.js';
import type { PaymentMethodsService } from './payment-methods.service.js';

const PAYMENT = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;
const tags = ['payment-methods'];

export function paymentMethodsRoutes(service: PaymentMethodsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/payment/push', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'pushPayment',
        summary: 'B13 PUSH payment with an APM',
        description: 'Pays an order with an alternative payment method of its service, with no browser needed. Push APMs (BIZUM, MBWAY; `phone` required) send a payment request to the customer\'s phone and answer with the order PENDING_PROCESSOR_RESPONSE. Voucher APMs (MULTIBANCO, PAYSHOP, BOLETO, PIX, SPEI, TRANSFER, ...) answer the data to pay in `extra_data.apm.voucher` (entity and reference, barcode, QR payload, CLABE, or IBAN and concept) with its expiry. Redirect APMs (IDEAL, KLARNA, PAYPAL, ...) answer the page where the customer approves in `extra_data.apm.redirect_url`. The final state (SUCCESS, or REFUSED when the customer refuses or the expiry passes) is notified to `url_post`. `apm` is required when the service offers several. Sandbox: push phones ending in 1 (700000001, 912000001) are refused at once; others wait for the sandbox phone; vouchers are paid with `POST /sandbox-apm/{order_uuid}/pay`.',
        tags, body: S.PushBody, response: responses(S.PushResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.push(ctx, req.body));
    });

    app.get('/apms', {
      config: { profiles: READ },
      schema: { operationId: 'listApms', summary: 'The APMs and their kinds', description: 'Every alternative payment method of the API with its kind (redirect, push, voucher), where it is used and, for vouchers, what the voucher carries.', tags, response: responses(S.ApmsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { apms: service.catalogue() });
    });

    app.get('/service/:service_uuid/apms', {
      config: { profiles: READ },
      schema: { operationId: 'getServiceApms', summary: 'The APMs a service offers', description: 'The APMs configured on the service, plus BIZUM when the service\'s Bizum switch (`bizum_enabled`) is on.', tags, params: S.ServiceParams, response: responses(S.ServiceApmsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.serviceApms(ctx, req.params.service_uuid) });
    });

    app.put('/service/:service_uuid/apms', {
      config: { profiles: PAYMENT },
      schema: { operationId: 'setServiceApms', summary: 'Set the APMs a service offers', description: 'Replaces the list of APMs the service offers (an empty list: none). The hosted page (`?apm=`), the checkout and B13 offer exactly these.', tags, params: S.ServiceParams, body: S.SetApmsBody, response: responses(S.ServiceApmsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.setServiceApms(ctx, req.params.service_uuid, req.body.apms) });
    });

    app.post('/sandbox-apm/:order_uuid/pay', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'sandboxApmPay',
        summary: 'Sandbox: the customer completes an APM payment',
        description: 'Sandbox only (404 in production). Completes the started APM payment of an order as its customer would: pays the voucher, or approves on the bank page or the phone (`result` PAID, the default); or refuses it (`result` REFUSED). The order settles (SUCCESS or REFUSED) and the notification goes to url_post. 409 when no APM payment of the order is waiting.',
        tags: ['sandbox'], params: S.OrderParams, body: S.SandboxPayBody, response: responses(S.SandboxPayResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.sandboxPay(ctx, req.params.order_uuid, req.body.result ?? 'PAID'));
    });
  };
}
