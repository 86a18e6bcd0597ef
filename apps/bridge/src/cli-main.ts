import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InvalidRequestError } from '@toolbridge/core';
import { type ConcurrencyOptions } from '@toolbridge/core/runtime';
import { createToolbridge, PERMISSION_LEVELS, type Toolbridge } from 'toolbridge';
import { formatDoctor, formatUsage } from './doctor.js';
import { serveAcpStdio } from './faces/acp-stdio.js';
import { serveMcpStdio } from './faces/mcp-stdio.js';
import { DEFAULT_HOST, DEFAULT_PORT, type BridgeOptions } from './options.js';
import { startServer, type RunningBridge } from './server.js';
import { bridgeVersion } from './version.js';

export const USAGE = `Usage: toolbridge <command> [options]

Commands:
  serve     Run the local HTTP bridge
  doctor    Show the tools on this machine: installed, version, login, usage windows
  mcp       Serve MCP over stdio (tools chat, discover, health) for an MCP host: Claude Code, Codex, Cursor, VS Code
  acp       Be an Agent Client Protocol agent over stdio for an editor: Zed, JetBrains, Neovim

Options for serve:
  --port <n>            Port to listen on (default ${DEFAULT_PORT}; 0 picks a free port)
  --host <addr>         Address to bind (default ${DEFAULT_HOST}); a non-loopback address needs a token
  --token <t>           Require "Authorization: Bearer <t>" on every request
                        (prefer the TOOLBRIDGE_TOKEN environment variable: argv is visible to other users)
  --allow-origin <o>    Allow browser calls from this origin, e.g. http://localhost:3000 (repeatable)
  --allow-host <h>      Accept this Host header name besides loopback ones (repeatable)
  --body-limit <size>   Largest request body, e.g. 32mb (default 16mb: room for a few images)
  --max-concurrent <n>  Chats a tool may run at once: n for every tool, or tool=n (repeatable)
                        (default: 4 per agent, 8 for Ollama)
  --max-queued <n>      Chats that may wait for a slot, same forms (default: 32 per agent, 128 for Ollama);
                        beyond that a chat is refused at once with 503 and Retry-After
  --allow-full-permissions
                        Accept chats asking for permissions "full" without a token (refused by default)
  --warm-up <tool>      Start this tool's warm processes as the server starts (repeatable); by default
                        only tools that are logged in and were used in the last 7 days start them
                        then, the others on their first chat
  --no-warm-up          Do not start warm tool processes or probe the tools as the server starts
  --quiet               Do not write request logs to stderr

Options for mcp and acp:
  --allow-full-permissions
                        Accept chats asking for permissions "full" (refused by default)
  --approvals <mode>    never (default), or ask: each action an agent wants to take is asked first
                        (MCP: an elicitation when the host supports it; ACP: session/request_permission)
  --approval-fallback <d>
                        mcp: allow or deny (default) an asked action when the host cannot be asked
  --permissions <level> acp: the level every prompt asks for: read-only (default), workspace-write, full

Options for doctor:
  --json                Print the tools and their health as JSON

  -h, --help            Show this help
  -v, --version         Show the version
`;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the server should stop; default: the first SIGINT or SIGTERM. */
  shutdown?: Promise<unknown>;
  /** Library instance to use (tests); default: `createToolbridge()` with every adapter. */
  toolbridge?: Toolbridge;
  /** The MCP stdio channel (default: the process's stdin and stdout). */
  streams?: { stdin: Readable; stdout: Writable };
  /** Called once the server listens (tests). */
  onListening?(running: RunningBridge): void;
}

class UsageError extends Error {}

