/**
 * The dashboard web app's build: React with Vite, served by the gateway at /dashboard (assets under
 * /dashboard/assets). Built by scripts/build-dashboard.mjs; no dev server is needed (the gateway serves
 * the build), though `npx vite dashboard` with a proxy to a running gateway works for quick UI work.
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1000,
  },
  server: { proxy: { '/dashboard/api': 'http://127.0.0.1:8080' } },
});
