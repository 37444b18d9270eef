import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import relay from 'vite-plugin-relay';

export default defineConfig({
  plugins: [relay, react()],
  // A fixed origin, so the gateway's CORS list can name it.
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
});
