import { EXAMPLE_SIGNATURE, Int, LineProblem, Nullable, OptionalText, Type, envelope, signedBody } from '../../platform/http/schemas.js';
import { BATCH_KINDS, BATCH_STATUSES, LINE_STATUSES } from './batch.domain.js';

const Iso = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

const H1_EXAMPLE = 'AMOUNT,CARD,CUSTOMER_EXTERNAL_ID,SERVICE,ADDITIONAL,URL_POST\n1500,6f1d2a9e-4c3b-4e8a-9b7c-1d2e3f4a5b6c,cust-1,0d4a1f7e-3b7c-4e39-8a8b-6d2b6a5f9c01,March fee,https://shop.example.com/notify\n';
const H2_EXAMPLE = 'ORDER_UUID,AMOUNT\n3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34,500\n9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d,\n';

const fields = (what: string) => ({
  data: Type.String({ minLength: 1, description: `the CSV file in base64 (the prefix \`data:text/csv;base64,\` is optional), at most 10 MiB and 10,000 rows. ${what}` }),
  filename: Type.String({ minLength: 1, maxLength: 255, description: 'name of the file, kept with the batch' }),
  execute_at: OptionalText(40, { description: 'when processing starts: `YYYY-MM-DD HH:mm:ss` in the merchant\'s timezone, or ISO 8601 with an offset; absent, empty or past: at once' }),
});

export const AuthorizationsBody = signedBody(fields('Header row (case-insensitive): AMOUNT, CARD (uuid of a stored card), SERVICE (service uuid) required; CUSTOMER_EXTERNAL_ID, ADDITIONAL, URL_POST, OPERATIVE (AUTHORIZATION or DEFERRED), DESCRIPTION optional.'), {
  title: 'BatchAuthorizationsRequest',
  examples: [{ signature: EXAMPLE_SIGNATURE, data: Buffer.from(H1_EXAMPLE).toString('base64'), filename: 'march-fees.csv', execute_at: '2026-04-01 08:00:00' }],
});

export const RefundsBody = signedBody(fields('Header row (case-insensitive): ORDER_UUID required; AMOUNT optional (empty: the whole refundable remainder).'), {
  title: 'BatchRefundsRequest',
  examples: [{ signature: EXAMPLE_SIGNATURE, data: Buffer.from(H2_EXAMPLE).toString('base64'), filename: 'returns.csv', execute_at: null }],
});

const BATCH_EXAMPLE = { uuid: '4e7a9c1b-2d3f-4a5b-8c6d-7e8f9a0b1c2d', type: 'AUTHORIZATION', filename: 'march-fees.csv', status: 'PROCESSING', execute_at: '2026-04-01T06:00:00.000Z', created_at: '2026-03-31T15:12:40.000Z', finished_at: null, total: 10000, pending: 4200, succeeded: 5700, failed: 100, progress: 58 };

export const Batch = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  type: Type.Enum([...BATCH_KINDS], { description: 'AUTHORIZATION (H1) or REFUND (H2)' }),
  filename: Type.String(),
  status: Type.Enum([...BATCH_STATUSES], { description: 'SCHEDULED (waiting for execute_at) → PROCESSING → COMPLETED (every line has its outcome)' }),
  execute_at: Iso,
  created_at: Iso,
  finished_at: Nullable(Iso),
  total: Type.Integer({ description: 'lines of the file' }),
  pending: Type.Integer({ description: 'lines without an outcome yet' }),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  progress: Type.Integer({ description: 'percentage of lines with an outcome' }),
}, { title: 'Batch', examples: [BATCH_EXAMPLE] });

export const BatchLine = Type.Object({
  line: Type.Integer({ description: 'line of the file (the header is line 1)' }),
  status: Type.Enum([...LINE_STATUSES]),
  order_uuid: Type.String({ format: 'uuid', description: 'H1: the order created for the line; H2: the order refunded' }),
  amount: Nullable(Type.Integer()),
  outcome: Nullable(Type.String({ description: 'H1: the order status (SUCCESS, REFUSED, ...); H2: REFUNDED <amount>, REFUSED or REJECTED <status>' })),
  error: Nullable(Type.String({ description: 'why the line failed: the transaction error, or what the refund was refused for' })),
}, { title: 'BatchLine', examples: [{ line: 2, status: 'SUCCEEDED', order_uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', amount: 1500, outcome: 'SUCCESS', error: null }] });

export const BatchSubmitted = envelope({
  batch: Batch,
  errors: Type.Array(LineProblem, { description: 'always empty on success (a file with problems is 422 with every line in `errors`)' }),
}, { title: 'BatchSubmittedResponse' });

export const BatchStatus = envelope({
  batch: Batch,
  lines: Type.Array(BatchLine, { description: 'the lines in file order: all of them, or the page asked for with `limit` and `offset`' }),
  next_offset: Type.Optional(Nullable(Type.Integer({ description: 'with `limit`: the `offset` of the next page of lines, null after the last' }))),
}, { title: 'BatchStatusResponse' });

export const BatchParams = Type.Object({ batch_uuid: Type.String({ maxLength: 64 }) });

export const BatchQuery = Type.Object({
  limit: Type.Optional(Int({ minimum: 0, maximum: 10_000, description: 'at most this many lines (0: the counts only, a cheap way to follow progress); absent: every line' })),
  offset: Type.Optional(Int({ minimum: 0, maximum: 10_000, default: 0, description: 'lines skipped (with `limit`)' })),
});
