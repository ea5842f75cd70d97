/**
 * Issue 31 item 6: every "cannot connect now" state of the database is a 503 (isDatabaseUnavailable),
 * statement errors are not; and an outage is logged once, its end once (OutageLog).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/db/database.js';
import { OutageLog } from '../../src/platform/db/outage.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('database states that answer 503', () => {
  it.each([
    ['55000 not accepting connections', pgError('55000', 'database "shop" is not currently accepting connections')],
    ['57P03 cannot connect now', pgError('57P03', 'the database system is starting up')],
    ['53300 too many connections', pgError('53300', 'sorry, too many clients already')],
    ['53400 connection limit', pgError('53400', 'too many connections for role "paygate"')],
    ['57P01 admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['57P02 crash shutdown', pgError('57P02', 'terminating connection because of crash of another server process')],
    ['57P03 in recovery', pgError('57P03', 'the database system is in recovery mode')],
    ['57P04 database dropped', pgError('57P04', 'terminating connection because database was dropped')],
    ['08006 connection failure', pgError('08006', 'connection failure')],
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['ECONNREFUSED inside an AggregateError', new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' })], '', { cause: Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' }) })],
    ['connection terminated', new Error('Connection terminated unexpectedly')],
    ['connection timeout', new Error('timeout exceeded when trying to connect')],
    ['wrapped in a cause', new Error('query failed', { cause: pgError('57P03', 'the database system is shutting down') })],
  ])('%s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['55000 raised by a statement', pgError('55000', 'currval of sequence "s" is not yet defined in this session')],
    ['unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['syntax error', pgError('42601', 'syntax error at or near "x"')],
    ['a plain error', new Error('boom')],
  ])('not %s', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe('an outage is logged once', () => {
  afterEach(() => vi.useRealTimers());

  it('one line when it begins (however many requests fail), one when the probe finds the database again', async () => {
    vi.useFakeTimers();
    const lines: Array<{ level: string; obj: any; msg: string }> = [];
    const logger = { warn: (obj: any, msg: string) => lines.push({ level: 'warn', obj, msg }), info: (obj: any, msg: string) => lines.push({ level: 'info', obj, msg }) } as any;
    let up = false;
    const log = new OutageLog({ logger, probe: async () => up, probeMs: 1000 });
    for (let i = 0; i < 500; i++) log.unavailable(pgError('55000', 'database "shop" is not currently accepting connections'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', obj: { code: '55000' } });
    expect(lines[0].msg).toMatch(/^database unavailable/);
    await vi.advanceTimersByTimeAsync(3000);
    expect(lines).toHaveLength(1); // still down: nothing more
    up = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'database available again', obj: { refused_requests: 500 } });
    expect(log.inOutage).toBe(false);
    // the next outage is logged again
    log.unavailable(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(3);
    log.stop();
  });
});
