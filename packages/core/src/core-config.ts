import type { ConfigKeySchema } from './config.js';
import { PERMISSION_LEVELS } from './wire/chat.js';

/** Config keys core owns (the adapters own the rest). */
export const coreConfigSchema: Readonly<Record<string, ConfigKeySchema>> = {
  permissions: {
    type: 'string',
    enum: PERMISSION_LEVELS,
    description:
      "Default permission level of agent chats that do not ask for one (read-only, workspace-write, full). A tool's own key (codexSandbox, claudeCodeToolAccess) wins for that tool; unset, agents run read-only.",
    group: 'general',
  },
  warmIdleMs: {
    type: 'integer',
    minimum: 0,
    maximum: 86_400_000,
    description:
      'How long a warm (long-lived) tool process may sit idle before it is shut down, in ms (default 300000 = 5 minutes); 0 turns warm mode off and every chat spawns its tool.',
    group: 'general',
  },
};
