import { describe, expect, it } from '@jest/globals';
import { buildExecArgs } from './argv.js';

describe('argv', () => {
  it('builds `codex exec` with the sandbox, the model and `-` last', () => {
    expect(buildExecArgs({ sandbox: 'read-only' })).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'read-only',
      '-c',
      'features.shell_snapshot=false',
      '-',
    ]);
    expect(
      buildExecArgs({ sandbox: 'workspace-write', model: 'gpt-5', ephemeral: true, shellSnapshot: true, extraArgs: ['-c', 'a=b'] }),
    ).toEqual(['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-m', 'gpt-5', '--ephemeral', '-c', 'a=b', '-']);
  });

  it('puts every option before `resume`/`fork`, images as `--image=<file>`', () => {
    const args = buildExecArgs({
      sandbox: 'workspace-write',
      model: 'gpt-5.5',
      profile: 'fast',
      addDirs: ['/data/a', '/data/b'],
      sandboxConfig: { 'sandbox_workspace_write.exclude_slash_tmp': true },
      planTool: true,
      outputSchema: '/scratch/output-schema.json',
      images: ['/scratch/image-1.png', '/scratch/image-2.jpg'],
      resume: { threadId: '01a2-thread', fork: false },
    });
    expect(args).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '-m',
      'gpt-5.5',
      '-p',
      'fast',
      '--add-dir',
      '/data/a',
      '--add-dir',
      '/data/b',
      '-c',
      'features.shell_snapshot=false',
      '-c',
      'tools.update_plan.enabled=true',
      '-c',
      'sandbox_workspace_write.exclude_slash_tmp=true',
      '--output-schema',
      '/scratch/output-schema.json',
      '--image=/scratch/image-1.png',
      '--image=/scratch/image-2.jpg',
      'resume',
      '01a2-thread',
      '-',
    ]);
    expect(buildExecArgs({ sandbox: 'read-only', resume: { threadId: 't', fork: true } }).slice(-3)).toEqual(['fork', 't', '-']);
  });
});
