import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The title Toolbridge gives the OpenCode sessions it starts. Without one OpenCode asks the model
 * for a title on every new session: two model calls per chat (measured with 1.18.33, FACTS §1.7,
 * §4); `opencode run --title <t>` and serve's `POST /session {title}` make it one.
 */
export const SESSION_TITLE = 'Toolbridge chat';

/** Comments and trailing commas of OpenCode's JSONC config files, removed well enough to read one key. */
function parseJsonc(text: string): unknown {
  const stripped = text
    .replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, s: string | undefined) => s ?? '')
    .replace(/,(\s*[}\]])/g, '$1');
  return JSON.parse(stripped);
}

function asksForTitles(config: unknown): boolean {
  const agent = (config as { agent?: Record<string, unknown> } | null)?.agent;
  const title = agent?.title as { disable?: unknown } | undefined;
  return typeof title === 'object' && title !== null && title.disable !== true;
}

/**
 * Whether the user's own OpenCode config asks for generated titles: it configures the `title`
 * agent (`"agent": {"title": {...}}`, e.g. a model or prompt of its own) in
 * `OPENCODE_CONFIG_CONTENT`, the file `OPENCODE_CONFIG` names, or the global
 * `$XDG_CONFIG_HOME/opencode/opencode.json(c)`. Then Toolbridge leaves titles to OpenCode.
 */
export function userWantsTitles(env: NodeJS.ProcessEnv): boolean {
  const sources: Array<() => string | undefined> = [() => env.OPENCODE_CONFIG_CONTENT];
  if (env.OPENCODE_CONFIG) sources.push(() => readFileSync(env.OPENCODE_CONFIG!, 'utf8'));
  const configHome = env.XDG_CONFIG_HOME || (env.HOME ? path.join(env.HOME, '.config') : undefined);
  if (configHome) {
    for (const name of ['opencode.json', 'opencode.jsonc', 'config.json']) {
      sources.push(() => readFileSync(path.join(configHome, 'opencode', name), 'utf8'));
    }
  }
  return sources.some((read) => {
    try {
      const text = read();
      return text !== undefined && text.trim() !== '' && asksForTitles(parseJsonc(text));
    } catch {
      // Missing or unreadable: it asks for nothing.
      return false;
    }
  });
}
