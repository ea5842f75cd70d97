/**
 * The connector kit's parts without a database: sending (kit/http.ts) answers or "no answer" and logs no
 * body; the shared result paths (kit/outcomes.ts); the simulator base (kit/simulator.ts): the fault queue
 * by endpoint and its answer path, the hook before a money call's answer, the body cap, notifications through a transport, the 3-D Secure
 * challenge page; the declarations of the one list (src/processors/connectors.ts) and credential checks.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OutgoingClient, OutgoingPolicy } from '../../src/platform/net/outgoing.js';
import { CONNECTORS, declarationNamed, declarationOfType } from '../../src/processors/connectors.js';
import { credentialProblems } from '../../src/processors/kit/declaration.js';
import { ProviderHttp, type Answer } from '../../src/processors/kit/http.js';
import { lookupOf, notBelieved, refusedOrUnknown, settles, verificationOf } from '../../src/processors/kit/outcomes.js';
import { challengePage, SimulatorBase, type SimRequest } from '../../src/processors/kit/simulator.js';

/** A protocol of one JSON operation (`POST /pay`) whose answer notifies `notifyUrl`. */
class EchoSimulator extends SimulatorBase<'pay' | 'query'> {
  paid = 0;
  notifyUrl = 'http://127.0.0.1:9/hook';
  constructor() {
    super({ spec: { provider: 'Echo', sources: ['test'], operations: [{ id: 'pay', source: 'test', request: { type: 'object' }, responses: { 200: { type: 'object' } } }] }, defaultEndpoint: 'pay', bodyLimit: 64 });
  }

  paymentCalls(): number {
    return this.paid;
  }

  protected async handle(r: SimRequest, res: http.ServerResponse): Promise<void> {
    if (r.path === '/page') return this.html(res, 200, challengePage({ title: 'T', heading: 'H', lines: ['Amount 1 <EUR>'], action: '/done?a=1&b=2', hidden: { creq: 'x"y' }, unavailable: {} }));
    const fault = this.takeFault(r.path === '/query' ? 'query' : 'pay');
    if (fault === 'lost') return this.drop(r);
    this.paid++;
    return this.answer(r, res, fault, {
      status: 200,
      body: { amount: 1, status: 'DECLINED' },
      notify: async () => void (await this.deliver(this.notifyUrl, { 'x-sig': 's' }, '{"n":1}')),
      tamper: (b) => ({ ...(b as object), status: 'APPROVED' }),
    });
  }
}

const policy = new OutgoingPolicy({ allow: ['127.0.0.1'], sandboxLoopback: false });
const sims: EchoSimulator[] = [];
afterEach(async () => {
  for (const s of sims.splice(0)) await s.close();
});

async function started(): Promise<{ sim: EchoSimulator; send: ProviderHttp; logs: Array<[unknown, string]> }> {
  const sim = new EchoSimulator();
  sims.push(sim);
  const url = await sim.listen();
  const logs: Array<[unknown, string]> = [];
  const logger = { warn: (o: unknown, m: string) => logs.push([o, m]), error: (o: unknown, m: string) => logs.push([o, m]) } as never;
  return { sim, send: new ProviderHttp({ baseUrl: `${url}/`, http: new OutgoingClient({ policy }), timeoutMs: 2000, logger, name: 'echo', label: 'Echo' }), logs };
}

