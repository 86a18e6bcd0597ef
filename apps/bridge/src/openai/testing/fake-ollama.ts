import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOllama {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Bodies of every `/api/chat` request. */
  chats: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A small server speaking Ollama's HTTP API as documented in cli-facts.md:
 * `/api/version`, `/api/tags`, and `/api/chat` answering NDJSON chunks, one
 * per word of the reply, then a final `done` chunk with token counts. Unknown
 * models get Ollama's 404 `{"error":"model '...' not found"}`.
 */
export async function startFakeOllama(options: { models: string[]; reply: (model: string) => string; delayMs?: number }): Promise<FakeOllama> {
  const chats: Array<Record<string, unknown>> = [];
  const read = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return JSON.parse(text || '{}') as Record<string, unknown>;
  };
  const server: Server = createServer(async (req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/api/version') return json(200, { version: '0.12.6' });
    if (req.method === 'GET' && req.url === '/api/tags') {
      return json(200, {
        models: options.models.map((name) => ({ name, model: name, size: 1000, digest: 'sha256:0', details: { family: 'test' } })),
      });
    }
    if (req.method === 'POST' && req.url === '/api/chat') {
      const body = await read(req);
      chats.push(body);
      // Like Ollama, a name without a tag means its `:latest` tag.
      const model = String(body.model).includes(':') ? String(body.model) : `${String(body.model)}:latest`;
      if (!options.models.includes(model)) return json(404, { error: `model '${model}' not found` });
      const words = options.reply(model).split(/(?<= )/);
      const chunk = (extra: Record<string, unknown>) => JSON.stringify({ model, created_at: new Date().toISOString(), ...extra }) + '\n';
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const word of words) {
        res.write(chunk({ message: { role: 'assistant', content: word }, done: false }));
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      }
      res.end(
        chunk({
          message: { role: 'assistant', content: '' },
          done: true,
          done_reason: 'stop',
          total_duration: 1_000_000,
          prompt_eval_count: 21,
          eval_count: words.length,
        }),
      );
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
