import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpFace, type McpFaceOptions } from './mcp.js';

export interface StdioStreams {
  stdin: Readable;
  stdout: Writable;
  /** Resolves when the server should stop besides the host closing stdin (a signal). */
  shutdown?: Promise<unknown>;
}

/** Serve MCP over stdio (`toolbridge mcp`) until the host closes stdin or `shutdown` resolves. */
export async function serveMcpStdio(options: McpFaceOptions, io: StdioStreams): Promise<void> {
  const server = createMcpFace(options);
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  // The SDK's stdio transport does not notice the end of stdin: a host quits by closing it.
  const ended = new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
  });
  await server.connect(transport);
  await Promise.race([ended, ...(io.shutdown ? [io.shutdown] : [])]);
  await server.close();
}
