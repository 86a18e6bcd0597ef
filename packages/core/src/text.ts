/**
 * A caller's value quoted for an error message, cut to `maxChars`: a message
 * names what was wrong, it does not echo a megabyte back.
 */
export function quoted(value: unknown, maxChars = 80): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > maxChars ? `${JSON.stringify(text.slice(0, maxChars))}…` : JSON.stringify(text);
}

/** The last `maxChars` characters of a text, for error messages. */
export function tail(text: string, maxChars = 2000): string {
  const t = text.trim();
  return t.length > maxChars ? '…' + t.slice(-maxChars) : t;
}

const STACK_FRAME = /^\s+at\s/;
// An absolute path (POSIX, `file://`, or a Windows drive) not inside a URL: at a line's start or after a space, quote, bracket or `=`.
const LOCAL_PATH = /(?<=^|[\s'"`(=[])(?:file:\/\/)?(?:[A-Za-z]:\\[^\s'"`)\]]+|(?:\/[\w.@+~-]+){2,}\/?)/gm;

/**
 * A tool's failure as a caller may see it: without the CLI's stack trace (everything from the
 * first `at …` frame on) and with local paths replaced by `<path>`. The useful lines before the
 * trace stay. Core applies it once to every failure of a chat (execution.ts).
 */
export function withoutTraces(message: string): string {
  const lines = message.split('\n');
  const frame = lines.findIndex((l) => STACK_FRAME.test(l));
  const kept = (frame >= 0 ? lines.slice(0, frame) : lines).join('\n').trimEnd();
  return kept.replace(LOCAL_PATH, '<path>');
}
