import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createAcpFace, type AcpFaceOptions } from './acp.js';
import type { StdioStreams } from './mcp-stdio.js';

/** Serve ACP over stdio (`toolbridge acp`) until the editor closes the connection or `shutdown` resolves. */
export async function serveAcpStdio(options: AcpFaceOptions, io: StdioStreams): Promise<void> {
  const stream = ndJsonStream(
    Writable.toWeb(io.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = createAcpFace(options).connect(stream);
  await Promise.race([connection.closed, ...(io.shutdown ? [io.shutdown] : [])]);
  connection.close();
}
