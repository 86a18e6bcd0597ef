import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { makeTempDir } from '@toolbridge/test-suite/kit';

/** Debian's Chromium (scripts/install-chromium.mjs); Playwright's own browser downloads are never used. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Flags for a quiet headless Chromium: without the background-networking ones
 * it keeps calling home, which on a machine without a network only burns time.
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile in a temporary directory, removed by `close()`. */
export async function launchChromium(
  options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<Chromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing: run \`node scripts/install-chromium.mjs\` (the test command does) or \`apt-get install -y chromium\``,
    );
  }
  const profile = await makeTempDir('toolbridge-chromium-');
  try {
    // A persistent context is how Playwright takes a user-data-dir of our choosing.
    const context = await chromium.launchPersistentContext(profile.dir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      viewport: options.viewport ?? { width: 1280, height: 900 },
      colorScheme: options.colorScheme ?? 'light',
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    return {
      context,
      async close() {
        await context.close();
        await profile.cleanup();
      },
    };
  } catch (e) {
    await profile.cleanup();
    throw e;
  }
}
