import type { ApprovalAnswer, ApprovalGate, ApprovalRequest, ChatContext, ToolAdapter } from '@toolbridge/core';

/** An in-test `ApprovalGate`: records what it is asked; answers by `decide`, or waits for the test's `answer`. */
export interface TestGate extends ApprovalGate {
  /** Every request asked, in order. */
  readonly asked: ApprovalRequest[];
  /** The request asked after the `n`th (0: the first), waiting for it if need be. */
  nth(n: number, timeoutMs?: number): Promise<ApprovalRequest>;
  /** Answer the oldest unanswered request (when the gate has no `decide`). */
  answer(answer: ApprovalAnswer): void;
  /** When each request was asked and answered (`performance.now()`), for benchmarks. */
  readonly times: { askedAt: number; answeredAt?: number }[];
}

/**
 * A small ApprovalGate for adapter tests (core's, with its events and timeouts, is tested in
 * core): `decide` answers at once; without it each request waits for `answer()`.
 */
export function testGate(decide?: (request: ApprovalRequest) => ApprovalAnswer): TestGate {
  const asked: ApprovalRequest[] = [];
  const times: { askedAt: number; answeredAt?: number }[] = [];
  const waiting: Array<(a: ApprovalAnswer) => void> = [];
  const watchers: Array<() => void> = [];
  return {
    asked,
    times,
    ask(request) {
      const time = { askedAt: performance.now() } as { askedAt: number; answeredAt?: number };
      asked.push(request);
      times.push(time);
      for (const w of watchers.splice(0)) w();
      const answered = decide ? Promise.resolve(decide(request)) : new Promise<ApprovalAnswer>((r) => waiting.push(r));
      return answered.then((a) => {
        time.answeredAt = performance.now();
        return a;
      });
    },
    answer(a) {
      const next = waiting.shift();
      if (!next) throw new Error('no approval request is waiting');
      next(a);
    },
    async nth(n, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (asked.length <= n) {
        if (Date.now() > deadline) throw new Error(`approval request ${n} was not asked within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          watchers.push(r);
          setTimeout(r, 100).unref();
        });
      }
      return asked[n]!;
    },
  };
}

/** What a test adds to each chat's context: the gate, the interrupt signal. */
export type ChatControl = Partial<Pick<ChatContext, 'approvals' | 'interrupt'>>;

/**
 * The adapter, its chats given `approvals`/`interrupt` as core gives them for `approvals: "ask"`
 * and `interrupt(sessionId)`: for adapter tests through a registry. `control` is read per chat.
 */
export function withChatControl(adapter: ToolAdapter, control: () => ChatControl): ToolAdapter {
  const wrapped = Object.create(adapter) as ToolAdapter;
  Object.defineProperty(wrapped, 'stream', {
    value: (request: Parameters<ToolAdapter['stream']>[0], ctx: ChatContext) => adapter.stream(request, { ...ctx, ...control() }),
  });
  return wrapped;
}
