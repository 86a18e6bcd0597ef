/**
 * Records the stream-json captures this package replays in unit tests, from the real pinned
 * `claude` against the mock Messages API, with the exact argv and stdin the adapter sends:
 *
 *   node --conditions=toolbridge-source --import tsx src/testing/record-captures.ts
 *
 * Writes `captures/claude-*.out` (stdout) and, for failures, `.err` (stderr). Paths in them are
 * the throwaway directories of the recording run.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathWith, realCliBinDir } from '@toolbridge/test-suite/kit';
import type { ToolMessage } from '@toolbridge/core';
import { buildChatArgs } from '../argv.js';
import { initializeLine, userLine } from '../input.js';
import { accessArgs } from '../permissions.js';
import type { ClaudeCodeToolAccess } from '../config.js';
import { CAPTURES } from './fake-claude.js';
import { startMockAnthropic, type MockBehavior } from './mock-anthropic.js';
import { agentScript, structuredScript } from './mock-scripts.js';

const server = await startMockAnthropic();
const root = await mkdtemp('/tmp/tb-claude-record-');
const text = (t: string): ToolMessage[] => [{ role: 'user', content: [{ type: 'text', text: t }] }];

async function record(
  name: string,
  o: { access: ClaudeCodeToolAccess; behavior: MockBehavior; schema?: Record<string, unknown>; resume?: string; env?: NodeJS.ProcessEnv },
) {
  const home = path.join(root, name);
  const cwd = path.join(home, 'work');
  await mkdir(path.join(home, 'outside'), { recursive: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(path.join(cwd, 'existing.txt'), 'old content\n');
  server.behavior = o.behavior;
  const args = buildChatArgs({
    accessArgs: accessArgs(o.access, false),
    additionalDirs: [],
    systemPromptMode: 'append',
    persistSession: true,
    ...(o.resume ? { resume: { nativeSessionId: o.resume, fork: false } } : {}),
    extraArgs: [],
  });
  const child = spawn(path.join(realCliBinDir('claude-code'), 'claude'), args, {
    cwd,
    env: {
      PATH: pathWith(realCliBinDir('claude-code')),
      HOME: home,
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      TMPDIR: home,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'dummy',
      CLAUDE_CODE_MAX_RETRIES: '0',
      ...(o.schema ? { MAX_STRUCTURED_OUTPUT_RETRIES: '1' } : {}),
      ...o.env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end((o.schema ? initializeLine('init', o.schema) : '') + userLine(text('Please do the task.')));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  await writeFile(path.join(CAPTURES, `${name}.out`), stdout);
  if (stderr || code !== 0) await writeFile(path.join(CAPTURES, `${name}.err`), stderr);
  console.log(name, 'exit', code, stdout.split('\n').length, 'lines', stderr.slice(0, 200));
}

const work = (name: string, file: string) => path.join(root, name, 'work', file);
const outside = (name: string, file: string) => path.join(root, name, 'outside', file);
try {
  const ww = 'claude-agent-workspace-write';
  await record(ww, {
    access: 'workspace-write',
    behavior: {
      mode: 'script',
      script: agentScript(
        [
          { name: 'Bash', input: { command: 'echo hi > out.txt', description: 'Write hi to out.txt' } },
          { name: 'Write', input: { file_path: work(ww, 'written.txt'), content: 'inside\n' } },
          { name: 'Edit', input: { file_path: work(ww, 'existing.txt'), old_string: 'old', new_string: 'new' } },
          { name: 'Bash', input: { command: 'ls missing-dir', description: 'List a missing directory' } },
          { name: 'Write', input: { file_path: outside(ww, 'escaped.txt'), content: 'outside\n' } },
          { name: 'Read', input: { file_path: work(ww, 'written.txt') } },
        ],
        'All done.',
      ),
    },
  });
  const ro = 'claude-agent-read-only';
  await record(ro, {
    access: 'read-only',
    behavior: {
      mode: 'script',
      script: agentScript([{ name: 'Write', input: { file_path: work(ro, 'written.txt'), content: 'inside\n' } }], 'Could not write.', {
        always: true,
      }),
    },
  });
  const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] };
  await record('claude-structured', {
    access: 'none',
    schema,
    behavior: { mode: 'script', script: structuredScript([{ name: 'Ada', age: 36 }]) },
  });
  await record('claude-structured-invalid', {
    access: 'none',
    schema,
    behavior: { mode: 'script', script: structuredScript([{ name: 'Ada', age: 'old' }]) },
  });
  await record('claude-resume-missing', { access: 'none', resume: '00000000-0000-4000-8000-000000000000', behavior: { mode: 'ok' } });
} finally {
  await server.close();
  await rm(root, { recursive: true, force: true });
}
