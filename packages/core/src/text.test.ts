import { describe, expect, it } from '@jest/globals';
import { withoutTraces } from './text.js';

/** Gemini CLI's stderr for a personal Google sign-in since 2026-06-18 (shape as recorded; paths as on a user's machine). */
const GEMINI_RETIRED = `Error authenticating: IneligibleTierError: This client is no longer supported for Gemini Code Assist for individuals. Learn more at https://goo.gle/gemini-cli-personal
    at setupUser (file:///home/ada/.nvm/versions/node/v22.1.0/lib/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:311457:19)
    at async createContentGenerator (file:///home/ada/.nvm/versions/node/v22.1.0/lib/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:288018:23)
    at async Config.refreshAuth (file:///home/ada/.nvm/versions/node/v22.1.0/lib/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:333001:24) {
  reason: 'INELIGIBLE'
}`;

describe('withoutTraces', () => {
  it('keeps the useful first line of a CLI failure and drops its stack trace', () => {
    expect(withoutTraces(GEMINI_RETIRED)).toBe(
      'Error authenticating: IneligibleTierError: This client is no longer supported for Gemini Code Assist for individuals. Learn more at https://goo.gle/gemini-cli-personal',
    );
  });

  it('replaces local paths, leaves URLs and plain words alone', () => {
    expect(withoutTraces('Full report available at: /tmp/gemini-client-error-Turn.json (see C:\\Users\\ada\\log.txt)')).toBe(
      'Full report available at: <path> (see <path>)',
    );
    expect(withoutTraces('failed at file:///home/ada/x/y.js and "/home/ada/.copilot/config.json"')).toBe('failed at <path> and "<path>"');
    expect(
      withoutTraces('Authentication failed with provider at http://127.0.0.1:44207/v1/chat (HTTP 401); see https://github.com/a/b'),
    ).toBe('Authentication failed with provider at http://127.0.0.1:44207/v1/chat (HTTP 401); see https://github.com/a/b');
    expect(withoutTraces('rate limited: 5 requests/minute, try again in 2s')).toBe('rate limited: 5 requests/minute, try again in 2s');
  });
});
