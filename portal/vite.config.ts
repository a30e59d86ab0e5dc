/**
 * The portal's build (`npm run build` runs it after tsc): Preact + TypeScript, served by the server at
 * /webPDF/ from dist/portal (the server side serves hashed assets as immutable, index.html no-cache).
 * No node APIs here, so the portal's tsconfig needs no node types: paths are resolved from this file's URL.
 */
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const here = new URL('.', import.meta.url).pathname;

export default defineConfig({
  root: here,
  base: '/webPDF/',
  plugins: [preact()],
  build: {
    outDir: `${here}../dist/portal`,
    emptyOutDir: true,
    // The CSP allows no inline script: the module preload polyfill goes into the entry chunk, not inline.
    modulePreload: { polyfill: false },
    // A 2 KB icon inlined as data: would be fine under img-src, but fonts/CSS must stay files (style-src 'self').
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 1600,
    reportCompressedSize: true,
  },
});
