import { type Activity, type ToolRequest } from '@toolbridge/core';
import { textOf } from '@toolbridge/core/runtime';
import { scriptedAdapter, type ScriptedAdapter, type ScriptStep } from '@toolbridge/test-suite/kit';

/**
 * In-memory tools for the dashboard's agent features (test kit scripted adapters): an agent
 * with a warm transport that reports its steps, answers JSON when a schema is asked for and
 * says which permission level it applied; a second agent (spawn) to hand a session over to;
 * a runtime. Named after the tools they stand in for, so the README screenshot reads naturally.
 */

export const STEPS: Activity[] = [
  {
    id: 'plan-1',
    kind: 'plan',
    status: 'updated',
    title: '1 of 2 done',
    items: [
      { text: 'Run the tests', done: true },
      { text: 'Fix the failing test', done: false },
    ],
  },
  { id: 'cmd-1', kind: 'command', status: 'started', title: 'npm test', command: 'npm test' },
  {
    id: 'cmd-1',
    kind: 'command',
    status: 'completed',
    title: 'npm test',
    command: 'npm test',
    exitCode: 1,
    outputTail: 'FAIL src/sum.test.ts\n  sum(2, 2): expected 4, got 5\nTests: 1 failed, 11 passed',
  },
  { id: 'read-1', kind: 'tool_call', status: 'completed', title: 'Read src/sum.ts', name: 'read_file', input: '{"path":"src/sum.ts"}' },
  { id: 'edit-1', kind: 'file_change', status: 'completed', title: 'Edit src/sum.ts', changes: [{ path: 'src/sum.ts', kind: 'update' }] },
  {
    id: 'cmd-2',
    kind: 'command',
    status: 'completed',
    title: 'npm test',
    command: 'npm test',
    exitCode: 0,
    outputTail: 'Tests: 12 passed',
  },
  {
    id: 'why-1',
    kind: 'reasoning',
    status: 'completed',
    title: 'Reasoning',
    text: 'sum() added one too many; the fix is in the return line.',
  },
];

export const CITY = { city: 'Paris', country: 'France', population: 2102650 };

const permissionsOf = (request: ToolRequest) => ({
  requested: request.permissions ?? 'read-only',
  applied: request.permissions ?? 'read-only',
});

function agentStep(request: ToolRequest): ScriptStep {
  const metadata = { transport: 'warm', permissions: permissionsOf(request) };
  if (request.responseFormat) return { deltas: [JSON.stringify(CITY)], metadata };
  const last = textOf(request.messages.at(-1)!);
  const images = request.messages.flatMap((m) => m.content).filter((p) => p.type === 'image').length;
  if (images) return { deltas: [`I see ${images} image${images === 1 ? '' : 's'}.`], metadata };
  if (/tests/i.test(last))
    return { activity: STEPS, deltas: ['The test failed because ', '`sum()` added one. ', 'Fixed; all 12 tests pass.'], metadata };
  return { deltas: [`codex heard: ${last}`], metadata };
}

export function dashboardTools(): { codex: ScriptedAdapter; claude: ScriptedAdapter; ollama: ScriptedAdapter } {
  const codex = scriptedAdapter('codex', {
    name: 'Codex',
    login: 'logged-in',
    models: ['gpt-5-codex', 'gpt-5'],
    features: {
      activity: true,
      images: true,
      // Like the real Codex: the schema goes natively (a prompt-form tool never sees responseFormat).
      structuredOutput: 'native',
      permissions: ['read-only', 'workspace-write', 'full'],
      warm: true,
      mcpServers: true,
    },
    detectedCapabilities: ['vision'],
    usageLimits: {
      status: 'available',
      plan: 'plus',
      windows: {
        five_hour: { usedPercentage: 42.5, remainingPercentage: 57.5, resetsAt: new Date(Date.now() + 130 * 60_000).toISOString() },
        seven_day: { usedPercentage: 7, remainingPercentage: 93 },
      },
    },
    script: (request) => agentStep(request),
  });
  // An illustrative load (not a measurement): one idle warm process of 187 MB, shut down after 10 min idle.
  codex.warmLoad = () => ({ processes: 1, busy: 0, rssBytes: 187 * 1024 * 1024, idleTimeoutMs: 600_000 });
  const claude = scriptedAdapter('claude-code', {
    name: 'Claude Code',
    login: 'logged-in',
    models: ['sonnet', 'opus'],
    features: { activity: true },
    script: (request) => ({
      // What the hand-over carried: the first turn's words reach the new tool.
      deltas: [`claude-code read ${request.messages.length} messages; the last: ${textOf(request.messages.at(-1)!)}`],
      metadata: { transport: 'spawn', permissions: permissionsOf(request) },
    }),
  });
  const ollama = scriptedAdapter('ollama', { name: 'Ollama', type: 'runtime', models: ['llama3.2:1b'], reply: 'Hello from ollama' });
  return { codex, claude, ollama };
}
