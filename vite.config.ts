// Vite: the app (index.html → src/ui/main.tsx) and its two workers (the
// engine, Monaco's editor worker), both as ES module workers. Fixed hosts and
// ports so `npm start` and the Playwright webServer are predictable. The
// Content-Security-Policy (meta tag, preview headers) is scripts/vite-csp.ts.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { systemHeaders } from './scripts/vite-system-headers';
import { csp } from './scripts/vite-csp';
import { preloadFirstScreen } from './scripts/vite-preload';

export default defineConfig({
  plugins: [react(), systemHeaders(), csp(), preloadFirstScreen()],
  worker: { format: 'es', plugins: () => [systemHeaders()] },
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4000 },
});
