import path from 'node:path'
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

const web = path.dirname(fileURLToPath(import.meta.url))

// The web app lives in web/ and builds into web/dist, which the API server serves.
// `vite` in web/ runs a development server that forwards /api to a local API on port 8000.
export default defineConfig({
  root: web,
  plugins: [react()],
  build: { outDir: path.join(web, 'dist'), emptyOutDir: true, sourcemap: true },
  server: {
    fs: { allow: [path.resolve(web, '..')] },
    proxy: { '/api': { target: process.env.SHOPFLOOR_URL ?? 'http://127.0.0.1:8000', changeOrigin: true } },
  },
})
