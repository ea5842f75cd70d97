/**
 * Per-service behaviour of the sandbox simulator: the deterministic approval draw by BIN range, the
 * soft decline, the outages (refused: the not-sent UNKNOWN; timeout: UNKNOWN), the test cards that keep
 * their meaning, and the behaviour carried to the simulator service.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { secret } from '../../src/platform/security/secret.js';
import { ProcessorRegistry, SimulatorConnector, TEST_CARDS, type CardData, type PaymentRequest } from '../../src/processors/index.js';
import { applyApproval, approvalRateFor, DEFAULT_BEHAVIOUR, drawFor, parseBehaviour, type SandboxBehaviour } from '../../src/processors/sandbox-behaviour.js';
import { RemoteSimulatorConnector, startSimulatorService, type SimulatorService } from '../../src/processors/simulator-service.js';
import { rng, useTestSeed } from '../helpers/seed.js';

const seed = useTestSeed(import.meta.url);
const random = rng(seed);
const NOW = new Date('2026-05-10T10:00:00Z');
const SERVICE_A = '0b9f2c7e-1d3a-4e5f-8a6b-7c8d9e0f1a2b';
const SERVICE_B = '5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c';
const terminalOf = (serviceId: string | null) => ({ serviceType: 'REDSYSPSD2', terminalId: null, serviceId });

function card(pan: string, cvv: string | null = '123'): CardData {
  return { pan: secret(pan), expiryMonth: 12, expiryYear: 2030, cvv: cvv === null ? null : secret(cvv), holder: 'Ana Pérez' };
}
const randomRef = () => `tx-${Math.floor(random() * 2 ** 32).toString(16)}-${Math.floor(random() * 2 ** 32).toString(16)}`;
function pay(pan: string, serviceId: string | null, o: Partial<PaymentRequest> = {}): PaymentRequest {
  return { reference: randomRef(), terminal: terminalOf(serviceId), now: NOW, amount: 1000, currency: 'EUR', card: card(pan), channel: 'ECOMMERCE', ...o };
}
const behaviour = (o: Partial<SandboxBehaviour>): SandboxBehaviour => ({ ...DEFAULT_BEHAVIOUR, ...o });
const visas = (rate: number) => behaviour({ approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: rate }] });

describe('the behaviour model (pure)', () => {
  it('parses what is given, with the defaults, and names the field of every problem', () => {
    expect(parseBehaviour({})).toEqual({ ok: DEFAULT_BEHAVIOUR });
    expect(parseBehaviour({ approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: 0.6 }], outage: 'refuse', soft_decline: 'PROCESSOR_ERROR', latency_ms: 25 })).toEqual({
      ok: { approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: 0.6 }], soft_decline: 'PROCESSOR_ERROR', outage: 'refuse', latency_ms: 25 },
    });
    const err = (input: object) => {
      const r = parseBehaviour(input as never);
      return 'error' in r ? r.error : null;
    };
    expect(err({ approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: 1 }, { bin_from: '40000', bin_to: '499999', approve_rate: 1 }] })).toMatch(/^approval\[1\]\.bin_from/);
    expect(err({ approval: [{ bin_from: '400000', bin_to: '4999990', approve_rate: 1 }] })).toMatch(/^approval\[0\]\.bin_to/);
    expect(err({ approval: [{ bin_from: '500000', bin_to: '499999', approve_rate: 1 }] })).toMatch(/^approval\[0\]\.bin_to \(499999\) is below bin_from/);
    expect(err({ approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: 1.01 }] })).toMatch(/^approval\[0\]\.approve_rate/);
    expect(err({ approval: [{ bin_from: '400000', bin_to: '499999', approve_rate: -0.1 }] })).toMatch(/^approval\[0\]\.approve_rate/);
    expect(err({ approval: Array.from({ length: 51 }, () => ({ bin_from: '400000', bin_to: '499999', approve_rate: 1 })) })).toMatch(/^approval has 51 rules/);
    expect(err({ soft_decline: 'INSUFFICIENT_FUNDS' })).toMatch(/^soft_decline/);
    expect(err({ outage: 'down' })).toMatch(/^outage/);
    expect(err({ latency_ms: 60_001 })).toMatch(/^latency_ms/);
    expect(err({ latency_ms: 1.5 })).toMatch(/^latency_ms/);
  });

  it('the first rule the BIN falls in gives the rate; none: no draw', () => {
    const b = behaviour({ approval: [{ bin_from: '454881', bin_to: '454881', approve_rate: 0.1 }, { bin_from: '400000', bin_to: '499999', approve_rate: 0.6 }] });
    expect(approvalRateFor(b, TEST_CARDS.APPROVED)).toBe(0.1);
    expect(approvalRateFor(b, '4000000000000002')).toBe(0.6);
    expect(approvalRateFor(b, '4999999999999999')).toBe(0.6);
    expect(approvalRateFor(b, TEST_CARDS.NON_3DS_OK)).toBeNull();
  });

  it(`the draw approves within tolerance of the rate over many references (seed ${seed})`, () => {
    const n = 20_000;
    for (const rate of [0, 0.05, 0.6, 0.95, 1]) {
      let approved = 0;
      for (let i = 0; i < n; i++) if (drawFor(randomRef(), SERVICE_A) < rate) approved++;
      // 4 standard deviations of a binomial count: a sound draw fails this once in ~16,000 runs
      const tolerance = 4 * Math.sqrt(n * rate * (1 - rate));
      expect(Math.abs(approved - n * rate), `rate ${rate}: ${approved} of ${n}`).toBeLessThanOrEqual(tolerance);
    }
  });

  it('the same reference at the same service always draws the same; another service draws again', () => {
    const refs = Array.from({ length: 500 }, randomRef);
    for (const r of refs) expect(drawFor(r, SERVICE_A)).toBe(drawFor(r, SERVICE_A));
    const differ = refs.filter((r) => drawFor(r, SERVICE_A) !== drawFor(r, SERVICE_B)).length;
    expect(differ).toBe(refs.length);
    // so at 50 % the two services refuse different payments
    const a = refs.map((r) => drawFor(r, SERVICE_A) < 0.5);
    const b = refs.map((r) => drawFor(r, SERVICE_B) < 0.5);
    expect(a.filter((x, i) => x !== b[i]).length).toBeGreaterThan(150);
  });

  it('only an approval is drawn; the soft decline is configurable', () => {
    const approved = { outcome: 'APPROVED' as const, authorization: '123456', processorId: 'sim_x', amount: 1000 };
    const op = { reference: 'r', serviceId: SERVICE_A, pan: TEST_CARDS.APPROVED, processorId: 'sim_x' };
    expect(applyApproval(visas(0), op, approved)).toEqual({ outcome: 'DECLINED', error: 'DENIED', details: 'Do not honour', processorId: 'sim_x' });
    expect(applyApproval({ ...visas(0), soft_decline: 'PROCESSOR_ERROR' }, op, approved)).toEqual({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Issuer unavailable', processorId: 'sim_x' });
    expect(applyApproval(visas(1), op, approved)).toBe(approved);
    const challenge = { outcome: 'CHALLENGE' as const, details: '3DS needed' };
    expect(applyApproval(visas(0), op, challenge)).toBe(challenge);
    const refused = { outcome: 'DECLINED' as const, error: 'INVALID_CARD' as const, details: 'x', processorId: 'sim_x' };
    expect(applyApproval(visas(0), op, refused)).toBe(refused);
  });
});

describe('the simulator with behaviours', () => {
  function simulator(behaviours: Record<string, SandboxBehaviour>) {
    return new SimulatorConnector({ behaviourOf: async (id) => behaviours[id] ?? null });
  }

  it('approve_rate 0 for a BIN range declines on one service; the other service and other BINs approve; lookup finds the decline', async () => {
    const s = simulator({ [SERVICE_A]: visas(0), [SERVICE_B]: visas(1) });
    const onA = pay(TEST_CARDS.APPROVED, SERVICE_A);
    const declined = await s.authorize(onA);
    expect(declined).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'Do not honour' });
    expect(await s.lookup({ reference: onA.reference, operation: 'authorize', terminal: onA.terminal })).toEqual({ found: true, result: declined });
    expect(await s.authorize(pay(TEST_CARDS.APPROVED, SERVICE_B))).toMatchObject({ outcome: 'APPROVED' });
    expect(await s.authorize(pay(TEST_CARDS.NON_3DS_OK, SERVICE_A))).toMatchObject({ outcome: 'APPROVED' });
    expect(await s.preauthorize(pay(TEST_CARDS.APPROVED, SERVICE_A))).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(await s.partialAuthorize(pay(TEST_CARDS.PARTIAL, SERVICE_A))).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: 'Do not honour' });
    // no service, or a service without a behaviour: the test cards as always
    expect(await s.authorize(pay(TEST_CARDS.APPROVED, null))).toMatchObject({ outcome: 'APPROVED' });
    expect(await s.authorize(pay(TEST_CARDS.APPROVED, '99999999-9999-4999-8999-999999999999'))).toMatchObject({ outcome: 'APPROVED' });
  });

  it('the same payment gets the same outcome every time, and the rate holds through the connector', async () => {
    const s = simulator({ [SERVICE_A]: visas(0.6) });
    const reqs = Array.from({ length: 2000 }, () => pay(TEST_CARDS.APPROVED, SERVICE_A));
    const first = await Promise.all(reqs.map((r) => s.authorize(r)));
    const again = await Promise.all(reqs.map((r) => s.authorize(r)));
    expect(again.map((r) => r.outcome)).toEqual(first.map((r) => r.outcome));
    const approved = first.filter((r) => r.outcome === 'APPROVED').length;
    expect(Math.abs(approved - 1200), `${approved} of 2000`).toBeLessThanOrEqual(4 * Math.sqrt(2000 * 0.6 * 0.4));
  });

  it('test cards that force an outcome keep their meaning at a service that approves nothing or everything', async () => {
    for (const rate of [0, 1]) {
      const s = simulator({ [SERVICE_A]: behaviour({ approval: [{ bin_from: '000000', bin_to: '999999', approve_rate: rate }] }) });
      expect(await s.authorize(pay(TEST_CARDS.REFUSED, SERVICE_A))).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', details: expect.not.stringMatching(/Do not honour/) });
      expect(await s.authorize(pay(TEST_CARDS.REFUSED_VISA, SERVICE_A))).toMatchObject({ outcome: 'DECLINED', details: expect.not.stringMatching(/Do not honour/) });
      expect(await s.authorize(pay('4000000000000003', SERVICE_A))).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
      expect(await s.authorize(pay(TEST_CARDS.CVV_FAIL, SERVICE_A))).toMatchObject({ outcome: 'DECLINED', details: 'CVV check failed' });
      expect(await s.authorize(pay(TEST_CARDS.SOFT_DECLINE, SERVICE_A))).toMatchObject({ outcome: 'CHALLENGE' });
      // the 3DS cards: the challenge flow is untouched (authentication is not a money operation)
      expect((await s.authenticate({ reference: randomRef(), terminal: terminalOf(SERVICE_A), now: NOW, amount: 100, currency: 'EUR', card: card(TEST_CARDS.THREEDS_FAIL) })).outcome).toBe('FAILED');
      expect((await s.authenticate({ reference: randomRef(), terminal: terminalOf(SERVICE_A), now: NOW, amount: 100, currency: 'EUR', card: card(TEST_CARDS.THREEDS_OK) })).outcome).toBe('AUTHENTICATED');
      // an approval the rules give is drawn: refused at 0, kept at 1
      expect((await s.authorize(pay(TEST_CARDS.APPROVED, SERVICE_A))).outcome).toBe(rate === 0 ? 'DECLINED' : 'APPROVED');
    }
  });

  it('latency_ms is added to the simulator\'s own latency, for that service only (fake timers, no sleep)', async () => {
    vi.useFakeTimers();
    try {
      const s = simulator({ [SERVICE_A]: behaviour({ latency_ms: 300 }) });
      s.latencyMs = 100;
      let slow = false;
      let fast = false;
      void s.authorize(pay(TEST_CARDS.APPROVED, SERVICE_A)).then(() => (slow = true));
      void s.authorize(pay(TEST_CARDS.APPROVED, SERVICE_B)).then(() => (fast = true));
      await vi.advanceTimersByTimeAsync(100);
      expect([fast, slow]).toEqual([true, false]);
      await vi.advanceTimersByTimeAsync(299);
      expect(slow).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(slow).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('outage refuse: the not-sent UNKNOWN, nothing recorded, faults left queued; lookup answers found: false', async () => {
    const reg = new ProcessorRegistry({ timeoutMs: 1000 });
    reg.useSandboxBehaviours(async (id) => (id === SERVICE_A ? behaviour({ outage: 'refuse' }) : null));
    const c = reg.forService('REDSYSPSD2', 'sandbox');
    reg.simulator.injectFault({ operation: 'authorize', kind: 'decline' });
    const req = pay(TEST_CARDS.APPROVED, SERVICE_A);
    expect(await c.authorize(req)).toEqual({ outcome: 'UNKNOWN', details: 'connection refused', notSent: true });
    expect(await c.lookup({ reference: req.reference, operation: 'authorize', terminal: req.terminal })).toEqual({ found: false });
    const original = { reference: req.reference, processorId: 'p', authorization: 'a' };
    expect(await c.refund({ reference: randomRef(), terminal: terminalOf(SERVICE_A), now: NOW, amount: 10, currency: 'EUR', original })).toEqual({ outcome: 'UNKNOWN', details: 'connection refused', notSent: true });
    expect((await reg.simulator.settlementReport({ day: '2026-05-10', terminal: terminalOf(SERVICE_A) })).outcome).toBe('REPORT');
    // the fault queued was not consumed by the refused call: the next call of another service takes it
    expect(await c.authorize(pay(TEST_CARDS.APPROVED, SERVICE_B))).toMatchObject({ outcome: 'DECLINED', details: 'simulated processor failure' });
  });

  it('outage timeout: UNKNOWN without notSent, nothing recorded; lookup answers found: false', async () => {
    const reg = new ProcessorRegistry({ timeoutMs: 1000 });
    reg.useSandboxBehaviours(async (id) => (id === SERVICE_A ? behaviour({ outage: 'timeout' }) : null));
    const c = reg.forService('REDSYSPSD2', 'sandbox');
    const req = pay(TEST_CARDS.APPROVED, SERVICE_A);
    const r = await c.authorize(req);
    expect(r.outcome).toBe('UNKNOWN');
    expect(r).not.toHaveProperty('notSent');
    expect(await c.lookup({ reference: req.reference, operation: 'authorize', terminal: req.terminal })).toEqual({ found: false });
    const report = await reg.simulator.settlementReport({ day: '2026-05-10', terminal: terminalOf(SERVICE_A) });
    expect(report.outcome === 'REPORT' ? report.lines : null).toEqual([]);
  });
});

describe('the simulator service with behaviours', () => {
  let svc: SimulatorService | null = null;
  let client: RemoteSimulatorConnector | null = null;
  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  it('the gateway sends each money request with its service\'s behaviour; the service applies it', async () => {
    svc = await startSimulatorService();
    client = new RemoteSimulatorConnector(svc.url);
    const asked: string[] = [];
    client.behaviourOf = async (id) => {
      asked.push(id);
      return id === SERVICE_A ? visas(0) : id === SERVICE_B ? behaviour({ outage: 'refuse' }) : null;
    };
    expect(await client.authorize(pay(TEST_CARDS.APPROVED, SERVICE_A))).toMatchObject({ outcome: 'DECLINED', details: 'Do not honour' });
    expect(await client.authorize(pay(TEST_CARDS.APPROVED, SERVICE_B))).toEqual({ outcome: 'UNKNOWN', details: 'connection refused', notSent: true });
    expect(await client.authorize(pay(TEST_CARDS.APPROVED, null))).toMatchObject({ outcome: 'APPROVED' });
    expect(asked).toEqual([SERVICE_A, SERVICE_B]);
    // the service's own simulator has no lookup of its own: only what a request carries counts
    expect(await svc.simulator.authorize(pay(TEST_CARDS.APPROVED, SERVICE_A))).toMatchObject({ outcome: 'APPROVED' });
  });
});
