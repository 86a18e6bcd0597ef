import { ProviderExecutionError } from '@toolbridge/core';

export interface NdjsonOptions {
  toolId: string;
  /** A line longer than this (in characters) is refused rather than buffered forever. */
  maxLineChars?: number;
  /** A body longer than this (in bytes) is cut off: a runaway server must not fill our memory. */
  maxBytes?: number;
}

/** Default bound on one streamed answer, as for the CLI tools' output. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * Parse a byte stream of newline-delimited JSON objects as it arrives.
 * Chunks may end anywhere, mid-line or inside a multi-byte UTF-8 character.
 * Stopping the iteration early cancels the body, which closes the connection.
 */
export async function* readNdjson(
  body: ReadableStream<Uint8Array>,
  options: NdjsonOptions,
): AsyncGenerator<Record<string, unknown>, void, undefined> {
  const maxLineChars = options.maxLineChars ?? 8 * 1024 * 1024;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let received = 0;
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let finished = false;
  const parse = (line: string): Record<string, unknown> | undefined => {
    const t = line.trim();
    if (t === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      throw new ProviderExecutionError('Ollama sent a line that is not JSON', { toolId: options.toolId });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ProviderExecutionError('Ollama sent a line that is not a JSON object', { toolId: options.toolId });
    }
    return value as Record<string, unknown>;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        throw new ProviderExecutionError(`Ollama sent more than ${maxBytes} bytes; the answer was cut off`, { toolId: options.toolId });
      }
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const obj = parse(line);
        if (obj) yield obj;
      }
      if (buffer.length > maxLineChars) {
        throw new ProviderExecutionError(`Ollama sent a line longer than ${maxLineChars} characters`, { toolId: options.toolId });
      }
    }
    finished = true;
    buffer += decoder.decode();
    // The last object may lack its newline (a plain JSON body, for one).
    const last = parse(buffer);
    if (last) yield last;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
