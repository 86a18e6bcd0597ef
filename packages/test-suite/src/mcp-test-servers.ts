import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startMockHttp, type MockHttpServer } from './mock-http.js';

/**
 * A tiny stdio MCP server (newline-delimited JSON-RPC, no SDK) with one tool, `lookup {key}`, that
 * answers `lookup answers <key>` and appends `called <key>` to the file in its `MCP_MARKS` env, so
 * a test can prove an agent really called it. Enough of MCP for the real CLIs: initialize, ping,
 * tools/list, tools/call; other requests get "method not found", notifications are ignored.
 */
const SERVER = `
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const tool = {
  name: 'lookup',
  description: 'Looks a key up in the test catalogue.',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
};
createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  switch (m.method) {
    case 'initialize':
      return send({ id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1.0.0' } } });
    case 'ping':
      return send({ id: m.id, result: {} });
    case 'tools/list':
      return send({ id: m.id, result: { tools: [tool] } });
    case 'tools/call': {
      const key = String(m.params?.arguments?.key ?? '');
      if (process.env.MCP_MARKS) appendFileSync(process.env.MCP_MARKS, 'called ' + key + '\\n');
      return send({ id: m.id, result: { content: [{ type: 'text', text: 'lookup answers ' + key }] } });
    }
    default:
      return send({ id: m.id, error: { code: -32601, message: 'method not found' } });
  }
});
`;

/** Writes the server into `dir`; returns the `mcpServers` entry that starts it (`marks`: the file its calls are noted in). */
export async function writeStdioMcpServer(
  dir: string,
  name: string,
  marks: string,
  extraEnv: Record<string, string> = {},
): Promise<{ name: string; command: string; args: string[]; env: Record<string, string> }> {
  const file = path.join(dir, `${name}-mcp-server.mjs`);
  await writeFile(file, SERVER);
  return { name, command: process.execPath, args: [file], env: { MCP_MARKS: marks, ...extraEnv } };
}

/**
 * The same tool over Streamable HTTP (plain JSON answers, which the transport allows): for agents
 * that take only `url` servers from a client (Copilot over ACP). `calls` lists each call's key;
 * `requests` shows the headers the agent sent (a server's `headers` entry).
 */
export async function startHttpMcpServer(): Promise<MockHttpServer & { calls: string[] }> {
  const calls: string[] = [];
  const tool = {
    name: 'lookup',
    description: 'Looks a key up in the test catalogue.',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  };
  const server = await startMockHttp((x) => {
    if (x.request.method !== 'POST') return x.json(405, { error: 'POST only' });
    const m = x.request.json as { id?: unknown; method?: string; params?: any } | undefined;
    if (!m || m.id === undefined) return x.json(202, {});
    const answer = (result: unknown) => x.json(200, { jsonrpc: '2.0', id: m.id, result });
    switch (m.method) {
      case 'initialize':
        return answer({
          protocolVersion: m.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'tiny', version: '1.0.0' },
        });
      case 'tools/list':
        return answer({ tools: [tool] });
      case 'tools/call': {
        const key = String(m.params?.arguments?.key ?? '');
        calls.push(key);
        return answer({ content: [{ type: 'text', text: `lookup answers ${key}` }] });
      }
      case 'ping':
        return answer({});
      default:
        return x.json(200, { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'method not found' } });
    }
  });
  return Object.assign(server, { calls });
}
