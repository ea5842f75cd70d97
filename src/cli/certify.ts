/**
 * `paygate connector certify --terminal <uuid>`: the terminal's connector against the provider's test
 * environment with the terminal's credentials (processors/kit/certify.ts runs the flows). Shared by the
 * CLI and its tests.
 */
import type { Platform } from '../platform/index.js';
import { OutgoingClient, OutgoingPolicy } from '../platform/net/outgoing.js';
import { ApiError } from '../platform/errors/errors.js';
import { certify, type CertificationStep } from '../processors/kit/certify.js';
import { declarationOfType } from '../processors/connectors.js';
import type { ServicesService } from '../modules/services/index.js';

export interface CertifyResult {
  terminal: string;
  connector: string;
  url: string;
  passed: boolean;
  steps: CertificationStep[];
}

export async function certifyTerminal(p: Platform, services: Pick<ServicesService, 'certificationTerminal'>, opts: { terminal: string; url?: string | null }): Promise<CertifyResult> {
  const t = await services.certificationTerminal(opts.terminal);
  if (!t) throw new ApiError(404, `terminal ${opts.terminal} not found`);
  const decl = declarationOfType(t.type);
  if (!decl) throw new ApiError(400, `terminals of type ${t.type} have no production connector to certify`);
  if (!decl.certification) throw new ApiError(400, `the ${decl.label} connector declares no test cards to certify with`);
  const url = (opts.url ?? decl.url.test).replace(/\/+$/, '');
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new ApiError(400, `--url ${url} is not a URL`);
  }
  let opened: unknown;
  try {
    opened = decl.credentials.open(t.code, t.credentials);
  } catch (err) {
    throw new ApiError(400, `the terminal's credentials cannot be used: ${(err as Error).message}`);
  }
  // the provider's test host is the only address this command reaches (besides what the operator allows)
  const http = new OutgoingClient({ policy: new OutgoingPolicy({ allow: [...p.config.outgoingAllow, host], sandboxLoopback: false }) });
  const connector = decl.create({
    baseUrl: url,
    http,
    db: () => p.database.db,
    terminals: async () => opened,
    timeoutMs: Math.max(10, p.config.processorTimeoutMs - 100),
    logger: p.logger.child({ connector: decl.name, certify: true }),
    fingerprint: (pan) => p.vault.fingerprint('pan', pan),
    publicUrl: p.config.publicUrl,
    notificationUrl: null,
  });
  const steps = await certify({
    connector, terminal: opened, terminalRef: { serviceType: t.type, terminalId: t.id, serviceId: null }, currency: t.currency,
    certification: decl.certification, label: decl.label,
  });
  return { terminal: t.id, connector: decl.name, url, passed: steps.every((s) => s.passed), steps };
}

/** The result as an operator reads it. */
export function certifyReport(r: CertifyResult): string {
  const lines = [`${r.connector} at ${r.url}, terminal ${r.terminal}:`];
  for (const s of r.steps) {
    lines.push(`  ${s.passed ? 'pass' : 'FAIL'}  ${s.step}: ${s.answer}`);
    if (!s.passed) lines.push(`        to fix: ${s.fix}`);
  }
  lines.push(r.passed ? 'every step passed: the terminal is ready for its live credentials' : `${r.steps.filter((s) => !s.passed).length} step(s) failed`);
  return lines.join('\n');
}
