import type { McpServerEntry, PermissionLevel } from '@toolbridge/core';

/** The prefix of the variables that carry a chat's MCP secrets into Codex's environment. */
export const MCP_ENV_PREFIX = 'TOOLBRIDGE_MCP_';

/** A chat's MCP servers as Codex takes them: config overrides (no secret in them) and the environment that holds the secrets. */
export interface CodexMcpSetup {
  /** `key -> TOML value`, given as `-c key=value` to `codex exec` / `codex app-server`. */
  config: Record<string, string>;
  /** Added to Codex's own environment: each secret under a generated name that the config names. */
  env: Record<string, string>;
}

/** A TOML string (JSON's escapes are TOML's basic-string escapes). */
const str = (s: string): string => JSON.stringify(s);
const list = (items: readonly string[]): string => `[${items.map(str).join(', ')}]`;
const table = (entries: ReadonlyArray<readonly [string, string]>): string =>
  `{ ${entries.map(([k, v]) => `${str(k)} = ${v}`).join(', ')} }`;

/**
 * `mcp_servers.<name>` for each server, a whole inline table (it replaces a same-named server of
 * the user's config instead of merging into it). Secrets never reach argv: Codex 0.169 passes a
 * stdio server only HOME, LANG, PATH, TMPDIR and the variables its `env_vars` names, by their own
 * name, and sends a remote server's `env_http_headers` from variables too. So each `env` value and
 * header goes into Codex's environment as `TOOLBRIDGE_MCP_<server>_<n>`, and a stdio server with
 * `env` starts through `/bin/sh -c`, which exports each variable under the name the server wants
 * (the script holds names only) and `exec`s the server.
 *
 * `ask`: Codex asks before each call of the server's tools (`default_tools_approval_mode =
 * "prompt"`), which the warm transport answers through the caller. Otherwise the calls run
 * unasked (`"approve"`: `codex exec` has nobody to ask and would fail every call), except at
 * read-only, which allows no action the agent would ask about: there every call is refused.
 */
export function codexMcpSetup(servers: readonly McpServerEntry[], level: PermissionLevel, ask: boolean): CodexMcpSetup {
  const config: Record<string, string> = {};
  const env: Record<string, string> = {};
  const mode = ask || level === 'read-only' ? 'prompt' : 'approve';
  servers.forEach((s, i) => {
    const secret = (j: number, value: string): string => {
      const name = `${MCP_ENV_PREFIX}${i}_${j}`;
      env[name] = value;
      return name;
    };
    const fields: Array<readonly [string, string]> = [];
    if ('command' in s) {
      const vars = Object.entries(s.env ?? {}).map(([key, value], j) => [key, secret(j, value)] as const);
      if (vars.length === 0) fields.push(['command', str(s.command)], ['args', list(s.args ?? [])]);
      else {
        const exports = vars.map(([key, name]) => `export ${key}="$${name}"; unset ${name}; `).join('');
        fields.push(
          ['command', str('/bin/sh')],
          // `$0` is the server's command and `$@` its arguments: no quoting of them in the script.
          ['args', list(['-c', `${exports}exec "$0" "$@"`, s.command, ...(s.args ?? [])])],
          ['env_vars', list(vars.map(([, name]) => name))],
        );
      }
    } else {
      fields.push(['url', str(s.url)]);
      const headers = Object.entries(s.headers ?? {}).map(([header, value], j) => [header, str(secret(j, value))] as const);
      if (headers.length) fields.push(['env_http_headers', table(headers)]);
    }
    fields.push(['default_tools_approval_mode', str(mode)]);
    config[`mcp_servers.${s.name}`] = table(fields);
  });
  return { config, env };
}

/**
 * Keeps the secrets out of the commands the model runs: Codex gives them its whole environment
 * (`shell_environment_policy`, default "inherit all"), so the user's `exclude` list gets the
 * generated names added (an override replaces the list, so the user's patterns are kept in it).
 */
export function shellExcludeConfig(userExclude: readonly string[]): Record<string, string> {
  return { 'shell_environment_policy.exclude': list([...userExclude, `${MCP_ENV_PREFIX}*`]) };
}
