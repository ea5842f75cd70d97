/** The caller context of an API key: what an authenticated handler (or work done for that key) knows. */
import type { Secret } from '../security/secret.js';
import type { Vault } from '../security/vault.js';
import { merchantClock, type Clock } from '../time/clock.js';
import type { AuthKey, RequestContext } from './types.js';

export function requestContext(key: AuthKey, opts: { timezone: string; clock: Clock; vault: Vault }): RequestContext {
  let sig: Secret<string> | null = null;
  return {
    env: key.env,
    timezone: opts.timezone,
    keyId: key.keyId,
    profiles: key.profiles,
    merchant: key.merchant,
    clock: merchantClock(opts.clock, key.env === 'sandbox' ? key.merchant.clockOffsetMs : 0),
    signature: () => (sig ??= opts.vault.open(key.signatureSealed, `signature:${key.keyId}`)),
  };
}
