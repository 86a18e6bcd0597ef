/**
 * The bridge token, kept for this tab only (sessionStorage): never in
 * localStorage, cookies or URLs, so it is gone when the tab closes.
 */

const KEY = 'toolbridge.token';
let memory: string | undefined;

export function getToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    // Storage can be disabled; the token then lasts as long as the page.
    return memory;
  }
}

export function setToken(token: string): void {
  memory = token;
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // kept in memory only
  }
}

export function clearToken(): void {
  memory = undefined;
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