const serveOptions = {
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'body-limit': { type: 'string' },
  'max-concurrent': { type: 'string', multiple: true },
  'max-queued': { type: 'string', multiple: true },
  'allow-full-permissions': { type: 'boolean' },
  'warm-up': { type: 'string', multiple: true },
  'no-warm-up': { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const faceOptions = {
  'allow-full-permissions': { type: 'boolean' },
  approvals: { type: 'string' },
  'approval-fallback': { type: 'string' },
  permissions: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const doctorOptions = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function signalShutdown(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      // A second signal while closing means "now".
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** `--max-concurrent 2 --max-concurrent codex=1` into the library's concurrency options. */
export function concurrencyFromArgs(
  maxConcurrent: readonly string[] = [],
  maxQueued: readonly string[] = [],
): ConcurrencyOptions | undefined {
  const options: ConcurrencyOptions = {};
  const apply = (flag: string, field: 'maxConcurrent' | 'maxQueued', values: readonly string[], min: number) => {
    for (const value of values) {
      const m = /^(?:([A-Za-z0-9._-]+)=)?(\d+)$/.exec(value.trim());
      const n = m ? Number(m[2]) : NaN;
      if (!m || n < min || n > 100_000) throw new UsageError(`--${flag} must be a number ≥ ${min} or tool=number (got "${value}")`);
      if (m[1]) ((options.tools ??= {})[m[1]] ??= {})[field] = n;
      else options[field] = n;
    }
  };
  apply('max-concurrent', 'maxConcurrent', maxConcurrent, 1);
  apply('max-queued', 'maxQueued', maxQueued, 0);
  return Object.keys(options).length > 0 ? options : undefined;
}

async function serve(args: string[], io: CliIo): Promise<number> {
  const v = parse(args, serveOptions);
  if (v.help) {
    io.stdout(USAGE);
    return 0;
  }
  let port = DEFAULT_PORT;
  if (v.port !== undefined) {
    if (!/^\d+$/.test(v.port) || Number(v.port) > 65535) throw new UsageError(`--port must be a number from 0 to 65535 (got "${v.port}")`);
    port = Number(v.port);
  }
  const concurrency = concurrencyFromArgs(v['max-concurrent'], v['max-queued']);
  if (concurrency && io.toolbridge)
    throw new UsageError('--max-concurrent/--max-queued cannot apply to a toolbridge instance given by the caller');
  const options: BridgeOptions = {
    port,
    host: v.host ?? DEFAULT_HOST,
    token: v.token ?? (io.env.TOOLBRIDGE_TOKEN || undefined),
    allowedOrigins: v['allow-origin'],
    allowedHosts: v['allow-host'],
    ...(v['body-limit'] !== undefined ? { bodyLimit: v['body-limit'] } : {}),
    ...(io.toolbridge ? {} : { toolbridgeOptions: { env: io.env, ...(concurrency ? { concurrency } : {}) } }),
    logger: v.quiet ? false : (entry) => io.stderr(JSON.stringify(entry) + '\n'),
    allowFullPermissions: v['allow-full-permissions'] === true,
    warmUp: v['no-warm-up'] === true ? false : (v['warm-up'] ?? true),
    ...(io.toolbridge ? { toolbridge: io.toolbridge } : {}),
  };
  let running: RunningBridge;
  try {
    running = await startServer(options);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') io.stderr(`toolbridge: port ${port} is already in use (try --port 0)\n`);
    else if (err.code === 'EADDRNOTAVAIL') io.stderr(`toolbridge: cannot bind ${options.host}: no such local address\n`);
    else io.stderr(`toolbridge: ${err.message.replace(/^toolbridge bridge: /, '')}\n`);
    return err.message.includes('refusing') || err.message.startsWith('toolbridge bridge:') || InvalidRequestError.isInstance(err) ? 2 : 1;
  }
  io.stdout(`listening on ${running.url}\n`);
  io.onListening?.(running);
  await (io.shutdown ?? signalShutdown());
  await running.close();
  return 0;
}

async function doctor(args: string[], io: CliIo): Promise<number> {
  const v = parse(args, doctorOptions);
  if (v.help) {
    io.stdout(USAGE);
    return 0;
  }
  const toolbridge = io.toolbridge ?? createToolbridge({ env: io.env });
  try {
    const [tools, health] = await Promise.all([toolbridge.discover(), toolbridge.checkAllToolsHealth()]);
    const now = new Date();
    const usage = await toolbridge.usageHistory({ until: now });
    const days = Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 6 + i)));
    const byDay = await Promise.all(
      days.map(async (d) => ({
        day: d.toISOString().slice(0, 10),
        summary: await toolbridge.usageHistory({ since: d, until: new Date(d.getTime() + 86_399_999) }),
      })),
    );
    const windows = await toolbridge.windowHistory({ since: usage.since });
    io.stdout(
      v.json
        ? JSON.stringify({ tools, health, usage, windows }, null, 2) + '\n'
        : `${formatDoctor(tools, health, now)}\n${formatUsage(usage, byDay, windows, now)}`,
    );
    return 0;
  } finally {
    if (!io.toolbridge) await toolbridge.close();
  }
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  throw new UsageError(`--${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
}

/** `toolbridge mcp` and `toolbridge acp`: stdout is the protocol's channel, so nothing else may be written there. */
async function face(which: 'mcp' | 'acp', args: string[], io: CliIo): Promise<number> {
  const v = parse(args, faceOptions);
  if (v.help) {
    io.stdout(USAGE);
    return 0;
  }
  const approvals = oneOf('approvals', v.approvals, ['ask', 'never'] as const);
  const approvalFallback = oneOf('approval-fallback', v['approval-fallback'], ['allow', 'deny'] as const);
  const permissions = oneOf('permissions', v.permissions, PERMISSION_LEVELS);
  if (permissions === 'full' && !v['allow-full-permissions']) throw new UsageError('--permissions full needs --allow-full-permissions');
  const toolbridge = io.toolbridge ?? createToolbridge({ env: io.env });
  const settings = {
    toolbridge,
    ...(v['allow-full-permissions'] ? {} : { maxPermissions: 'workspace-write' as const }),
    ...(approvals ? { approvals } : {}),
  };
  const streams = { ...(io.streams ?? { stdin: process.stdin, stdout: process.stdout }), shutdown: io.shutdown ?? signalShutdown() };
  try {
    if (which === 'mcp') await serveMcpStdio({ ...settings, ...(approvalFallback ? { approvalFallback } : {}) }, streams);
    else await serveAcpStdio({ ...settings, ...(permissions ? { permissions } : {}) }, streams);
    return 0;
  } finally {
    if (!io.toolbridge) await toolbridge.close();
  }
}

/** The `toolbridge` command. Resolves to the exit code: 0 ok, 1 failure, 2 usage error. */
export async function runCli(argv: readonly string[], io?: Partial<CliIo>): Promise<number> {
  const full: CliIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    ...io,
  };
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest, full);
      case 'doctor':
        return await doctor(rest, full);
      case 'mcp':
      case 'acp':
        return await face(command, rest, full);
      case '-h':
      case '--help':
      case 'help':
        full.stdout(USAGE);
        return 0;
      case '-v':
      case '--version':
        full.stdout(`${bridgeVersion()}\n`);
        return 0;
      case undefined:
        full.stderr(USAGE);
        return 2;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      full.stderr(`toolbridge: ${e.message}\nRun "toolbridge --help" for usage.\n`);
      return 2;
    }
    full.stderr(`toolbridge: ${(e as Error).message}\n`);
    return 1;
  }
}
