/**
 * The simulator as a service shared by several gateway processes: an operation done through one
 * process is found by another (the reconciler of another node), card data and dates travel intact, and
 * a service that does not answer is an unknown outcome, never a decline.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/processors/index.js';
import { guarded } from '../../src/processors/registry.js';
import { decodeWire, encodeWire, RemoteSimulatorConnector, startSimulatorService, type SimulatorService } from '../../src/processors/simulator-service.js';
import { Secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

let svc: SimulatorService | null = null;
const clients: RemoteSimulatorConnector[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await svc?.close();
});

function connector(url: string) {
  const c = new RemoteSimulatorConnector(url);
  clients.push(c);
  return c;
}

const payment = (reference: string, pan: string, amount = 1234): PaymentRequest => ({
  reference,
  terminal: { serviceType: 'PAYGATE', terminalId: null },
  now: new Date('2026-05-01T10:00:00Z'),
  amount,
  currency: 'EUR',
  card: { pan: new Secret(pan), expiryMonth: 12, expiryYear: 2030, cvv: new Secret('123'), holder: 'Shared Sim' },
  channel: 'ECOMMERCE',
});

describe('the simulator service', () => {
  it('keeps secrets and dates on the wire (JSON alone would redact and flatten them)', () => {
    const v = { pan: new Secret('4548812049400004'), at: new Date('2026-01-02T03:04:05.000Z'), list: [new Secret('x')], n: 1 };
    const back = decodeWire(JSON.parse(JSON.stringify(encodeWire(v)))) as typeof v;
    expect(back.pan).toBeInstanceOf(Secret);
    expect(back.pan.reveal()).toBe('4548812049400004');
    expect(back.at).toBeInstanceOf(Date);
    expect(back.at.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(back.list[0].reveal()).toBe('x');
    expect(back.n).toBe(1);
  });

  it('answers like the in-process simulator, logs money operations, and another process finds them', async () => {
    svc = await startSimulatorService();
    const nodeA = connector(svc.url);
    const nodeB = connector(svc.url);
    const approved = await nodeA.authorize(payment('tx-approved', TEST_CARDS.APPROVED));
    expect(approved.outcome).toBe('APPROVED');
    const refused = await nodeA.authorize(payment('tx-refused', TEST_CARDS.REFUSED));
    expect(refused.outcome).toBe('DECLINED');
    // the same decisions as the simulator in a process
    expect(approved).toEqual(await svc.simulator.lookup({ reference: 'tx-approved', operation: 'authorize', terminal: { serviceType: 'PAYGATE', terminalId: null } }).then((r) => (r.found === true ? r.result : null)));
    // another node (the reconciler elsewhere) finds what node A did, and not what never happened
    const found = await nodeB.lookup({ reference: 'tx-approved', operation: 'authorize', terminal: { serviceType: 'PAYGATE', terminalId: null } });
    expect(found).toEqual({ found: true, result: approved });
    expect(await nodeB.lookup({ reference: 'tx-never', operation: 'authorize', terminal: { serviceType: 'PAYGATE', terminalId: null } })).toEqual({ found: false });
    // the log: money operations only (not lookups), in order, with their outcome
    expect(svc.operations.map((o) => [o.operation, o.reference, o.amount, o.outcome])).toEqual([
      ['authorize', 'tx-approved', 1234, 'APPROVED'],
      ['authorize', 'tx-refused', 1234, 'DECLINED'],
    ]);
    const listed = (await fetch(`${svc.url}/operations?after=1`).then((r) => r.json())) as { operations: Array<{ reference: string }> };
    expect(listed.operations.map((o: { reference: string }) => o.reference)).toEqual(['tx-refused']);
  });

  it('is an unknown outcome when the service does not answer (the reconciler asks again later)', async () => {
    const gone = await startSimulatorService();
    const url = gone.url;
    await gone.close();
    const c = guarded(connector(url), 2000);
    expect((await c.authorize(payment('tx-lost', TEST_CARDS.APPROVED))).outcome).toBe('UNKNOWN');
    expect((await c.lookup({ reference: 'tx-lost', operation: 'authorize', terminal: { serviceType: 'PAYGATE', terminalId: null } })).found).toBe('unknown');
  });
});
