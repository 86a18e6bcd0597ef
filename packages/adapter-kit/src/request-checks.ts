import { InvalidRequestError, type ToolRequest } from '@toolbridge/core';

/**
 * What a CLI would misread in its argv, refused before anything runs: a model name starting with
 * "-" (read as another option) and a session id not of the tool's own form.
 */
export function refuseMisreadArgs(
  request: ToolRequest,
  model: string | undefined,
  tool: { name: string; toolId: string; sessionId: RegExp },
): void {
  const { name, toolId } = tool;
  if (model?.startsWith('-')) throw new InvalidRequestError(`invalid ${name} model name "${model}"`, { toolId });
  if (request.resume && !tool.sessionId.test(request.resume.nativeSessionId)) {
    throw new InvalidRequestError(`invalid ${name} session id "${request.resume.nativeSessionId}"`, { toolId });
  }
}
