/** `paygate reconcile`, `certificate`, `jobs` and `trigger`: day-to-day operations. */
import { Command, Option } from 'commander';
import { registerJobs } from '../../app.js';
import { ApiError } from '../../platform/errors/errors.js';
import path from 'node:path';
import { SCENARIOS, runScenario, type Scenario } from '../trigger.js';
import { listen } from '../listen.js';
import fs from 'node:fs';
import { verifyCertificate } from '../../modules/campaigns/index.js';
import { print, withPlatform } from './shared.js';

export function operationCommands(program: Command): void {
  program
    .command('reconcile')
    .description('reconciliation (docs/reconciliation.md)')
    .command('import')
    .description("import an acquirer's settlement file (the CSV layout of docs/reconciliation.md) or a bank statement (camt.053, Norma 43) for a merchant, and match it; the file is streamed from disk, so it may be far larger than an upload")
    .argument('<file>', 'the file')
    .requiredOption('--key <key id>', 'an API key (id) of the merchant: its merchant and environment')
    .addOption(new Option('--format <format>', 'the file\'s format (default: camt053 for XML, norma43 for a file starting with record 11, csv otherwise)').choices(['csv', 'camt053', 'norma43']))
    .option('--acquirer <name>', 'settlement files: who settled it (CHECKOUT, PAYPAL, REDSYS, ...)', 'OTHER')
    .option('--service <uuid>', 'settlement files: the service the report covers (its successful transactions no line settles are ONLY_AT_PAYGATE)')
    .option('--settlement-days <n>', 'settlement files: a line settled more days than this after its transaction is SETTLED_LATE', '2')
    .option('--period-from <date>', 'settlement files: the first day it covers (default: the earliest TRANSACTION_DATE)')
    .option('--period-to <date>', 'settlement files: the last day it covers (default: the latest TRANSACTION_DATE)')
    .option('--json', 'JSON output')
    .action(async (file: string, o: { key: string; format?: string; acquirer: string; service?: string; settlementDays: string; periodFrom?: string; periodTo?: string; json?: boolean }) => {
      const { CLI_MAX_BYTES, CLI_MAX_LINES } = await import('../../modules/reconciliation/index.js');
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new ApiError(400, `${file} is not a file`);
      const first = Buffer.alloc(64);
      const fd = fs.openSync(file, 'r');
      const got = fs.readSync(fd, first, 0, 64, 0);
      fs.closeSync(fd);
      const head = first.subarray(0, got).toString('latin1').replace(/^\xEF\xBB\xBF/, '').trimStart();
      const format = o.format ?? (head.startsWith('<') ? 'camt053' : /^11\d/.test(head) ? 'norma43' : 'csv');
      const days = Number(o.settlementDays);
      if (!Number.isInteger(days) || days < 0 || days > 60) throw new ApiError(400, '--settlement-days must be a whole number of days from 0 to 60');
      await withPlatform(async (_p, m) => {
        const ctx = await m.merchants.contextForKey(o.key);
        try {
          if (format === 'csv') {
            const r = await m.reconciliation.importSettlement(ctx, { filename: path.basename(file), acquirer: o.acquirer, service: o.service ?? null, settlement_days: days, period_from: o.periodFrom ?? null, period_to: o.periodTo ?? null },
              () => fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), { source: 'CLI', maxBytes: CLI_MAX_BYTES, maxLines: CLI_MAX_LINES });
            print(!!o.json, r, () => `report ${r.report.uuid}: ${r.report.lines} lines of ${r.report.period_from}..${r.report.period_to}\n${Object.entries(r.report.counts).map(([k, v]) => `  ${k.padEnd(17)} ${v}`).join('\n')}`);
          } else {
            const r = await m.reconciliation.importStatement(ctx, { filename: path.basename(file), format: format === 'camt053' ? 'CAMT053' : 'NORMA43' }, fs.readFileSync(file), 'CLI');
            print(!!o.json, r, () => `${r.statements.map((s) => `statement ${s.uuid}: ${s.account} ${s.period_from}..${s.period_to}, ${s.entries} entries, ${s.payouts_found} payouts found`).join('\n')}\npayouts: ${Object.entries(r.payouts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
          }
        } catch (err) {
          const lines = err instanceof ApiError && Array.isArray(err.extra?.errors) ? (err.extra.errors as Array<{ line: number; msg: string }>) : [];
          for (const l of lines.slice(0, 50)) process.stderr.write(`line ${l.line}: ${l.msg}\n`);
          throw err;
        }
      });
    });

  program
    .command('certificate')
    .description('MoTo certificates (G3, G4)')
    .command('verify')
    .description('check a certificate PDF: its embedded evidence against the gateway\'s signature')
    .argument('<file>', 'the PDF (or a file holding its base64, as the API returns it)')
    .option('--public-key <pem file>', 'verify with this public key (from GET /certificates/public-key) instead of the gateway database\'s keys')
    .option('--json', 'JSON output')
    .action(async (file: string, o) => {
      let bytes: Buffer = fs.readFileSync(file);
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') bytes = Buffer.from(bytes.toString('latin1').trim(), 'base64');
      const r = o.publicKey
        ? await verifyCertificate(bytes, fs.readFileSync(o.publicKey, 'utf8'))
        : await withPlatform((_p, m) => m.campaigns.verify(bytes));
      const out = { valid: r.valid, reason: r.reason, key_id: r.keyId, evidence: r.evidence };
      print(!!o.json, out, () => (r.valid ? `valid: signed by ${r.keyId}\n${JSON.stringify(r.evidence, null, 2)}` : `NOT valid: ${r.reason}`));
      if (!r.valid) process.exitCode = 2;
    });

  program
    .command('jobs')
    .description('background jobs')
    .command('run')
    .description('run every due job once and exit')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        registerJobs(p, m);
        const n = await p.jobs.drain();
        print(!!o.json, { jobs_run: n }, () => `${n} jobs run`);
      });
    });

  program
    .command('trigger')
    .description(`run a sandbox scenario against a gateway and print what happened: ${Object.keys(SCENARIOS).join(', ')}`)
    .argument('<scenario>', Object.entries(SCENARIOS).map(([k, v]) => `${k} (${v})`).join('; '))
    .option('--url <url>', 'the gateway (default: $PAYGATE_URL, else http://127.0.0.1:8080)')
    .option('--api-key <key>', 'a sandbox API key (default: $PAYGATE_API_KEY)')
    .option('--signature <signature>', 'its signature (default: $PAYGATE_SIGNATURE)')
    .option('--service <uuid>', 'the service to charge (default: $PAYGATE_SERVICE, else the first EUR service)')
    .option('--url-post <url>', "the orders' url_post: the gateway notifies it (and paygate listen streams the notifications); default $PAYGATE_URL_POST, else none")
    .option('--order <uuid>', 'dispute: the paid order to dispute (default: a new approved order)')
    .addOption(new Option('--outcome <outcome>', 'dispute: how the sandbox decides it once its evidence is submitted').choices(['won', 'lost']).default('won'))
    .option('--json', 'JSON output')
    .action(async (scenario: string, o: { url?: string; apiKey?: string; signature?: string; service?: string; urlPost?: string; order?: string; outcome: string; json?: boolean }) => {
      if (!(scenario in SCENARIOS)) throw new ApiError(400, `unknown scenario ${scenario}: one of ${Object.keys(SCENARIOS).join(', ')}`);
      const target = {
        url: o.url ?? process.env.PAYGATE_URL ?? 'http://127.0.0.1:8080',
        apiKey: o.apiKey ?? process.env.PAYGATE_API_KEY ?? '',
        signature: o.signature ?? process.env.PAYGATE_SIGNATURE ?? '',
        service: o.service ?? process.env.PAYGATE_SERVICE ?? null,
        urlPost: o.urlPost ?? process.env.PAYGATE_URL_POST ?? null,
        order: o.order ?? null,
        outcome: o.outcome === 'lost' ? 'LOST' as const : 'WON' as const,
      };
      if (!target.apiKey || !target.signature) throw new ApiError(400, 'an API key and its signature are needed: --api-key and --signature, or PAYGATE_API_KEY and PAYGATE_SIGNATURE (npm start prints them)');
      const steps = await runScenario(target, scenario as Scenario, (s) => {
        if (!o.json) process.stdout.write(`${s.call} -> ${s.status} ${s.summary}\n`);
      });
      const dispute = steps[steps.length - 1].body?.dispute ?? null;
      const last = steps[steps.length - 1].body?.order ?? [...steps].reverse().find((s) => s.body?.order)?.body.order ?? null;
      if (o.json) print(true, { scenario, steps: steps.map((s) => ({ call: s.call, status: s.status, summary: s.summary })), order: last, ...(dispute ? { dispute } : {}) }, () => '');
      else if (dispute) process.stdout.write(`${scenario}: dispute ${dispute.uuid} of order ${dispute.order_uuid} ${dispute.status}, evidence due ${dispute.evidence_due_at}; add evidence and submit it (POST /v1/sandbox/disputes/${dispute.uuid}/evidence, /submit), then move the test clock 2 days\n`);
      else {
        const challenge = steps[steps.length - 1].body?.code === 303 ? steps[steps.length - 1].body?.url : null;
        process.stdout.write(`${scenario}: order ${last?.uuid} is ${last?.status}${challenge ? `; open the challenge page to approve or fail it: ${challenge}` : ''}\n`);
      }
    });
}
