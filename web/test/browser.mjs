// Debian's Chromium (never a downloaded browser) driven by playwright-core,
// headless, with a fresh profile: shared by the browser tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.SHREW_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Launches Chromium with a new profile directory; `close()` closes it and
 * deletes the profile. `options` are extra launchPersistentContext options.
 * With `profileDir`, that directory is the profile and outlives `close()`
 * (a later launch sees its HTTP and code caches: a repeat visit).
 */
export async function launchBrowser(options = {}, { profileDir } = {}) {
  const profile = profileDir ?? mkdtempSync(join(tmpdir(), "shrew-browser-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--no-first-run", "--disable-quic"],
    ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      if (profileDir === undefined) rmSync(profile, { recursive: true, force: true });
    },
  };
}