describe('kit/http.ts and the simulator base', () => {
  it('an answer comes back with its status and JSON; a lost one is "no answer", logged with its path and not its body', async () => {
    const { sim, send, logs } = await started();
    const delivered: string[] = [];
    sim.transport = async (n) => (delivered.push(`${n.url} ${n.headers['x-sig']} ${n.body}`), 204);
    const ok = await send.send({ path: '/pay?secret=1', json: { pan: '4548812049400004' } });
    expect(ok).toMatchObject({ kind: 'answer', status: 200, json: { amount: 1, status: 'DECLINED' } });
    await sim.settled();
    expect(delivered).toEqual(['http://127.0.0.1:9/hook s {"n":1}']);
    expect(sim.webhooks).toMatchObject([{ status: 204, answer: null, error: null }]);
    // a transport that gives the receiver's answer: kept with the webhook (a provider holds it to its acknowledgement)
    sim.transport = async () => ({ status: 200, body: '{"ack":1}' });
    await send.send({ path: '/pay', json: { pan: '4548812049400004' } });
    await sim.settled();
    expect(sim.webhooks[1]).toMatchObject({ status: 200, answer: '{"ack":1}', error: null });

    sim.injectFault('drop');
    expect(await send.send({ path: '/pay?secret=1', json: { pan: '4548812049400004' } })).toMatchObject({ kind: 'unknown', details: expect.stringMatching(/^Echo did not answer/) });
    expect(sim.paymentCalls()).toBe(3);
    expect(logs).toEqual([[{ path: '/pay', failure: expect.any(String) }, 'echo: no answer']]);
    expect(JSON.stringify(logs)).not.toContain('4548812049400004');
  });

  it('faults by endpoint, in order: lost (nothing processed), drop-notify (processed, only the notification), notify-first, tamper, hang until close', async () => {
    const { sim, send } = await started();
    const delivered: number[] = [];
    sim.transport = async () => (delivered.push(Date.now()), 200);
    sim.injectFault({ kind: 'lost', endpoint: 'query' });
    sim.injectFault('tamper', 2);
    expect((await send.send({ path: '/query', json: {} })).kind).toBe('unknown');
    expect(sim.paymentCalls()).toBe(0);
    for (let i = 0; i < 2; i++) expect(await send.send({ path: '/pay', json: {} })).toMatchObject({ kind: 'answer', json: { status: 'APPROVED' } });
    expect(await send.send({ path: '/pay', json: {} })).toMatchObject({ json: { status: 'DECLINED' } });
    await sim.settled();
    delivered.length = 0;
    sim.injectFault('drop-notify');
    expect((await send.send({ path: '/pay', json: {} })).kind).toBe('unknown');
    expect(delivered).toHaveLength(1);
    sim.injectFault('notify-first');
    const before = delivered.length;
    expect((await send.send({ path: '/pay', json: {} })).kind).toBe('answer');
    expect(delivered).toHaveLength(before + 1);
    sim.injectFault('hang');
    const hung = send.send({ path: '/pay', json: {} });
    await new Promise((r) => setTimeout(r, 50));
    await sim.close();
    expect((await hung).kind).toBe('unknown');
  });

  it('beforeMoneyAnswer: called for a money call once decided, its answer held until it returns; not for other endpoints nor a dropped answer', async () => {
    const { sim, send } = await started();
    const seen: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    sim.beforeMoneyAnswer = async (call) => {
      seen.push(`${call.endpoint} ${call.method} ${call.path} ${call.status}`);
      await held;
    };
    let answered = false;
    const paying = send.send({ path: '/pay', json: {} }).then((a) => ((answered = true), a));
    await expect.poll(() => seen).toEqual(['pay POST /pay 200']);
    // decided (counted), its answer not written until the hook returns
    expect(sim.paymentCalls()).toBe(1);
    expect(answered).toBe(false);
    release();
    expect(await paying).toMatchObject({ kind: 'answer', json: { status: 'DECLINED' } });
    // another endpoint's answer, and a money call whose answer is dropped, do not call it
    expect((await send.send({ path: '/query', json: {} })).kind).toBe('answer');
    sim.injectFault('drop');
    expect((await send.send({ path: '/pay', json: {} })).kind).toBe('unknown');
    expect(seen).toEqual(['pay POST /pay 200']);
    expect(sim.paymentCalls()).toBe(3);
  });

  it('a body over the cap is refused (413) before the protocol sees it', async () => {
    const { sim, send } = await started();
    expect(await send.send({ path: '/pay', json: { big: 'x'.repeat(100) } })).toMatchObject({ kind: 'answer', status: 413 });
    expect(sim.paymentCalls()).toBe(0);
  });

  it('the 3-D Secure challenge page: escaped, the hidden fields and the three buttons', async () => {
    const { send } = await started();
    const page = (await send.send({ path: '/page' })) as Answer;
    expect(page.text).toContain('Amount 1 &lt;EUR&gt;');
    expect(page.text).toContain('action="/done?a=1&amp;b=2"');
    expect(page.text).toContain('name="creq" value="x&quot;y"');
    for (const [id, value] of [['pass', 'Y'], ['fail', 'N'], ['unavailable', 'U']]) expect(page.text).toContain(`name="result" value="${value}" id="${id}" data-challenge="${id}"`);
  });
});

