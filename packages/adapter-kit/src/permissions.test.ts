import { describe, expect, it } from '@jest/globals';
import { permissionReport, resolvePermissions } from './permissions.js';

describe('resolvePermissions', () => {
  const none = { config: {} };
  it('takes the request, else the tool default, else the permissions key, else read-only', () => {
    expect(resolvePermissions({ permissions: 'full' }, { config: { permissions: 'read-only' } }, 'workspace-write')).toEqual({
      level: 'full',
      source: 'request',
    });
    expect(resolvePermissions({}, { config: { permissions: 'full' } }, 'workspace-write')).toEqual({
      level: 'workspace-write',
      source: 'tool-config',
    });
    expect(resolvePermissions({}, { config: { permissions: 'full' } })).toEqual({ level: 'full', source: 'config' });
    expect(resolvePermissions({}, none)).toEqual({ level: 'read-only', source: 'default' });
  });

  it("never goes above the call's maxPermissions, from wherever the level came, and the report says so", () => {
    const capped = resolvePermissions({}, { config: { permissions: 'full' }, maxPermissions: 'workspace-write' });
    expect(capped).toEqual({ level: 'workspace-write', source: 'config', narrowedFrom: 'full' });
    expect(resolvePermissions({ permissions: 'full' }, { ...none, maxPermissions: 'read-only' })).toMatchObject({ level: 'read-only' });
    expect(resolvePermissions({}, none, 'full')).toEqual({ level: 'full', source: 'tool-config' });
    expect(resolvePermissions({ permissions: 'read-only' }, { ...none, maxPermissions: 'workspace-write' })).toEqual({
      level: 'read-only',
      source: 'request',
    });
    const report = permissionReport(capped, 'workspace-write', 'the sandbox note');
    expect(report).toEqual({
      requested: 'full',
      applied: 'workspace-write',
      source: 'config',
      note: "full is above this call's limit (maxPermissions workspace-write, which the bridge sets when it runs without a token); the sandbox note",
    });
  });
});
