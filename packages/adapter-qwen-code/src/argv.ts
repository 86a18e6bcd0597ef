import { InvalidRequestError } from '@toolbridge/core';
import { NAME, TOOL_ID, type QwenApprovalMode } from './config.js';

export interface QwenArgs {
  approvalMode: QwenApprovalMode;
  model?: string;
  /** Continue this session (`-r`), or start a copy of it (`--fork-session`). */
  resume?: { nativeSessionId: string; fork: boolean };
  /** More workspace directories: the caller's additional dirs, and the call's images. */
  includeDirectories: readonly string[];
  /** `--json-schema @file`: the schema stays out of argv (only its path is there). */
  schemaFile?: string;
  /** A long-lived process taking stream-json turns on stdin (warm), rather than one prompt. */
  streamInput: boolean;
  extraArgs: readonly string[];
}

/** Qwen Code's session ids are UUIDs; anything else is refused before it reaches argv. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `qwen` argv for one run. The prompt is never in it: a one-shot run reads it from stdin (closed
 * after it), a warm one takes stream-json user messages there. `--json-schema` refuses
 * `--input-format stream-json` (0.24.4: "incompatible with the long-lived stream-json input
 * protocol"), so JSON answers always run one-shot.
 */
export function buildArgs(a: QwenArgs): string[] {
  // A value starting with "-" would be read as another option.
  if (a.model?.startsWith('-')) throw new InvalidRequestError(`invalid ${NAME} model name "${a.model}"`, { toolId: TOOL_ID });
  if (a.resume && !SESSION_ID.test(a.resume.nativeSessionId)) {
    throw new InvalidRequestError(`invalid ${NAME} session id "${a.resume.nativeSessionId.slice(0, 80)}"`, { toolId: TOOL_ID });
  }
  // --include-directories splits its value on commas.
  const comma = a.includeDirectories.find((d) => d.includes(','));
  if (comma) throw new InvalidRequestError(`${NAME} cannot take a directory whose path has a comma: ${comma}`, { toolId: TOOL_ID });
  return [
    ...(a.streamInput ? ['--input-format', 'stream-json'] : []),
    '--output-format',
    'stream-json',
    '--include-partial-messages',
    '--approval-mode',
    a.approvalMode,
    ...(a.model ? ['--model', a.model] : []),
    ...(a.resume ? ['--resume', a.resume.nativeSessionId, ...(a.resume.fork ? ['--fork-session'] : [])] : []),
    ...a.includeDirectories.flatMap((d) => ['--include-directories', d]),
    ...(a.schemaFile ? ['--json-schema', `@${a.schemaFile}`] : []),
    ...a.extraArgs,
  ];
}
