import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { Toolbridge } from 'toolbridge';
import { createOpenAIRouter, type OpenAIRouterOptions } from '../router.js';

export interface OpenAIServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseURL: string;
  /** The official client, retries off so each call is one request. */
  client: OpenAI;
  close(): Promise<void>;
}

/**
 * A real Express server on an ephemeral loopback port with the router at
 * `/v1`, the way the bridge mounts it. `parseJson: false` leaves body parsing
 * to the router (a parent app without express.json()).
 */
export async function serveOpenAI(
  toolbridge: Pick<Toolbridge, 'registry' | 'chatWith' | 'streamWith'>,
  options: Omit<OpenAIRouterOptions, 'toolbridge'> & { parseJson?: boolean } = {},
): Promise<OpenAIServer> {
  const { parseJson = true, ...routerOptions } = options;
  const app = express();
  if (parseJson) app.use(express.json());
  app.use('/v1', createOpenAIRouter({ toolbridge, ...routerOptions }));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    baseURL,
    client: new OpenAI({ apiKey: 'test-token', baseURL, maxRetries: 0 }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Read a raw SSE body into its `data:` payloads. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}
