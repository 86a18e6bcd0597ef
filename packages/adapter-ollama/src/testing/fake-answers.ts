/** The fake server's answers: NDJSON chunks shaped as Ollama 0.9 streams them. */

const NS = 1_000_000;

/** Word-sized pieces, as a model streams tokens. */
export function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export interface AnswerOptions {
  reply: string | ((model: string, body: Record<string, unknown>) => string);
  thinking: string;
  /** A fixed `prompt_eval_count`; negative: about a quarter of the request's characters. */
  promptTokens: number;
}

/** The NDJSON lines of a streamed answer (thinking first on `/api/chat`), final chunk last. */
export function answerLines(
  route: '/api/chat' | '/api/generate',
  model: string,
  body: Record<string, unknown>,
  o: AnswerOptions,
): string[] {
  const created = () => new Date().toISOString();
  const answer = tokens(typeof o.reply === 'function' ? o.reply(model, body) : o.reply);
  const promptTokens = o.promptTokens >= 0 ? o.promptTokens : JSON.stringify(body.messages ?? body.prompt ?? '').length >> 2;
  const limit = (body.options as { num_predict?: number } | undefined)?.num_predict;
  const shown = limit !== undefined ? answer.slice(0, limit) : answer;
  const chunks: Record<string, unknown>[] = [];
  if (route === '/api/chat') {
    for (const t of tokens(o.thinking))
      chunks.push({ model, created_at: created(), message: { role: 'assistant', content: '', thinking: t }, done: false });
    for (const t of shown) chunks.push({ model, created_at: created(), message: { role: 'assistant', content: t }, done: false });
  } else {
    for (const t of shown) chunks.push({ model, created_at: created(), response: t, done: false });
  }
  const final: Record<string, unknown> = {
    model,
    created_at: created(),
    ...(route === '/api/chat' ? { message: { role: 'assistant', content: '' } } : { response: '' }),
    done_reason: limit !== undefined && shown.length < answer.length ? 'length' : 'stop',
    done: true,
    ...(route === '/api/generate' ? { context: [151644, 872, 198, 9707, 151645] } : {}),
    total_duration: 912 * NS,
    load_duration: 41 * NS,
    prompt_eval_count: promptTokens,
    prompt_eval_duration: 88 * NS,
    eval_count: shown.length,
    eval_duration: 760 * NS,
  };
  return [...chunks, final].map((c) => JSON.stringify(c) + '\n');
}
