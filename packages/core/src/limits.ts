/**
 * Every bound a request is checked against, in one place: the wire schemas (and so the bridge
 * and `/openapi.json`), request validation and the orchestrator all read these.
 */
export const LIMITS = {
  /** Retries per tool in a fallback chat: more would only hammer a tool that keeps failing. */
  maxRetries: 10,
  /** Longest deadline a request may set, in ms (24 h). */
  maxTimeoutMs: 86_400_000,
  /** Longest a fallback chat may wait for a usage window to reset (`waitForQuota`), in ms (1 h). */
  maxQuotaWaitMs: 3_600_000,
  /** Tools in one fallback list. */
  maxProviders: 32,
  /** Images in one request. */
  maxImages: 8,
  /** Bytes of one image, decoded. */
  maxImageBytes: 10 * 1024 * 1024,
  /** Extra directories an agent may be given besides its working directory. */
  maxAdditionalDirs: 16,
  /** Bytes of a JSON Schema given as `responseFormat.schema`, serialised. */
  maxSchemaBytes: 256 * 1024,
} as const;

/** setTimeout's limit; larger values would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
