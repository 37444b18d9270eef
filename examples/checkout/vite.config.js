import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    // No inline scripts or styles, so server.mjs can serve the page under a strict
    // Content-Security-Policy; no module preload polyfill either (it would be inline code).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
