/**
 * Listeners by key, for a long-lived process that serves many conversations at once (a Codex
 * thread, an OpenCode session): each chat hears its own key's messages, and a key with no
 * listener left is forgotten.
 */
export class KeyedListeners<T> {
  private readonly byKey = new Map<string, Set<(value: T) => void>>();

  /** Hear `key`'s messages; the returned function stops it. */
  on(key: string, listener: (value: T) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.byKey.delete(key);
    };
  }

  emit(key: string, value: T): void {
    for (const listener of this.byKey.get(key) ?? []) listener(value);
  }
}
