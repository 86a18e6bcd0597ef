/**
 * `toolbridge <mcp|acp> …` over scripted tools, for tests that drive the faces through a real
 * stdio pipe: `node --conditions=toolbridge-source --import tsx face-fixture.ts mcp [flags]`.
 * `worker` answers "worker answers" after a command and a plan step, adding " again" when it was
 * sent earlier turns and " with N image(s)" when the prompt had images; `hanging` never ends on
 * its own. Each chat's start and end are appended to `$FACE_FIXTURE_MARKS` ("start <tool> <ms>").
 */
import { appendFileSync } from 'node:fs';
import type { Activity, ToolAdapter } from '@toolbridge/core';
import { scriptedAdapter } from '@toolbridge/test-suite/kit';
import { createToolbridge } from 'toolbridge';
import { runCli } from '../cli-main.js';

const steps: Activity[] = [
  { id: 'c1', kind: 'command', status: 'started', title: 'Run npm test', command: 'npm test' },
  { id: 'p1', kind: 'plan', status: 'updated', title: 'Plan', items: [{ text: 'run the tests', done: true }] },
];

function marked(adapter: ToolAdapter): ToolAdapter {
  const mark = (what: string) =>
    process.env.FACE_FIXTURE_MARKS && appendFileSync(process.env.FACE_FIXTURE_MARKS, `${what} ${adapter.id} ${Date.now()}\n`);
  return {
    ...adapter,
    async *stream(request, ctx) {
      mark('start');
      try {
        yield* adapter.stream(request, ctx);
      } finally {
        mark('end');
      }
    },
  };
}

const toolbridge = createToolbridge({
  adapters: [
    marked(
      scriptedAdapter('worker', {
        detectedCapabilities: ['vision'],
        features: { images: true },
        script: (request) => {
          const images = request.messages.flatMap((m) => m.content).filter((p) => p.type === 'image').length;
          const deltas = [
            'worker ',
            'answers',
            ...(request.messages.length > 1 ? [' again'] : []),
            ...(images ? [` with ${images} image(s)`] : []),
          ];
          return { activity: steps, deltas };
        },
      }),
    ),
    marked(scriptedAdapter('hanging', { script: [{ deltas: ['partial '], hang: true }] })),
  ],
  env: { PATH: process.env.PATH },
  sessions: { dir: process.env.FACE_FIXTURE_SESSIONS },
});

runCli(process.argv.slice(2), { toolbridge }).then(async (code) => {
  await toolbridge.close();
  process.exit(code);
});
