import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startMockHttp, type MockRequest } from '@toolbridge/test-suite/kit';

/** One window of the backend's `GET /wham/usage` answer (the mock adds `reset_after_seconds`). */
export interface WhamWindow {
  /** An integer: Codex reads it as one (a fraction fails the whole read). */
  used_percent: number;
  limit_window_seconds: number;
  reset_at: number;
}

/** The usage `GET /backend-api/wham/usage` answers with. */
export interface WhamUsage {
  plan_type: string;
  primary?: WhamWindow;
  secondary?: WhamWindow;
}

/** What `GET /backend-api/wham/usage` answers: the usage, or an HTTP error. */
export type WhamAnswer = WhamUsage | { status: number; body: unknown };

export interface MockChatGptBackend {
  /** `http://127.0.0.1:PORT/backend-api/`: Codex's `chatgpt_base_url`. */
  readonly baseUrl: string;
  /** Every request: the usage reads, and the plugin lists Codex asks for at start-up (answered 404). */
  readonly requests: MockRequest[];
  /** The usage reads only. */
  usageRequests(): MockRequest[];
  answer: WhamAnswer;
  /** The access token the fake login holds (Codex sends it as `Authorization: Bearer …`). */
  readonly accessToken: string;
  readonly accountId: string;
  /** Log Codex in with ChatGPT: a fake `auth.json` (an unsigned id token, as Codex's own tests write) and `chatgpt_base_url` → this mock. */
  logInWithChatGpt(codexHome: string): Promise<void>;
  /** Log Codex in with an API key instead (`auth.json` holding `OPENAI_API_KEY`), still pointing at this mock. */
  logInWithApiKey(codexHome: string): Promise<void>;
  close(): Promise<void>;
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * A mock of the ChatGPT backend Codex reads its rate limits from with a ChatGPT login
 * (`GET {chatgpt_base_url}/wham/usage`, bearer access token and `ChatGPT-Account-Id`; Codex
 * 0.169's backend client, `codex-rs/backend-client`): the same answer shape as chatgpt.com
 * (`rate_limit.primary_window` / `secondary_window`: `used_percent`, `limit_window_seconds`,
 * `reset_at` in epoch seconds). Every request is recorded.
 */
export async function startMockChatGptBackend(answer: WhamAnswer): Promise<MockChatGptBackend> {
  const state = { answer };
  const accessToken = 'mock-chatgpt-access-token';
  const accountId = 'mock-account-1';
  const http = await startMockHttp((x) => {
    if (x.request.method !== 'GET' || x.request.path !== '/backend-api/wham/usage') return x.json(404, { detail: 'Not Found' });
    const a = state.answer;
    if ('status' in a) return x.json(a.status, a.body);
    // Every field Codex 0.169 requires (without `reset_after_seconds` the read fails to decode).
    const window = (w: WhamWindow | undefined) =>
      w ? { ...w, reset_after_seconds: Math.max(0, w.reset_at - Math.floor(Date.now() / 1000)) } : null;
    x.json(200, {
      plan_type: a.plan_type,
      rate_limit: { allowed: true, limit_reached: false, primary_window: window(a.primary), secondary_window: window(a.secondary) },
      credits: null,
    });
  });
  const baseUrl = `${http.url}/backend-api/`;
  /** `chatgpt_base_url` is a top-level key: it goes before the config's first table. */
  const pointAtMock = async (codexHome: string) => {
    const file = path.join(codexHome, 'config.toml');
    const config = await readFile(file, 'utf8').catch(() => '');
    await writeFile(file, `chatgpt_base_url = "${baseUrl}"\n${config}`);
  };
  return {
    baseUrl,
    requests: http.requests,
    usageRequests: () => http.requests.filter((r) => r.path === '/backend-api/wham/usage'),
    get answer() {
      return state.answer;
    },
    set answer(a: WhamAnswer) {
      state.answer = a;
    },
    accessToken,
    accountId,
    async logInWithChatGpt(codexHome) {
      const claims = {
        email: 'mock@example.com',
        'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_user_id: 'user-mock', chatgpt_account_id: accountId },
      };
      const idToken = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.${Buffer.from('signature').toString('base64url')}`;
      const auth = {
        auth_mode: 'chatgpt',
        OPENAI_API_KEY: null,
        tokens: { id_token: idToken, access_token: accessToken, refresh_token: 'mock-refresh-token', account_id: accountId },
        // Fresh, so Codex has no cause to refresh it (against auth.openai.com) first.
        last_refresh: new Date().toISOString(),
      };
      await writeFile(path.join(codexHome, 'auth.json'), JSON.stringify(auth), { mode: 0o600 });
      await pointAtMock(codexHome);
    },
    async logInWithApiKey(codexHome) {
      await writeFile(path.join(codexHome, 'auth.json'), JSON.stringify({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-mock' }), {
        mode: 0o600,
      });
      await pointAtMock(codexHome);
    },
    close: () => http.close(),
  };
}
