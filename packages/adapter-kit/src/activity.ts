import type { Activity } from '@toolbridge/core';

/**
 * A step a tool reported that has no kind of its own (a notice, a retry, an event type of a newer
 * version), as a completed `other` activity: titled by the first line of its detail, else its type.
 */
export function otherActivity(id: string, rawType: string, detail?: string): Activity {
  return {
    id,
    kind: 'other',
    status: 'completed',
    title: detail?.split('\n')[0]!.slice(0, 80) || rawType,
    rawType,
    ...(detail ? { detail } : {}),
  };
}
