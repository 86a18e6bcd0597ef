import { describe, expect, it } from '@jest/globals';
import { connectEntries } from './connect.js';

describe('the Connect section', () => {
  it('shows the MCP and ACP endpoints of this bridge, and the /v1 base URL', () => {
    const entries = connectEntries('http://127.0.0.1:8787');
    expect(entries.map((e) => [e.title, e.value])).toEqual([
      ['MCP over HTTP', 'http://127.0.0.1:8787/mcp'],
      ['MCP over stdio', 'npx -y @toolbridge/bridge mcp'],
      ['ACP agent', 'npx -y @toolbridge/bridge acp'],
      ['OpenAI-compatible API', 'http://127.0.0.1:8787/v1'],
    ]);
  });
});
