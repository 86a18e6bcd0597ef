import { mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { imagesOf, renderConversation } from '@toolbridge/adapter-kit';
import { type ChatContext, type ResponseFormat, type ToolRequest } from '@toolbridge/core';
import { imageExtension, jsonInstruction } from '@toolbridge/core/runtime';

/**
 * Whether OpenAI's strict structured outputs take this schema as it is. Codex always sends
 * `--output-schema` as `{"type":"json_schema","strict":true,...}`, and the Responses API refuses a
 * strict schema whose root is not an object, or with an object that allows additional properties
 * or leaves a property out of `required` (400 invalid_request_error). Such a schema is asked for in
 * words instead, which every provider takes; core validates the answer either way.
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

/** How a chat's answer format reaches Codex: a schema file, or words in the prompt. */
export type StructuredMode = 'native' | 'prompt';

export interface ExecInputs {
  /** The conversation as one prompt (stdin). */
  prompt: string;
  /** `--output-schema` file. */
  schemaFile?: string;
  /** `--image` files, in the order of the prompt's `[image n]` placeholders. */
  imageFiles: string[];
  structured?: StructuredMode;
}

/** A file only this user can read, in `dir` (inside the call's scratch directory, which core removes after the call). */
async function privateFile(dir: string, name: string, data: string | Buffer): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, data, { mode: 0o600, flag: 'wx' });
  return file;
}

/** Whether the format goes to Codex as a schema file. */
export function nativeSchema(format: ResponseFormat | undefined): object | undefined {
  return format?.type === 'json_schema' && strictCompatible(format.schema) ? (format.schema as object) : undefined;
}

/** The prompt of a turn (the conversation as one text) and how its answer format goes to Codex. */
export function turnPrompt(request: ToolRequest): { prompt: string; schema?: object; structured?: StructuredMode } {
  const format = request.responseFormat;
  const schema = nativeSchema(format);
  const prompt = renderConversation(request.messages);
  if (!format) return { prompt };
  // A schema Codex cannot send strictly, or plain JSON: the rule goes into the prompt.
  if (!schema) return { prompt: `${prompt}\n\n${jsonInstruction(format)}`, structured: 'prompt' };
  return { prompt, schema, structured: 'native' };
}

/**
 * What a `codex exec` run is given: the prompt for stdin, the answer's schema as a file
 * (`--output-schema`), and each image as a file (`--image`); the files go into the call's
 * private scratch directory, 0600.
 */
export async function execInputs(request: ToolRequest, ctx: ChatContext): Promise<ExecInputs> {
  const { prompt, schema, structured } = turnPrompt(request);
  const images = imagesOf(request.messages);
  // A directory of this run's own: one call may run twice (core's repair turn), with the same scratch directory.
  const dir = schema || images.length ? await mkdtemp(path.join(await ctx.scratchDir(), 'run-')) : undefined;
  const schemaFile = schema ? await privateFile(dir!, 'output-schema.json', JSON.stringify(schema)) : undefined;
  const imageFiles: string[] = [];
  for (const [i, image] of images.entries()) {
    imageFiles.push(await privateFile(dir!, `image-${i + 1}.${imageExtension(image.mediaType)}`, Buffer.from(image.data, 'base64')));
  }
  return { prompt, ...(schemaFile ? { schemaFile } : {}), imageFiles, ...(structured ? { structured } : {}) };
}
