/** Helpers of the page tests: open a page, read its form nonce, post its form. */
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function pagePath(order: { token: string }, kind: 'process' | 'tokenized' | 'bizum' | 'checkout' = 'process', env: 'sandbox' | 'production' = 'sandbox') {
  return `${env === 'sandbox' ? '/v1/sandbox' : '/v1'}/payment/${kind}/${order.token}`;
}

export function nonceOf(body: string): string {
  const m = /name="nonce" value="([^"]+)"/.exec(body);
  if (!m) throw new Error(`no form nonce in the page:\n${body.slice(0, 2000)}`);
  return m[1];
}

/** Text of the first <h1>. */
export function h1(body: string): string {
  return /<h1>([^<]*)<\/h1>/.exec(body)?.[1] ?? '';
}

export async function open(t: TestApp, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers });
}

export async function post(t: TestApp, url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload: new URLSearchParams(fields).toString() });
}

export const CARD = { holder: 'Ana Pérez', number: '4548 8120 4940 0004', expiry: '12/30', cvv: '123' };

/** Opens the card page and posts the card; returns the POST answer. */
export async function payOnPage(t: TestApp, url: string, card: Partial<typeof CARD> = {}): Promise<LightMyRequestResponse> {
  const page = await open(t, url);
  if (page.statusCode !== 200) throw new Error(`page answered ${page.statusCode}: ${h1(page.body)}`);
  return post(t, url, { nonce: nonceOf(page.body), ...CARD, ...card });
}
