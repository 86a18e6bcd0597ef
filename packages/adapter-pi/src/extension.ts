/**
 * The Pi extension Toolbridge loads into every run (`-e`): Pi has no permission model or sandbox
 * of its own, and an extension's `tool_call` hook runs before each tool call and can block it
 * (`{ block: true, reason }`, the reason reaches the model as the tool's error).
 *
 * - Warm (`pi --mode rpc`, `TOOLBRIDGE_PI_ASK=1`): every call is asked of the adapter over Pi's
 *   own extension UI channel (an `input` request on stdout, answered on stdin), which decides by
 *   the chat's level and, when the caller asked for approvals, through `ctx.approvals` (policy.ts).
 * - One-shot (`pi --mode json`, no UI): the level alone, from `TOOLBRIDGE_PI_POLICY`
 *   (`{level, roots}`), by the same rule as policy.ts without asking.
 *
 * Plain JavaScript (Pi loads it with jiti), written into the runtime directory by dirs.ts.
 */
export const EXTENSION_FILE = 'toolbridge-permissions.js';

/** The title of the extension's question to the adapter (an RPC `extension_ui_request`, method `input`). */
export const ASK_TITLE = 'toolbridge:tool_call';

/** Pi's tools that only read. */
export const READ_TOOLS = ['read', 'grep', 'find', 'ls'] as const;

/** Pi's tools that change files, with the input field naming the file. */
export const FILE_TOOLS: Readonly<Record<string, string>> = { write: 'path', edit: 'path' };

export const EXTENSION_SOURCE = `// Written by Toolbridge (@toolbridge/adapter-pi): enforces the chat's permission level. Do not edit.
import path from 'node:path';
import os from 'node:os';

const READ = new Set(${JSON.stringify(READ_TOOLS)});
const FILES = ${JSON.stringify(FILE_TOOLS)};

function full(p, cwd) {
  const s = String(p ?? '').replace(/^@/, '');
  const home = s === '~' || s.startsWith('~/') ? path.join(os.homedir(), s.slice(1)) : s;
  return path.resolve(cwd, home);
}

function inside(file, roots) {
  return roots.some((root) => {
    const rel = path.relative(path.resolve(root), file);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/** The level alone (pi --mode json): the same rule as the adapter's policy.ts without approvals. */
function byLevel(policy, tool, input, cwd) {
  if (READ.has(tool) || policy.level === 'full') return undefined;
  if (policy.level === 'read-only') return 'Refused by Toolbridge: the permission level is read-only (' + tool + ')';
  if (tool === 'bash') return 'Refused by Toolbridge: commands need the full permission level or approvals (workspace-write)';
  if (FILES[tool]) {
    const file = full(input?.[FILES[tool]], cwd);
    if (!inside(file, policy.roots)) return 'Refused by Toolbridge: workspace-write allows changes only inside the working directory (' + file + ')';
  }
  return undefined;
}

export default function (pi) {
  pi.on('tool_call', async (event, ctx) => {
    if (process.env.TOOLBRIDGE_PI_ASK === '1') {
      const answer = await ctx.ui.input(${JSON.stringify(ASK_TITLE)}, JSON.stringify({ tool: event.toolName, id: event.toolCallId, input: event.input }));
      let decision;
      try {
        decision = JSON.parse(answer ?? '');
      } catch {
        decision = undefined;
      }
      if (decision?.allow === true) return undefined;
      return { block: true, reason: decision?.reason || 'Refused by Toolbridge' };
    }
    let policy;
    try {
      policy = JSON.parse(process.env.TOOLBRIDGE_PI_POLICY ?? '');
    } catch {
      policy = undefined;
    }
    // No policy: the most careful level.
    const reason = byLevel(policy ?? { level: 'read-only', roots: [] }, event.toolName, event.input, ctx.cwd);
    return reason ? { block: true, reason } : undefined;
  });
}
`;
