/**
 * A session idles out after PAYGATE_DASHBOARD_IDLE_MINUTES without a person's action: the live stream's
 * checks of the session (an open Payments tab) and the requests the web app marks as its own refreshes
 * (X-Dashboard-Background) are not use. The gateway's clock is the test's, moved instead of waited for.
 */
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { createUser, signedIn } from '../helpers/dashboard.js';
import { createOrder } from '../helpers/payments.js';
import { openSse } from '../helpers/sse.js';

describe('idle sessions', () => {
  it('only a person\'s request is use: the live stream\'s checks and requests marked as background do not keep a session from idling out', async () => {
    let offset = 0;
    const clock = { now: () => new Date(Date.now() + offset) };
    const ct = await createTestApp({ PAYGATE_EVENTS_STREAM_POLL_MS: '100' }, { clock });
    await ct.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const shop = await ct.merchant({ name: 'Idle Shop' });
      const u = await createUser(shop, 'VIEWER');
      const c = await signedIn(ct.app, u);
      const port = (ct.app.server.address() as { port: number }).port;
      const live = await openSse(`http://127.0.0.1:${port}/dashboard/api/live`, { cookie: c.cookieHeader().replace('__Host-paygate_dashboard', 'paygate_dashboard') });
      expect(live.status, live.text).toBe(200);
      await live.ready();
      // 20 minutes later (no person's action): a new order makes the stream check the session and say so
      offset = 20 * 60_000;
      await createOrder(shop, { reference: 'IDLE-1' });
      await live.waitEvents(1);
      // the page's own refresh, marked as background, is not use either
      expect((await c.request('GET', '/orders', { headers: { 'x-dashboard-background': '1' } })).status).toBe(200);
      // 31 minutes after the last person's action: the session has idled out (PAYGATE_DASHBOARD_IDLE_MINUTES 30)
      offset = 31 * 60_000;
      const r = await c.get('/session');
      expect(r.status).toBe(401);
      expect(r.body.details).toMatch(/without use/);
      live.close();
    } finally {
      await ct.close();
    }
  });

  it('a person\'s request is use: the session goes on', async () => {
    let offset = 0;
    const clock = { now: () => new Date(Date.now() + offset) };
    const ct = await createTestApp({}, { clock });
    try {
      const shop = await ct.merchant({ name: 'Busy Shop' });
      const c = await signedIn(ct.app, await createUser(shop, 'VIEWER'));
      offset = 20 * 60_000;
      expect((await c.get('/orders')).status).toBe(200);
      offset = 31 * 60_000;
      expect((await c.get('/session')).status).toBe(200);
    } finally {
      await ct.close();
    }
  });

});
