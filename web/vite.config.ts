// The playground is a static site: `vite` serves web/ in development,
// `vite build` writes web/dist with relative URLs so it works from any
// static host or sub-path. The wasm module is a Vite asset (see worker.ts).
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "./",
  clearScreen: false,
  server: { host: "127.0.0.1", port: 5173, fs: { allow: [".."] } },
  preview: { host: "127.0.0.1", port: 4173 },
  worker: { format: "es" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 2048,
  },
});
