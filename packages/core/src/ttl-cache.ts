interface Entry<V> {
  at: number;
  settled: boolean;
  promise: Promise<V>;
  value?: V;
  /** The last settled value while a newer load runs (for `allowStale`). */
  previous?: Promise<V>;
  /** Invalidated while loading: what it read may predate the lesson, so it is not kept once it settles. */
  stale?: boolean;
}

export interface CacheGetOptions {
  /** Load again even if a settled value is younger than the TTL (a load under way is still shared). */
  refresh?: boolean;
  /** Answer at once with a value past its TTL while a fresh load runs beside it. */
  allowStale?: boolean;
}

/**
 * A per-key cache with a TTL where concurrent callers share one load (single-flight). Used for
 * both discovery and health, so a hung tool never holds up the others' results and polling
 * costs one probe per TTL. A failed load is forgotten at once.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  constructor(
    private readonly load: (key: K) => Promise<V>,
    private readonly ttlMs: number,
  ) {}

  get(key: K, options: CacheGetOptions = {}): Promise<V> {
    const cached = this.entries.get(key);
    if (cached && !cached.settled) return options.allowStale && cached.previous && !options.refresh ? cached.previous : cached.promise;
    if (cached && !options.refresh && Date.now() - cached.at < this.ttlMs) return cached.promise;
    const entry: Entry<V> = { at: Date.now(), settled: false, promise: this.load(key), previous: cached?.promise };
    void entry.promise.then(
      (value) => {
        entry.settled = true;
        entry.value = value;
        entry.at = Date.now();
        entry.previous = undefined;
        if (entry.stale && this.entries.get(key) === entry) this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    this.entries.set(key, entry);
    return options.allowStale && !options.refresh && entry.previous ? entry.previous : entry.promise;
  }

  /** A settled value still within its TTL, without waiting or loading. */
  fresh(key: K): V | undefined {
    const e = this.entries.get(key);
    return e?.settled && Date.now() - e.at < this.ttlMs ? e.value : undefined;
  }

  /** The last settled value, however old. */
  last(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /**
   * Forget a settled value (what it said has been proved wrong). A load under way still answers
   * the callers already waiting on it, but is not kept: it may have read what was true before.
   */
  invalidate(key: K): void {
    const e = this.entries.get(key);
    if (e?.settled) this.entries.delete(key);
    else if (e) e.stale = true;
  }

  /** Forget one entry only if it is this very load (a load cut short says nothing). */
  forget(key: K, promise: Promise<V>): void {
    if (this.entries.get(key)?.promise === promise) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
