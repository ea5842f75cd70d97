/** The SMTP URL the mailer connects with: pooled unless the operator's URL says otherwise. */
import { describe, expect, it } from 'vitest';
import { pooledSmtpUrl } from '../../src/platform/mail/outbox.js';

describe('pooledSmtpUrl', () => {
  it('turns the pool on, keeping credentials (encoded), host, port and other options', () => {
    expect(pooledSmtpUrl('smtp://mailer:p%40ss@mail.example.com:587')).toBe('smtp://mailer:p%40ss@mail.example.com:587?pool=true');
    expect(pooledSmtpUrl('smtps://mail.example.com?maxConnections=2')).toBe('smtps://mail.example.com?maxConnections=2&pool=true');
  });

  it('leaves a URL that chooses for itself as it is', () => {
    expect(pooledSmtpUrl('smtp://mail.example.com:25?pool=false')).toBe('smtp://mail.example.com:25?pool=false');
    expect(pooledSmtpUrl('smtp://mail.example.com:25?pool=true')).toBe('smtp://mail.example.com:25?pool=true');
  });
});
