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
