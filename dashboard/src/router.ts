/** A small router on the History API: the dashboard's paths live under /dashboard. */
import { useSyncExternalStore } from 'react';

const BASE = '/dashboard';
const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(to: string) {
  window.history.pushState(null, '', `${BASE}${to}`);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The path inside the dashboard (`/payments`, `/payments/<uuid>`), with its query string. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname.slice(BASE.length) + window.location.search || '/');
}
