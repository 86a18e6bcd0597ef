import type { ValidateFunction } from 'ajv';
import { InvalidRequestError, ProviderExecutionError } from './errors.js';
import { LIMITS } from './limits.js';
import { createAjv, schemaProblems, type SchemaProblem } from './schema-errors.js';
import type { ResponseFormat } from './types.js';

export type { SchemaProblem } from './schema-errors.js';

/**
 * Callers' schemas are JSON Schema as people write them: unknown keywords (`title`, `examples`,
 * vendor extensions) are allowed, formats are checked. All errors are collected, so a repair
 * turn can show the model everything that was wrong at once.
 */
const userSchemas = createAjv({ strict: false, allErrors: true, validateSchema: true, discriminator: false, standardFormats: true });
/** Compiled validators by schema text; bounded, oldest dropped first. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

/** A responseFormat checked at the entry, with the validator every answer is checked against. */
export interface StructuredOutput {
  format: ResponseFormat;
  validate: ValidateFunction | undefined;
}

/** Check (and compile) a requested responseFormat before any tool runs: an invalid schema is the caller's mistake. */
export function compileResponseFormat(format: ResponseFormat): StructuredOutput {
  if (format.type === 'json') return { format, validate: undefined };
  const text = JSON.stringify(format.schema);
  if (text.length > LIMITS.maxSchemaBytes)
    throw new InvalidRequestError(`responseFormat.schema is larger than ${LIMITS.maxSchemaBytes} bytes`);
  let validate = compiled.get(text);
  if (!validate) {
    try {
      validate = userSchemas.compile(format.schema);
    } catch (e) {
      throw new InvalidRequestError(`responseFormat.schema is not a valid JSON Schema: ${(e as Error).message.slice(0, 300)}`);
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, validate);
  }
  return { format, validate };
}

/** The answer's JSON text: the whole answer, or the body of one fenced ```json block around it. */
export function jsonTextOf(answer: string): string {
  const t = answer.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(t);
  return (fenced ? fenced[1]! : t).trim();
}

export type AnswerCheck = { ok: true; value: unknown; text: string } | { ok: false; errors: SchemaProblem[] };

/** Parse an answer and check it against the requested format. */
export function checkAnswer(answer: string, structured: StructuredOutput): AnswerCheck {
  const text = jsonTextOf(answer);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [{ path: '', message: `the answer is not JSON (${(e as Error).message.slice(0, 120)})` }] };
  }
  if (!structured.validate) return { ok: true, value, text };
  if (structured.validate(value)) return { ok: true, value, text };
  return { ok: false, errors: schemaProblems(structured.validate.errors) };
}

/** Words for an agent without a native schema option: the schema, and "JSON only". */
export function jsonInstruction(format: ResponseFormat): string {
  if (format.type === 'json') return 'Answer with a single JSON value only: no prose, no code fences.';
  return `Answer with a single JSON value that matches this JSON Schema, and nothing else (no prose, no code fences):\n${JSON.stringify(format.schema)}`;
}

/** The user turn of the one repair attempt: what was wrong, and the rule again. */
export function repairPrompt(errors: readonly SchemaProblem[], format: ResponseFormat): string {
  const list = errors.map((e) => `- ${e.path === '/' || e.path === '' ? 'answer' : e.path}: ${e.message}`).join('\n');
  return `Your previous answer did not match the required format:\n${list}\n\n${jsonInstruction(format)}`;
}

/** The failure after the repair turn: 502 with `details.reason: 'schema_mismatch'` and the errors, never the answer. */
export function schemaMismatch(errors: readonly SchemaProblem[], toolId: string, name: string): ProviderExecutionError {
  return new ProviderExecutionError(
    `${name} did not answer with JSON matching the requested schema (after one repair turn): ${errors[0]?.message ?? 'no detail'}`,
    {
      toolId,
      retryable: false,
      publicDetails: { reason: 'schema_mismatch', errors },
    },
  );
}
