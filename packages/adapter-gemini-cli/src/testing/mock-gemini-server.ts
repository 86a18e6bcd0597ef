import type { IncomingHttpHeaders } from 'node:http';
import { startMockHttp } from '@toolbridge/test-suite/kit';

/** What the mock answers one model request with. */
export type GeminiStep =
  | { kind: 'text'; chunks: string[]; usage?: Record<string, number> }
  | { kind: 'call'; calls: Array<{ name: string; args: Record<string, unknown> }> }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface GeminiRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface MockGeminiServer {
  /** For `GOOGLE_GEMINI_BASE_URL`. */
  url: string;
  /** Steps for the next model requests, in order; `fallback` once they are used up. */
  queue: GeminiStep[];
  fallback: GeminiStep;
  readonly requests: GeminiRequest[];
  /** Model requests (`:streamGenerateContent`) only. */
  modelRequests(): GeminiRequest[];
  close(): Promise<void>;
}

export const USAGE = {
  promptTokenCount: 20,
  candidatesTokenCount: 7,
  totalTokenCount: 29,
  cachedContentTokenCount: 5,
  thoughtsTokenCount: 2,
};
export const HELLO: GeminiStep = { kind: 'text', chunks: ['Hello ', 'from ', 'mock'] };

/** Error bodies as the Gemini API sends them. */
export const API_ERRORS = {
  401: {
    error: {
      code: 401,
      message: 'API key not valid. Please pass a valid API key.',
      status: 'UNAUTHENTICATED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
    },
  },
  429: {
    error: {
      code: 429,
      message: 'Resource has been exhausted (e.g. check quota).',
      status: 'RESOURCE_EXHAUSTED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
    },
  },
  '429-daily': {
    error: {
      code: 429,
      message: 'You exceeded your current quota, please check your plan and billing details.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
            },
          ],
        },
      ],
    },
  },
  500: { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } },
};

function chunksOf(step: GeminiStep): unknown[] {
  const base = { modelVersion: 'mock-model', responseId: 'mock-response' };
  if (step.kind === 'text') {
    return step.chunks.map((text, i) => {
      const last = i === step.chunks.length - 1;
      return {
        ...base,
        candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
        ...(last ? { usageMetadata: step.usage ?? USAGE } : {}),
      };
    });
  }
  if (step.kind === 'call') {
    const parts = step.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } }));
    return [{ ...base, candidates: [{ content: { role: 'model', parts }, index: 0, finishReason: 'STOP' }], usageMetadata: USAGE }];
  }
  return [];
}

/**
 * The Gemini API as Gemini CLI uses it, on 127.0.0.1 (a handler on the test kit's mock HTTP
 * server): `:streamGenerateContent?alt=sse` (one request per model turn), `:generateContent`,
 * `:countTokens` (before a prompt with an image). Every request is recorded.
 */
export async function startMockGeminiServer(fallback: GeminiStep = HELLO): Promise<MockGeminiServer> {
  const requests: GeminiRequest[] = [];
  const mock = { queue: [] as GeminiStep[], fallback };
  const server = await startMockHttp((x) => {
    const { method, url, headers, json, raw } = x.request;
    requests.push({ method, url, headers, body: json ?? (raw || undefined) });
    if (url.includes(':countTokens')) return x.json(200, { totalTokens: 42 });
    if (!url.includes(':streamGenerateContent') && !url.includes(':generateContent')) {
      return x.json(404, { error: { code: 404, message: 'not found (mock)', status: 'NOT_FOUND' } });
    }
    const step = mock.queue.shift() ?? mock.fallback;
    if (step.kind === 'hang') return x.hang();
    if (step.kind === 'error') return x.json(step.status, step.body, step.headers);
    const chunks = chunksOf(step);
    if (url.includes(':generateContent')) return x.json(200, chunks.at(-1));
    x.sse();
    // The real API ends each event with CRLFs.
    for (const c of chunks) x.res.write(`data: ${JSON.stringify(c)}\r\n\r\n`);
    x.res.end();
  });
  return Object.assign(mock, {
    url: server.url,
    requests,
    modelRequests: () => requests.filter((r) => r.url.includes(':streamGenerateContent')),
    close: () => server.close(),
  });
}
