import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.databaseUrl).toBeNull();
    expect(c.timezone).toBe('Europe/Madrid');
    // decisions §8: 1000 requests per second per key in both environments; unknown keys per client IP
    expect(c.rateLimitProduction).toBe(1000);
    expect(c.rateLimitSandbox).toBe(1000);
    expect(c.rateLimitUnknownKey).toBe(20);
    expect(c.customerTokenTtlS).toBe(3600);
    // 0 disables a limit
    expect(loadConfig({ PAYGATE_RATE_LIMIT_SANDBOX: '0', PAYGATE_RATE_LIMIT_UNKNOWN_KEY: '0' })).toMatchObject({ rateLimitSandbox: 0, rateLimitUnknownKey: 0 });
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('names every bad setting at once', () => {
    try {
      loadConfig({ PORT: 'eighty', PAYGATE_TIMEZONE: 'Mars/Base', DATABASE_URL: 'mysql://x', PAYGATE_TLS_CERT: '/c.pem', PAYGATE_RATE_LIMIT_SANDBOX: '-1' });
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const text = (err as Error).message;
      for (const name of ['PORT', 'PAYGATE_TIMEZONE', 'DATABASE_URL', 'PAYGATE_TLS_KEY', 'PAYGATE_RATE_LIMIT_SANDBOX']) expect(text).toContain(name);
    }
  });

  it('PAYGATE_REDSYS_URL: the production host by default, any http(s) base URL, nothing else', () => {
    expect(loadConfig({}).connectorUrls.redsys).toBe('https://sis.redsys.es');
    expect(loadConfig({ PAYGATE_REDSYS_URL: 'https://sis-t.redsys.es:25443/' }).connectorUrls.redsys).toBe('https://sis-t.redsys.es:25443');
    expect(() => loadConfig({ PAYGATE_REDSYS_URL: 'ftp://sis.redsys.es' })).toThrow(/PAYGATE_REDSYS_URL/);
    expect(() => loadConfig({ PAYGATE_REDSYS_URL: 'https://user:pw@sis.redsys.es' })).toThrow(/PAYGATE_REDSYS_URL/);
  });

  it('every connector of the list has its PAYGATE_<NAME>_URL: its production default, the operator\'s URL, documented', () => {
    const config = loadConfig({ PAYGATE_CHECKOUT_URL: 'https://api.sandbox.checkout.com/' });
    expect(config.connectorUrls).toEqual({ redsys: 'https://sis.redsys.es', checkout: 'https://api.sandbox.checkout.com', paypal: 'https://api-m.paypal.com', cybersource: 'https://api.cybersource.com', worldpay: 'https://access.worldpay.com', nuvei: 'https://secure.safecharge.com', credorax: 'https://assigned-subdomain.credorax.net/crax_gate/service/gateway', trustpayments: 'https://webservices.securetrading.net', clearhaus: 'https://gateway.clearhaus.com' });
    expect(() => loadConfig({ PAYGATE_PAYPAL_URL: 'nope' })).toThrow(/PAYGATE_PAYPAL_URL/);
  });

  it('reads trusted proxies as a list', () => {
    expect(loadConfig({ PAYGATE_TRUST_PROXY: '10.0.0.1, 10.0.0.0/8' }).trustProxy).toEqual(['10.0.0.1', '10.0.0.0/8']);
    expect(loadConfig({ PAYGATE_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });
});

describe('documentation', () => {
  it('docs/operations.md lists every setting the gateway reads', async () => {
    const fs = await import('node:fs');
    const { CONFIG_VARIABLES } = await import('../../src/config/config.js');
    const doc = fs.readFileSync('docs/operations.md', 'utf8');
    for (const [names] of CONFIG_VARIABLES) for (const name of names.split(' / ')) expect(doc, name).toContain(`\`${name}\``);
  });
});

describe('warnings at start', () => {
  it('PAYGATE_TRUST_PROXY=true is warned about; a list of proxies is not', async () => {
    const { configWarnings } = await import('../../src/config/config.js');
    expect(configWarnings(loadConfig({ PAYGATE_TRUST_PROXY: 'true' })).join('\n')).toMatch(/PAYGATE_TRUST_PROXY=true trusts X-Forwarded-\* headers from every hop/);
    expect(configWarnings(loadConfig({ PAYGATE_TRUST_PROXY: '10.0.0.5,192.168.0.0/16' }))).toEqual([]);
    expect(configWarnings(loadConfig({}))).toEqual([]);
  });

  it('sandbox loopback on a gateway reachable beyond loopback is warned about', async () => {
    const { configWarnings } = await import('../../src/config/config.js');
    expect(configWarnings(loadConfig({ HOST: '0.0.0.0', PAYGATE_OUTGOING_SANDBOX_LOOPBACK: 'true' })).join('\n')).toMatch(/PAYGATE_OUTGOING_SANDBOX_LOOPBACK/);
  });
});
