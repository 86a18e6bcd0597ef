import type { ChatContext, StreamEvent, ToolAdapter, ToolRequest } from '../adapter.js';
import { raceAbort } from '../abort.js';
import type { ActivityLog } from '../activities.js';
import type { CallScope } from '../call-scope.js';
import { AbortedError, ProviderExecutionError } from '../errors.js';
import type { TurnControl } from '../turn-control.js';
import type { ChatResult } from '../types.js';

/** "The stream ended without a result": one error, wherever a stream ends early. */
export function noResultError(name: string, toolId?: string): ProviderExecutionError {
  return new ProviderExecutionError(`${name} ended its answer without a final result`, { toolId });
}

/** What one adapter run of a turn works with. */
export interface RunInputs {
  scope: CallScope;
  adapter: ToolAdapter;
  ctx: ChatContext;
  /** The call's own signal (the adapter's also aborts on core's stop). */
  callSignal: AbortSignal;
  activities: ActivityLog;
  control: TurnControl;
}

/**
 * The run stage: stream one adapter run, pass deltas (held back when the answer must be checked
 * first), activities and the turn's approvals on, return its result. Leaving early ends the
 * adapter's work (its process is killed); after an abort the adapter gets a bounded time to clean
 * up. An interrupt the adapter does not end by itself (no native interrupt, or not within the
 * grace) stops its stream here, and the answer is the text so far.
 */
export async function* runAdapter(run: RunInputs, request: ToolRequest, holdDeltas: boolean): AsyncGenerator<StreamEvent, ChatResult> {
  const { scope, adapter, ctx, callSignal, activities, control } = run;
  const iterator = adapter.stream(request, ctx)[Symbol.asyncIterator]();
  let result: ChatResult | undefined;
  let exhausted = false;
  let text = '';
  let next: Promise<IteratorResult<StreamEvent>> | undefined;
  try {
    for (;;) {
      const approval = control.take();
      if (approval) {
        yield { type: 'approval', approval };
        continue;
      }
      if (control.mustStop) break;
      next ??= scope.watch(iterator.next());
      const got = await raceAbort(Promise.race([next, control.next()]), callSignal);
      if ('type' in got) continue;
      next = undefined;
      if (got.done) {
        exhausted = true;
        break;
      }
      const event = got.value;
      if (event.type === 'result') result = event.result;
      else if (event.type === 'activity') yield { type: 'activity', activity: activities.update(event.activity) };
      else if (event.type === 'delta' && event.text.length > 0) {
        text += event.text;
        if (!holdDeltas) yield event;
      }
    }
  } finally {
    if (!exhausted) {
      // An adapter awaiting something (an approval, its tool) is stopped through its signal; a
      // generator resting at a yield is ended by return().
      if (!ctx.signal.aborted && (control.mustStop || next)) {
        control.stop.abort(new AbortedError(control.mustStop ? 'The turn was interrupted' : 'The stream was closed by its consumer'));
      }
      const closing = scope.watch(
        Promise.resolve(next)
          .catch(() => undefined)
          .then(() => iterator.return?.())
          .catch(() => undefined),
      );
      if (ctx.signal.aborted) await scope.settle(closing);
      else await closing;
    }
  }
  if (!result && control.mustStop) {
    return {
      message: { role: 'assistant', content: text },
      usage: {},
      ...(request.model ? { model: request.model } : {}),
      metadata: { finishReason: 'interrupted' },
    };
  }
  if (!result) throw noResultError(adapter.name, adapter.id);
  return result;
}
