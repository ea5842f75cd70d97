/** HTTP of devices: the registry and J1–J7. Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../platform/errors/errors.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { OrderResult, Payments } from '../payments/index.js';
import type { PresentedDevice, PresentedOperation } from './devices.domain.js';
import * as S from './devices.schemas.js';
import type { DevicesService } from './devices.service.js';

const WRITE = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;

export function devicesRoutes(service: DevicesService, payments: Payments) {
  const answer = (ctx: RequestContext, r: { result: OrderResult; device: PresentedDevice; operation?: PresentedOperation; refund?: unknown }) => {
    const fields = { ...payments.respond(ctx, r.result), device: r.device, ...(r.operation ? { operation: r.operation } : {}), ...(r.refund ? { refund: r.refund } : {}) };
    if (r.result.failed) throw new ApiError(402, r.result.failed, { extra: fields });
    return ok(ctx, fields) as any;
  };
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['devices'];

    app.post('/device', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'registerDevice',
        summary: 'Register a physical device',
        description:
          'Registers a payment terminal for one of the merchant\'s services. `SOCKET` devices open a WebSocket at `/device/socket` with the bearer `token` of the answer, which is shown only here: keep it on the device. ' +
          '`SIMULATION` (sandbox only) is a virtual terminal that settles every operation 10 seconds after it is sent: amount 100 is cancelled on the terminal, 200 is refused, any other amount is paid. The gateway assigns the `terminal_id` (TID); `mid` is the terminal code of the service.',
        tags, body: S.RegisterBody, response: responses(S.DeviceTokenResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.register(ctx, { ...req.body, communication_type: req.body.communication_type as 'SIMULATION' | 'SOCKET' }));
    });

    app.get('/devices', {
      config: { profiles: READ },
      schema: {
        operationId: 'listDevices',
        summary: 'J1 List devices',
        description: 'The merchant\'s devices, oldest first. Every filter is optional; dates are `YYYYMMDDHHmm` in the merchant\'s timezone.',
        tags, querystring: S.ListQuery, response: responses(S.DevicesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { devices: await service.list(ctx, req.query) });
    });

    app.get('/device/:id', {
      config: { profiles: READ },
      schema: { operationId: 'getDevice', summary: 'J2 Get device', description: 'One device of the merchant, with its connection and the status it last reported. Another merchant\'s device is 404.', tags, params: S.DeviceParams, response: responses(S.DeviceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { device: await service.get(ctx, req.params.id) });
    });

    app.put('/device/:id/enabled', {
      config: { profiles: WRITE },
      schema: { operationId: 'setDeviceEnabled', summary: 'Enable or disable a device', description: 'A disabled device gets no operations (400) and cannot open its socket; an open one is told (`disabled`) and closed.', tags, params: S.DeviceParams, body: S.EnabledBody, response: responses(S.DeviceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { device: await service.setEnabled(ctx, req.params.id, req.body.enabled) });
    });

    app.post('/device/:id/token', {
      config: { profiles: WRITE },
      schema: { operationId: 'rotateDeviceToken', summary: 'Rotate a device\'s token', description: 'Issues a new bearer token for the device (shown once); the old one stops working at once and a socket opened with it is closed.', tags, params: S.DeviceParams, body: S.TokenBody, response: responses(S.DeviceTokenResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.rotateToken(ctx, req.params.id));
    });

    const sendDescription = (what: string) =>
      `Creates the order (operative ${what}) and sends the operation to the device. The answer is immediate: the order in PENDING_PROCESSOR_RESPONSE with one PENDING transaction (\`authorization\` empty, \`pos\` naming the device), and the \`operation\` QUEUED (or SENT when the device\'s socket is open). ` +
      'The device reads the card and that transaction is charged; the final state is notified to `url_post`. When the issuer asks for strong customer authentication the order is AUTHENTICATION_REQUIRED until the device reads the card again. ' +
      'Cancelled on the terminal (or J6): CANCELLED. No card charged within 120 seconds (merchant clock): the operation is TIMED_OUT and the order EXPIRED, notified. In the sandbox a SIMULATION device answers after 10 seconds: amount 100 is cancelled, 200 refused, any other amount paid.';

    app.post('/device/payment', {
      config: { profiles: WRITE },
      schema: { operationId: 'sendDevicePayment', summary: 'J3 Send payment to a device', description: sendDescription('AUTHORIZATION'), tags, body: S.SendBody, response: responses(S.DeviceOrderResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return answer(ctx, await service.send(ctx, 'PAYMENT', req.body));
    });

    app.post('/device/preauthorization', {
      config: { profiles: WRITE },
      schema: { operationId: 'sendDevicePreauthorization', summary: 'J4 Send pre-authorization to a device', description: `${sendDescription('DEFERRED')} Confirm or cancel the hold later (J5, J6).`, tags, body: S.SendBody, response: responses(S.DeviceOrderResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return answer(ctx, await service.send(ctx, 'PREAUTHORIZATION', req.body));
    });

    app.post('/device/confirmation', {
      config: { profiles: WRITE },
      schema: { operationId: 'sendDeviceConfirmation', summary: 'J5 Confirm a pre-authorization taken on a device', description: 'Captures the hold (all, or `amount`), with the rules of `POST /payment/confirmation`.', tags, body: S.FollowUpBody, response: responses(S.DeviceOrderResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return answer(ctx, await service.confirm(ctx, req.body));
    });

    app.post('/device/cancellation', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'sendDeviceCancellation', summary: 'J6 Cancel on a device',
        description: 'An operation no card was charged for yet is cancelled (the device is told; the order is CANCELLED, its waiting transaction CANCELLED, and notified). A pre-authorization already taken is released, with the rules of `POST /payment/cancellation`. An order sent to another device is 404.',
        tags, body: S.CancelBody, response: responses(S.DeviceOrderResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return answer(ctx, await service.cancel(ctx, req.body));
    });

    app.post('/device/refund', {
      config: { profiles: WRITE },
      schema: { operationId: 'sendDeviceRefund', summary: 'J7 Refund a payment taken on a device', description: 'Refunds `amount` (omitted: what is left), with the rules of `POST /payment/refund`; an order not sent to this device is 404. A SIMULATION device processes the refund 10 seconds after it is sent, like a payment: the answer carries the order as it is and the queued `refund`; then amount 100 is cancelled on the terminal (CANCELLED), 200 refused (REFUSED), any other amount refunded (REFUNDED, the order shows it and is notified).', tags, body: S.FollowUpBody, response: responses(S.DeviceOrderResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return answer(ctx, await service.refund(ctx, req.body));
    });
  };
}
