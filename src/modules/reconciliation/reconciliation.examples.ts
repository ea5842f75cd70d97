/**
 * Examples of the reconciliation records and requests, shown in the API reference. A test validates each
 * against its schema, so they stay true.
 */
import { EXAMPLE_SIGNATURE as signature } from '../../platform/http/schemas.js';

const REPORT_UUID = '2f6d8a1c-4b3e-4c5d-9e7f-0a1b2c3d4e5f';
const SERVICE_UUID = '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40';
const STATEMENT_UUID = '9c1e3a5b-7d2f-4e6a-8b0c-1d3e5f7a9b2c';

export const SETTLEMENT_CSV_EXAMPLE = [
  'TYPE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,NET',
  'PAYMENT,pay_7mvqf3jkce2ehmdhddfuzbafke,e8b3d5f1-9a2c-4e7b-b6d4-3f1a8c5e7b20,1050,EUR,2026-03-14,2026-03-16,PO-20260316-01,3,1,5,1041',
  'REFUND,pay_7mvqf3jkce2ehmdhddfuzbafke,5a7c9e1b-3d5f-4a7b-8c9d-0e1f2a3b4c5d,500,EUR,2026-03-14,2026-03-16,PO-20260316-01,0,0,5,-505',
  '',
].join('\n');

export const SETTLEMENT_UPLOAD_EXAMPLE = {
  signature,
  data: Buffer.from(SETTLEMENT_CSV_EXAMPLE).toString('base64'),
  filename: 'checkout-statement-2026-03-14.csv',
  acquirer: 'CHECKOUT',
  service: SERVICE_UUID,
  settlement_days: 2,
  period_from: '2026-03-14',
  period_to: '2026-03-14',
};

export const SETTLEMENT_FETCH_EXAMPLE = { signature, service: SERVICE_UUID, date: '2026-03-14', settlement_days: 1 };

const CAMT_EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>STMT-20260316</MsgId><CreDtTm>2026-03-16T18:00:00+01:00</CreDtTm></GrpHdr>
<Stmt><Id>STMT-20260316-1</Id><CreDtTm>2026-03-16T18:00:00+01:00</CreDtTm><Acct><Id><IBAN>ES9121000418450200051332</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-16</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1005.36</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-16</Dt></Dt></Bal>
<Ntry><Amt Ccy="EUR">5.36</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-16</Dt></BookgDt><ValDt><Dt>2026-03-16</Dt></ValDt>
<NtryDtls><TxDtls><Refs><EndToEndId>PO-20260316-01</EndToEndId></Refs><RmtInf><Ustrd>CHECKOUT PAYOUT PO-20260316-01</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>
`;

export const STATEMENT_UPLOAD_EXAMPLE = { signature, data: Buffer.from(CAMT_EXAMPLE).toString('base64'), filename: 'bank-2026-03-16.xml', format: 'CAMT053' };

export const REPORT_EXAMPLE = {
  uuid: REPORT_UUID,
  acquirer: 'CHECKOUT',
  source: 'UPLOAD',
  filename: 'checkout-statement-2026-03-14.csv',
  service: SERVICE_UUID,
  period_from: '2026-03-14',
  period_to: '2026-03-14',
  settlement_days: 2,
  lines: 2,
  counts: { MATCHED: 1, AMOUNT_DIFFERS: 1, ONLY_AT_ACQUIRER: 0, ONLY_AT_PAYGATE: 1, SETTLED_LATE: 0, DUPLICATE: 0 },
  exceptions: 2,
  created_at: '2026-03-16T09:12:40.000Z',
};

export const ITEM_EXAMPLE = {
  id: '1042',
  kind: 'AMOUNT_DIFFERS',
  detail: 'the acquirer settled 500 EUR; paygate recorded 450 EUR',
  type: 'REFUND',
  report: { uuid: REPORT_UUID, filename: 'checkout-statement-2026-03-14.csv', acquirer: 'CHECKOUT', line: 3 },
  line: {
    processor_id: 'pay_7mvqf3jkce2ehmdhddfuzbafke',
    reference: '5a7c9e1b-3d5f-4a7b-8c9d-0e1f2a3b4c5d',
    amount: 500,
    currency: 'EUR',
    transaction_date: '2026-03-14',
    settlement_date: '2026-03-16',
    batch: 'PO-20260316-01',
    fees: { interchange: 0, scheme: 0, processing: 5 },
    net: -505,
  },
  transaction: { uuid: '5a7c9e1b-3d5f-4a7b-8c9d-0e1f2a3b4c5d', order_uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', amount: 450, currency: 'EUR', date: '2026-03-14', status: 'SUCCESS' },
};

export const PAYOUT_EXAMPLE = {
  uuid: '6b8d0f2a-4c6e-4a8b-9d1f-3a5c7e9b1d3f',
  acquirer: 'CHECKOUT',
  batch: 'PO-20260316-01',
  currency: 'EUR',
  settlement_date: '2026-03-16',
  status: 'RECEIVED',
  lines: 2,
  gross: 550,
  fees: { interchange: 3, scheme: 1, processing: 10, total: 14 },
  expected: 536,
  received: { amount: 536, date: '2026-03-16', statement_uuid: STATEMENT_UUID, statement_filename: 'bank-2026-03-16.xml', line: 6, reference: 'PO-20260316-01' },
  difference: 0,
};

export const STATEMENT_EXAMPLE = {
  uuid: STATEMENT_UUID,
  format: 'CAMT053',
  source: 'UPLOAD',
  filename: 'bank-2026-03-16.xml',
  account: 'ES9121000418450200051332',
  currency: 'EUR',
  period_from: '2026-03-16',
  period_to: '2026-03-16',
  opening_balance: 100000,
  closing_balance: 100536,
  entries: 1,
  credits: 1,
  debits: 0,
  payouts_found: 1,
  created_at: '2026-03-16T19:02:11.000Z',
};
