import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { imagesOf, renderConversation, writeImageFiles, type RunFiles } from '@toolbridge/adapter-kit';
import type { ResponseFormat, ToolRequest } from '@toolbridge/core';

/**
 * Whether OpenAI's strict structured outputs take this schema as it is. Codex always sends
 * `--output-schema` as `{"type":"json_schema","strict":true,...}`, and the Responses API refuses a
 * strict schema whose root is not an object, or with an object that allows additional properties
 * or leaves a property out of `required` (400 invalid_request_error). Such a schema (and plain JSON)
 * Codex declines (`takesFormat`): core asks for it in words, which every provider takes, and
 * validates the answer either way.
 */
export function strictCompatible(schema: unknown, root = true): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return typeof schema === 'boolean' ? !root : false;
  const s = schema as Record<string, unknown>;
  if (root && s.type !== 'object') return false;
  const sub = (v: unknown) => strictCompatible(v, false);
  const each = (v: unknown) => (Array.isArray(v) ? v.every(sub) : v === undefined || sub(v));
  const values = (v: unknown) => v === undefined || (typeof v === 'object' && v !== null && Object.values(v).every(sub));
  if (s.type === 'object' || s.properties !== undefined) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(s.required) ? s.required : [];
    if (s.additionalProperties !== false) return false;
    if (!Object.keys(props).every((k) => required.includes(k))) return false;
    if (!values(props)) return false;
  }
  return each(s.items) && each(s.anyOf) && values(s.$defs) && values(s.definitions);
}

export interface ExecInputs {
  /** The conversation as one prompt (stdin). */
  prompt: string;
  /** `--output-schema` file. */
  schemaFile?: string;
  /** `--image` files, in the order of the prompt's `[image n]` placeholders. */
  imageFiles: string[];
}

/** Whether the format can go to Codex natively (`--output-schema`, app-server's `outputSchema`): a strict-compatible schema. */
export function takesFormat(format: ResponseFormat): boolean {
  return format.type === 'json_schema' && strictCompatible(format.schema);
}

/** The prompt of a turn (the conversation as one text) and the schema core chose to send natively, if any. */
export function turnPrompt(request: ToolRequest): { prompt: string; schema?: object } {
  const format = request.responseFormat;
  const prompt = renderConversation(request.messages);
  return format?.type === 'json_schema' ? { prompt, schema: format.schema } : { prompt };
}

/**
 * What a `codex exec` run is given: the prompt for stdin, the answer's schema as a file
 * (`--output-schema`), and each image as a file (`--image`); the files go into a directory of
 * the run's own (core's repair turn runs in the same scratch directory), 0600.
 */
export async function execInputs(request: ToolRequest, files: RunFiles): Promise<ExecInputs> {
  const { prompt, schema } = turnPrompt(request);
  const images = imagesOf(request.messages);
  const dir = schema || images.length ? await files.runDir() : undefined;
  const schemaFile = schema ? path.join(dir!, 'output-schema.json') : undefined;
  if (schemaFile) await writeFile(schemaFile, JSON.stringify(schema), { mode: 0o600, flag: 'wx' });
  const imageFiles = images.length ? await writeImageFiles(images, dir!) : [];
  return { prompt, ...(schemaFile ? { schemaFile } : {}), imageFiles };
}
