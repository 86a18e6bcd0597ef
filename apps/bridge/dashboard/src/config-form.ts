/**
 * The config form, derived from the Config JSON Schema in /openapi.json (pure;
 * no DOM). The form sends what the user typed and lets the API judge it, so
 * the messages are the API's own.
 */

export type FieldKind = 'select' | 'boolean' | 'integer' | 'number' | 'url' | 'text';

export interface ConfigField {
  key: string;
  kind: FieldKind;
  /** Choices of a `select` (an enum). */
  options?: string[];
  description?: string;
  /** What a valid value looks like, when the schema says more than its type ("integer ≥ 1"). */
  constraint?: string;
  /** The tool whose settings these are ("Codex"), for grouping. */
  group: string;
}

interface PropertySchema {
  type?: unknown;
  enum?: unknown;
  description?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  format?: unknown;
}

const GROUPS: Array<[prefix: string, name: string]> = [
  ['codex', 'Codex'],
  ['claudeCode', 'Claude Code'],
  ['opencode', 'OpenCode'],
  ['gemini', 'Gemini CLI'],
  ['copilot', 'Copilot CLI'],
  ['pi', 'Pi'],
  ['qwenCode', 'Qwen Code'],
  ['ollama', 'Ollama'],
];

export function groupOf(key: string): string {
  for (const [prefix, name] of GROUPS) if (key.startsWith(prefix) && /^[A-Z]/.test(key.slice(prefix.length))) return name;
  return 'Other';
}

function constraintOf(kind: FieldKind, p: PropertySchema): string | undefined {
  if (kind === 'integer' || kind === 'number') {
    const noun = kind === 'integer' ? 'whole number' : 'number';
    const min = typeof p.minimum === 'number' ? p.minimum : undefined;
    const max = typeof p.maximum === 'number' ? p.maximum : undefined;
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} ≥ ${min}`;
    if (max !== undefined) return `${noun} ≤ ${max}`;
    return noun;
  }
  if (kind === 'url') return 'http:// or https:// URL';
  return undefined;
}

/** One field per property of the Config schema, in the schema's order. */
export function configFields(schema: unknown): ConfigField[] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, PropertySchema>).map(([key, p]) => {
    let kind: FieldKind = 'text';
    let options: string[] | undefined;
    if (Array.isArray(p.enum)) {
      kind = 'select';
      options = p.enum.map(String);
    } else if (p.type === 'boolean') kind = 'boolean';
    else if (p.type === 'integer') kind = 'integer';
    else if (p.type === 'number') kind = 'number';
    else if (p.format === 'http-url' || p.format === 'uri' || p.format === 'url') kind = 'url';
    const constraint = constraintOf(kind, p);
    return {
      key,
      kind,
      group: groupOf(key),
      ...(options ? { options } : {}),
      ...(typeof p.description === 'string' && p.description ? { description: p.description } : {}),
      ...(constraint ? { constraint } : {}),
    };
  });
}

/** A config value as the text an input shows ('' when unset). */
export function toInputText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The body of `PUT /config` from the inputs' text: empty fields are left out
 * (unset), numbers and booleans become JSON numbers and booleans when they
 * parse, and anything else is sent as typed so the API names the problem.
 */
export function configBody(fields: readonly ConfigField[], inputs: Readonly<Record<string, string>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const text = (inputs[field.key] ?? '').trim();
    if (text === '') continue;
    if ((field.kind === 'integer' || field.kind === 'number') && NUMBER_TEXT.test(text)) body[field.key] = Number(text);
    else if (field.kind === 'boolean' && (text === 'true' || text === 'false')) body[field.key] = text === 'true';
    else body[field.key] = text;
  }
  return body;
}

/** The config key an API message names (`config key "codexSandbox" must be ...`), to mark that field. */
export function keyNamedIn(message: string, keys: readonly string[]): string | undefined {
  const quoted = /key "([^"]+)"/.exec(message)?.[1];
  return quoted !== undefined && keys.includes(quoted) ? quoted : undefined;
}
