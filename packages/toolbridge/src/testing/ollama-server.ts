import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OllamaChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
}

/**
 * A small server on 127.0.0.1 speaking the parts of Ollama's API the adapter
 * uses (`/api/version`, `/api/tags`, NDJSON `/api/chat`). It answers each chat
 * with `reply`, split into two chunks, and records the requests.
 */
export async function startOllamaServer(options: { models?: string[]; reply?: string } = {}) {
  const models = options.models ?? ['llama3.2:1b', 'qwen3:14b'];
  const reply = options.reply ?? 'Hello from ollama';
  const chats: OllamaChatRequest[] = [];
  const body = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? JSON.parse(text) : undefined;
  };
  const server = createServer(async (req, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET' && req.url === '/api/version') return json(200, { version: '0.9.0' });
    if (req.method === 'GET' && req.url === '/api/tags') {
      return json(200, { models: models.map((name) => ({ name, model: name, size: 1000, details: { family: 'llama' } })) });
    }
    if (req.method === 'POST' && req.url === '/api/chat') {
      const request = (await body(req)) as OllamaChatRequest;
      chats.push(request);
      if (!models.includes(request.model)) return json(404, { error: `model "${request.model}" not found, try pulling it first` });
      const created_at = new Date().toISOString();
      const half = Math.ceil(reply.length / 2);
      const chunk = (content: string) => ({ model: request.model, created_at, message: { role: 'assistant', content }, done: false });
      const lines = [chunk(reply.slice(0, half)), chunk(reply.slice(half))];
      const final = { model: request.model, created_at, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 1000, prompt_eval_count: 7, eval_count: 4 };
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (request.stream === false) {
        res.end(JSON.stringify({ ...final, message: { role: 'assistant', content: reply } }) + '\n');
        return;
      }
      for (const l of [...lines, final]) res.write(JSON.stringify(l) + '\n');
      res.end();
      return;
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
