import { describe, expect, it } from '@jest/globals';
import { raceAbort } from './abort.js';

describe('raceAbort', () => {
  it('with a signal aborted already, a later rejection of the raced promise is handled (no unhandled rejection)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const controller = new AbortController();
      controller.abort(new Error('stopped'));
      let fail!: (e: Error) => void;
      const work = new Promise<never>((_resolve, reject) => (fail = reject));
      await expect(raceAbort(work, controller.signal)).rejects.toThrow('stopped');
      fail(new Error('the work failed later'));
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