describe('kit/outcomes.ts', () => {
  const answer = (status: number, json: Record<string, unknown> | null = null): Answer => ({ kind: 'answer', status, headers: {}, text: '', json });

  it('a refusal (4xx but 408 and 429) is DECLINED in the provider\'s words; anything else UNKNOWN', () => {
    const words = (a: Answer) => (typeof a.json?.code === 'string' ? a.json.code : null);
    expect(refusedOrUnknown(answer(422, { code: 'amount_invalid' }), { label: 'Echo', what: 'refund', words })).toEqual({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Echo refused the refund: amount_invalid', processorId: null });
    expect(refusedOrUnknown(answer(404), { label: 'Echo', what: 'payment', words })).toMatchObject({ outcome: 'DECLINED', details: 'Echo refused the payment: HTTP 404' });
    for (const status of [408, 429, 500, 502, 302]) expect(refusedOrUnknown(answer(status), { label: 'Echo', what: 'payment' })).toEqual({ outcome: 'UNKNOWN', details: `Echo answered HTTP ${status}` });
  });

  it('an answer not believed is UNKNOWN and logged as an error; lookups, notifications and verifications read results alike', () => {
    const logged: string[] = [];
    const logger = { error: (_o: unknown, m: string) => logged.push(m) } as never;
    expect(notBelieved(logger, 'echo', { reference: 'r' }, 'another amount')).toEqual({ outcome: 'UNKNOWN', details: 'another amount' });
    expect(logged).toEqual(['echo: answer not believed; the operation is left to the reconciler']);
    const approved = { outcome: 'APPROVED', authorization: '123456', processorId: 'p', amount: 1 } as const;
    expect(lookupOf(approved)).toEqual({ found: true, result: approved });
    expect(lookupOf({ outcome: 'PENDING', details: 'later', processorId: null })).toEqual({ found: 'unknown', details: 'later' });
    expect(lookupOf({ outcome: 'CHALLENGE', details: 'sca' })).toMatchObject({ found: 'unknown' });
    expect(settles('r', approved)).toEqual({ outcome: 'SETTLE', reference: 'r', result: approved });
    expect(settles('r', { outcome: 'UNKNOWN', details: 'x' })).toEqual({ outcome: 'IGNORED', reason: 'x' });
    expect(verificationOf(approved)).toEqual({ outcome: 'VERIFIED', processorId: 'p' });
    expect(verificationOf({ outcome: 'CHALLENGE', details: 'sca' })).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' });
  });
});

describe('the one list of connectors', () => {
  it('names each connector once, its service types once, its setting PAYGATE_<NAME>_URL; a simulator for every one', async () => {
    expect(CONNECTORS.map((c) => c.name)).toEqual(['redsys', 'checkout', 'paypal', 'cybersource', 'worldpay', 'nuvei', 'credorax', 'trustpayments', 'clearhaus']);
    const types = CONNECTORS.flatMap((c) => c.serviceTypes);
    expect(new Set(types).size).toBe(types.length);
    for (const c of CONNECTORS) {
      expect(c.url.env).toBe(`PAYGATE_${c.name.toUpperCase()}_URL`);
      expect(declarationNamed(c.name)).toBe(c);
      for (const t of c.serviceTypes) expect(declarationOfType(t)).toBe(c);
      const sim = await c.simulator.load();
      const demo = sim.demoTerminal({});
      // the demo terminal of `paygate <name>-simulator` is one the connector's checks take
      expect(credentialProblems(c.credentials, demo.code, demo.credentials)).toEqual([]);
      expect(credentialProblems(c.credentials, sim.harness.terminal.code, sim.harness.terminal.credentials)).toEqual([]);
      expect(() => c.credentials.open(demo.code, demo.credentials)).not.toThrow();
    }
    expect(declarationOfType('PAYGATE')).toBeNull();
    expect(declarationNamed('nope')).toBeNull();
  });

  it('credential problems: the missing keys first, then the provider\'s checks', () => {
    expect(credentialProblems(declarationNamed('checkout')!.credentials, null, { secret_key: 'pk_x' })).toEqual([
      'credentials are missing: processing_channel_id, webhook_signature_key',
      expect.stringContaining('credentials.secret_key'),
    ]);
  });
});
