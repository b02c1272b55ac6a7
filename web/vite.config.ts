// The playground is a static site: `vite` serves web/ in development,
// `vite build` writes web/dist with relative URLs so it works from any
// static host or sub-path. The wasm module is a Vite asset (see worker.ts).
import { createLogger, defineConfig } from "vite";

// Rolldown's PLUGIN_TIMINGS note (time spent in Vite's own plugins) says
// more about a loaded build machine than about the playground: not shown.
const logger = createLogger();
const warn = logger.warn.bind(logger);
logger.warn = (msg, options) => {
  if (!/PLUGIN_TIMINGS/.test(msg)) warn(msg, options);
};

export default defineConfig({
  root: import.meta.dirname,
  base: "./",
  clearScreen: false,
  customLogger: logger,
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
