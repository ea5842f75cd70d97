/** HTTP of disputes (ours, beyond the payment API's contract: docs/disputes.md). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { notFound } from '../../platform/errors/errors.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { FileProblemsResponse, responses } from '../../platform/http/schemas.js';
import * as S from './disputes.schemas.js';
import type { DisputesService } from './disputes.service.js';
import { EVIDENCE_BODY_LIMIT, IMPORT_BODY_LIMIT } from './disputes.types.js';

const READ = ['readonly'] as const;
const tags = ['disputes'];

export function disputesRoutes(service: DisputesService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/disputes', {
      config: { profiles: READ },
      schema: {
        operationId: 'listDisputes',
        summary: 'Disputes and chargebacks, newest first',
        description: 'The disputes of the caller\'s payments, filtered by `status`, `stage` or `order_uuid`, in pages read by keyset (`limit`, `cursor` = the previous page\'s `next_cursor`). With `order_uuid` the answer has the order\'s `order_totals`: what is disputed, lost and won back.',
        tags, querystring: S.ListQuery, response: responses(S.DisputesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.list(ctx, req.query));
    });

    app.get('/disputes/:dispute_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getDispute',
        summary: 'A dispute with its evidence and history',
        description: 'The dispute, its evidence (text fields and documents, without their content), every change with its time and author, and what the disputes of its order mean for it (`order_totals`). Another merchant\'s dispute is 404.',
        tags, params: S.DisputeParams, response: responses(S.DisputeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.get(ctx, req.params.dispute_uuid));
    });

    app.get('/disputes/:dispute_uuid/documents/:document_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getDisputeDocument',
        summary: 'A document of a dispute\'s evidence',
        description: 'The document as it was uploaded (PDF, PNG or JPEG), in base64 with its name, type and size.',
        tags, params: S.DocumentParams, response: responses(S.DocumentResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.document(ctx, req.params.dispute_uuid, req.params.document_uuid));
    });

    app.post('/disputes', {
      config: { profiles: [] },
      schema: {
        operationId: 'createDispute',
        summary: 'Enter a dispute of a payment',
        description: 'Records a dispute an acquirer without a dispute API (Redsys, a bank) reported by letter, e-mail or portal: the order (of the caller), its disputed payment (a successful sale or capture), the scheme\'s reason code and category, the amount (at most the payment\'s), the stage and the evidence deadline. It NEEDS_RESPONSE until evidence is submitted or it is accepted; with neither by the deadline it EXPIRES. A payment with an open dispute is 409.',
        tags, body: S.CreateBody, response: responses(S.DisputeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.create(ctx, req.body, { source: 'MANUAL' }));
    });

    app.post('/disputes/simulate', {
      config: { profiles: [] },
      schema: {
        operationId: 'simulateDispute',
        summary: 'Sandbox: raise a dispute on a payment',
        description: 'Sandbox only (404 in production): the sandbox acquirer raises a dispute on a paid sandbox order, due 7 days later on the test clock. Once submitted, the sandbox decides it 2 days later (test clock) as `outcome` asks (WON by default); not answered by the deadline, it EXPIRES.',
        tags: ['disputes', 'sandbox'], body: S.SimulateBody, response: responses(S.DisputeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      if (ctx.env !== 'sandbox') throw notFound('Disputes are raised on demand only in sandbox (/v1/sandbox/disputes/simulate)');
      const b = req.body;
      return ok(ctx, await service.create(ctx, {
        order_uuid: b.order_uuid,
        transaction_uuid: b.transaction_uuid,
        reason_code: b.reason_code ?? '10.4',
        category: b.category ?? 'FRAUD',
        amount: b.amount,
        stage: b.stage,
      }, { source: 'SANDBOX', sandboxOutcome: b.outcome ?? 'WON' }));
    });

    app.post('/disputes/:dispute_uuid/evidence', {
      config: { profiles: [], bodyLimit: EVIDENCE_BODY_LIMIT },
      schema: {
        operationId: 'addDisputeEvidence',
        summary: 'Add evidence to a dispute',
        description: 'Text evidence by field (the dispute\'s `evidence_fields`, by its category) and documents (PDF, PNG or JPEG, recognised by their content; at most 4 MiB each and 10 MiB per dispute). Text or a PDF\'s text that holds a card number is refused (400), as is any other type of file; nothing of a refused request is kept. Only while the dispute NEEDS_RESPONSE (409 otherwise).',
        tags, params: S.DisputeParams, body: S.EvidenceBody, response: responses(S.DisputeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.addEvidence(ctx, req.params.dispute_uuid, { fields: req.body.fields, documents: req.body.documents }));
    });

    app.post('/disputes/:dispute_uuid/submit', {
      config: { profiles: [] },
      schema: {
        operationId: 'submitDispute',
        summary: 'Submit a dispute\'s evidence',
        description: 'Sends the evidence to the acquirer (the sandbox decides it 2 days later; for a dispute entered by hand or imported, send the evidence through the acquirer\'s channel and import its decision): the dispute is UNDER_REVIEW. A dispute without evidence, or not NEEDS_RESPONSE, is 409.',
        tags, params: S.DisputeParams, body: S.ActionBody, response: responses(S.DisputeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.submit(ctx, req.params.dispute_uuid));
    });

    app.post('/disputes/:dispute_uuid/accept', {
      config: { profiles: [] },
      schema: {
        operationId: 'acceptDispute',
        summary: 'Accept a dispute',
        description: 'The merchant accepts the loss: the dispute is ACCEPTED and its amount lost. Only while it NEEDS_RESPONSE (409 otherwise).',
        tags, params: S.DisputeParams, body: S.ActionBody, response: responses(S.DisputeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.accept(ctx, req.params.dispute_uuid));
    });

    app.post('/disputes/import', {
      config: { profiles: [], bodyLimit: IMPORT_BODY_LIMIT },
      schema: {
        operationId: 'importDisputes',
        summary: 'Import an acquirer\'s disputes (CSV)',
        description: 'A file of an acquirer\'s disputes in the CSV layout of docs/disputes.md: a line with a new DISPUTE_ID creates its dispute on the payment TRANSACTION names; a known one moves its dispute to the status and stage the line reports (through the lifecycle: a move it does not allow is a problem of the line). A file that cannot be read (not base64, not CSV, a wrong header, a card number anywhere) is 400; lines with problems make the whole file 422 with `errors: [{line, msg}]`; nothing of a refused file is kept.',
        tags, body: S.ImportBody, response: { ...responses(S.ImportResponse), 422: FileProblemsResponse },
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.importFile(ctx, req.body));
    });

    app.get('/disputes/ratios', {
      config: { profiles: READ },
      schema: {
        operationId: 'getDisputeRatios',
        summary: 'The dispute ratio by month and scheme, against the schemes\' programmes',
        description: 'Per month (UTC, the current one last) and card scheme: the disputes received against the sales, held to Visa\'s Dispute Monitoring Program (VDMP: 0.9 % and 100 disputes in a month, sales of the same month) and Mastercard\'s Excessive Chargeback Program (ECM: 1.5 % and 100 chargebacks in a month, sales of the month before). A merchant reaching both figures of a programme is identified by the scheme, with fines and, in the end, the loss of card acceptance.',
        tags, querystring: S.RatiosQuery, response: responses(S.RatiosResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.ratios(ctx, req.query));
    });

    app.get('/disputes/settings', {
      config: { profiles: READ },
      schema: {
        operationId: 'getDisputeSettings',
        summary: 'The merchant\'s dispute settings',
        description: 'Where dispute events go (null: dispute events are off) and how many days before a deadline the reminder e-mail is sent.',
        tags, response: responses(S.SettingsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.settings(ctx));
    });

    app.put('/disputes/settings', {
      config: { profiles: [] },
      schema: {
        operationId: 'updateDisputeSettings',
        summary: 'Turn dispute events on or off; the reminder',
        description: 'With `notification_url`, every dispute event (DISPUTE_CREATED, DISPUTE_SUBMITTED, DISPUTE_ACCEPTED, DISPUTE_WON, DISPUTE_LOST, DISPUTE_EXPIRED, DISPUTE_ESCALATED) is written to the event log (GET /events), the event stream and sent to that URL, signed with the signature of the key making this call, as every notification is. `reminder_days`: the deadline e-mail to the dashboard users.',
        tags, body: S.SettingsBody, response: responses(S.SettingsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.saveSettings(ctx, req.body));
    });
  };
}
