/**
 * The dashboard's areas in a real browser: for every D3 group, the menu holds exactly the areas its
 * permissions allow (what the server would refuse is not shown), each area it holds opens, and every
 * area page passes axe-core. The server side of the same matrix: test/http/dashboard-bridge.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { GROUPS, ROLES } from '../../src/modules/dashboard/index.js';
import { axe, chromiumOrNull, startDashboardBrowser, type DashboardBrowser } from '../helpers/dashboard-browser.js';
import type { TestMerchant } from '../helpers/app.js';

const CHROMIUM = await chromiumOrNull(import.meta.url);
const it = vitestIt.skipIf(!CHROMIUM);

/** The areas and what opens each (the web app's AREAS list, dashboard/src/areas/index.ts). */
const AREAS: { id: string; visible: (p: readonly string[]) => boolean }[] = [
  { id: 'overview', visible: (p) => p.includes('payments.read') },
  { id: 'terminal', visible: (p) => p.includes('manual.create') },
  { id: 'campaigns', visible: (p) => p.includes('moto.read') },
  { id: 'batches', visible: (p) => p.includes('batch.read') },
  { id: 'customers', visible: (p) => p.includes('cards.read') },
  { id: 'subscriptions', visible: (p) => p.includes('subscriptions.read') },
  { id: 'devices', visible: (p) => p.includes('devices.read') },
  { id: 'risk', visible: (p) => p.includes('risk.read') },
  { id: 'reconciliation', visible: (p) => p.includes('reconciliation.read') },
  { id: 'payouts', visible: (p) => p.includes('reconciliation.read') },
  { id: 'disputes', visible: (p) => p.includes('disputes.read') },
  { id: 'routing', visible: (p) => p.includes('routing.read') },
  { id: 'settings', visible: (p) => p.includes('settings.manage') || p.includes('terminals.manage') },
];

let d: DashboardBrowser;
let m: TestMerchant;

beforeAll(async () => {
  if (!CHROMIUM) return;
  d = await startDashboardBrowser(CHROMIUM);
  m = await d.t.merchant({ name: 'Areas Shop', isPci: true });
}, 120_000);
afterAll(async () => d?.close());

describe('the menu of every group', () => {
  for (const group of GROUPS) {
    it(`${group}: exactly the areas of its permissions, each one opens`, async () => {
      const { ctx, page, errors } = await d.newPage();
      await d.signIn(page, m, group);
      const expected = AREAS.filter((a) => a.visible(ROLES[group])).map((a) => a.id);
      const shown = await page.locator('[data-testid^="nav-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)));
      expect(shown).toEqual(expected);
      for (const id of expected) {
        await page.getByTestId(`nav-${id}`).click();
        await expect.poll(() => page.getByTestId(`nav-${id}`).getAttribute('aria-current')).toBe('page');
        await page.locator('#main h1').first().waitFor();
        if (group === 'MANAGER') await axe(page, `${id} (${group})`);
      }
      expect(errors).toEqual([]);
      await ctx.close();
    }, 90_000);
  }
});
