/** The test helpers that keep the suite honest: the card scan's Luhn rule and the run's seed. */
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../helpers/capture.js';
import { TEST_SEED, rng } from '../helpers/seed.js';

describe('card scan: only Luhn-valid numbers are card numbers', () => {
  it('accepts real test card numbers and refuses digit runs that fail the check', () => {
    for (const pan of ['4548812049400004', '378282246310005', '4242424242424242', '5555555555554444']) expect(luhnValid(pan), pan).toBe(true);
    // typed by a fuzz test into a customer field: not a card number
    for (const s of ['1234567812345678', '4548812049400005', '12345678901', '4548 8120 4940 0004']) expect(luhnValid(s), s).toBe(false);
  });
});

describe('the run seed', () => {
  it('comes from PAYGATE_TEST_SEED (set once per run by the config) and drives a reproducible generator', () => {
    expect(String(TEST_SEED)).toBe(process.env.PAYGATE_TEST_SEED);
    const a = rng(42);
    const b = rng(42);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(rng(43)()).not.toBe(xs[0]);
  });
});

describe('embedded-database templates of killed runs', () => {
  it('are removed once over a day old; a recent one (another run still going) and other files stay', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { removeStaleTemplates, STALE_AFTER_MS } = await import('../helpers/pgdata-template.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stale-templates-'));
    try {
      const now = Date.now();
      const make = (name: string, ageMs: number) => {
        fs.mkdirSync(path.join(dir, name, 'base'), { recursive: true });
        fs.writeFileSync(path.join(dir, name, 'PG_VERSION'), '16');
        const t = new Date(now - ageMs);
        fs.utimesSync(path.join(dir, name), t, t);
      };
      make('paygate-pgdata-killedrun', STALE_AFTER_MS + 60_000);
      make('paygate-pgdata-killedrun.partial-abc', STALE_AFTER_MS * 3);
      make('paygate-pgdata-running', STALE_AFTER_MS - 60_000);
      make('someone-elses-dir', STALE_AFTER_MS * 3);
      expect(removeStaleTemplates(now, STALE_AFTER_MS, dir).sort()).toEqual(['paygate-pgdata-killedrun', 'paygate-pgdata-killedrun.partial-abc']);
      expect(fs.readdirSync(dir).sort()).toEqual(['paygate-pgdata-running', 'someone-elses-dir']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
