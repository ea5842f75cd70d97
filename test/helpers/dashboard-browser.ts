/**
 * What the dashboard's browser tests share: a gateway listening on a port with the dashboard, Chromium,
 * pages with their errors collected, sign-in of a D3 user (with the first password change), axe-core,
 * and screenshots into the tests' folder (test/helpers/screenshots.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { screenshotDir } from './screenshots.js';
import { chromiumForTests } from './chromium.js';
import { createTestApp, type TestApp, type TestAppOptions, type TestMerchant } from './app.js';
import { freePort } from './process.js';
import { createUser, type DashUser } from './dashboard.js';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface DashboardBrowser {
  t: TestApp;
  base: string;
  browser: Browser;
  shots: string;
  /** a new browser context and page (1280×900 unless told) that collects page errors in `errors` */
  newPage(viewport?: { width: number; height: number }): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }>;
  /** a D3 user of `m` of `group`, signed in on `page` (the generated password changed), in the sandbox */
  signIn(page: Page, m: TestMerchant, group: string, opts?: { language?: 'EN' | 'ES' | 'PT' }): Promise<DashUser>;
  close(): Promise<void>;
}

/** Null when Chromium is not on the machine (the test file skips, saying so: chromium.ts). */
export async function chromiumOrNull(url: string) {
  return chromiumForTests(url);
}

export async function startDashboardBrowser(chrome: NonNullable<Awaited<ReturnType<typeof chromiumForTests>>>, env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<DashboardBrowser> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ PAYGATE_PUBLIC_URL: base, PAYGATE_EVENTS_STREAM_POLL_MS: '200', PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000', ...env }, opts);
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({ executablePath: chrome.executablePath, args: chrome.args });
  const shots = screenshotDir();
  let n = 0;
  return {
    t,
    base,
    browser,
    shots,
    async newPage(viewport = { width: 1280, height: 900 }) {
      const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'Europe/Madrid', acceptDownloads: true });
      const page = await ctx.newPage();
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && !/40[0-9]|Failed to load resource/.test(m.text()) && errors.push(m.text()));
      return { ctx, page, errors };
    },
    async signIn(page, m, group, opts = {}) {
      const u = await createUser(m, group, { language: opts.language ?? 'EN', username: `staff${Date.now().toString(36)}${n++}` });
      await page.goto(`${base}/dashboard`);
      await page.getByLabel(/Username or e-mail|Usuario o e-mail|Utilizador ou e-mail/).fill(u.username);
      await page.getByLabel(/^(Password|Contraseña|Palavra-passe)$/).fill(u.password);
      await page.getByRole('button', { name: /Sign in|Entrar/ }).click();
      await page.getByLabel(/^(Current password|Contraseña actual|Palavra-passe atual)$/).waitFor();
      const next = 'a long staff passphrase 2026';
      await page.getByLabel(/^(Current password|Contraseña actual|Palavra-passe atual)$/).fill(u.password);
      await page.getByLabel(/^(New password|Nueva contraseña|Nova palavra-passe)$/).fill(next);
      await page.getByLabel(/^(Repeat the new password|Repite la nueva contraseña|Repita a nova palavra-passe)$/).fill(next);
      await page.getByRole('button', { name: /Save and continue|Guardar y seguir|Guardar e continuar/ }).click();
      u.password = next;
      await page.locator('#main').waitFor();
      return u;
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** axe-core in the page: no serious or critical violation. */
export async function axe(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE);
  const result: any = await page.evaluate('axe.run(document, { resultTypes: ["violations"] })');
  const serious = result.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join('; ')})`), what).toEqual([]);
}

/** A full-page screenshot into the tests' folder (docs/screenshots with `npm run screenshots`). */
export async function shot(page: Page, shots: string, name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, name), fullPage: true, animations: 'disabled', caret: 'hide' });
}

/** Goes to a dashboard path through the app's own navigation (no reload). */
export async function openArea(page: Page, base: string, pathInDashboard: string): Promise<void> {
  await page.evaluate(`window.history.pushState(null, '', ${JSON.stringify(`/dashboard${pathInDashboard}`)}); window.dispatchEvent(new PopStateEvent('popstate'));`);
  void base;
}
