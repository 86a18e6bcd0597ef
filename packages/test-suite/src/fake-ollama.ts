import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOllamaOptions {
  /** Installed models (default `llama3.2:1b`, `qwen3:14b`). */
  models?: string[];
  /** The answer, fixed or per model (default "Hello from ollama"). */
  reply?: string | ((model: string) => string);
  /** Pause between NDJSON chunks. */
  delayMs?: number;
  version?: string;
}

export interface FakeOllama {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Bodies of every `/api/chat` request, in order. */
  chats: Array<{ model: string; messages: Array<{ role: string; content: string }>; stream?: boolean; [k: string]: unknown }>;
  close(): Promise<void>;
}

/**
 * A server on 127.0.0.1 speaking the parts of Ollama's API that Toolbridge uses
 * (`/api/version`, `/api/tags`, NDJSON `/api/chat`, one chunk per word, then a
 * final `done` chunk with token counts). Unknown models get Ollama's 404; a name
 * without a tag means its `:latest` tag, as in Ollama. The Ollama adapter's own
 * tests use a fuller fake with failure modes (packages/adapter-ollama).
 */
export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = options.models ?? ['llama3.2:1b', 'qwen3:14b'];
  const replyFor = (model: string) => (typeof options.reply === 'function' ? options.reply(model) : (options.reply ?? 'Hello from ollama'));
  const chats: FakeOllama['chats'] = [];
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return JSON.parse(text || '{}') as FakeOllama['chats'][number];
  };
  const server = createServer(async (req, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET' && req.url === '/api/version') return json(200, { version: options.version ?? '0.9.0' });
    if (req.method === 'GET' && req.url === '/api/tags') {
      return json(200, {
        models: models.map((name) => ({ name, model: name, size: 1000, digest: 'sha256:0', details: { family: 'llama' } })),
      });
    }
    if (req.method === 'POST' && req.url === '/api/chat') {
      const body = await read(req);
      chats.push(body);
      const model = models.includes(body.model) ? body.model : String(body.model).includes(':') ? body.model : `${body.model}:latest`;
      if (!models.includes(model)) return json(404, { error: `model "${body.model}" not found, try pulling it first` });
      const reply = replyFor(model);
      const words = reply.split(/(?<= )/);
      const created_at = new Date().toISOString();
      const final = {
        model,
        created_at,
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        total_duration: 1_000_000,
        prompt_eval_count: 21,
        eval_count: words.length,
      };
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (body.stream === false) {
        res.end(JSON.stringify({ ...final, message: { role: 'assistant', content: reply } }) + '\n');
        return;
      }
      for (const word of words) {
        res.write(JSON.stringify({ model, created_at, message: { role: 'assistant', content: word }, done: false }) + '\n');
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      }
      res.end(JSON.stringify(final) + '\n');
      return;
    }
    json(404, { error: 'not found' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
