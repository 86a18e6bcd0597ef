import { InvalidRequestError } from './errors.js';

/**
 * The version of the adapter contract (`ToolAdapter`) this core implements. An adapter states the
 * version it was written against (`specificationVersion: 'v1'`, as vercel/ai's providers do), so a
 * registry given an adapter built for another contract refuses it by name at start-up instead of
 * failing in the middle of a chat. Bump it only for a change an existing adapter cannot meet.
 */
export const ADAPTER_SPECIFICATION_VERSION = 'v1';
export type AdapterSpecificationVersion = typeof ADAPTER_SPECIFICATION_VERSION;

/** Throws unless `adapter` implements the contract version this core runs. */
export function checkSpecificationVersion(adapter: { id?: unknown; specificationVersion?: unknown }): void {
  const version = adapter.specificationVersion;
  if (version === ADAPTER_SPECIFICATION_VERSION) return;
  const named = version === undefined ? 'no specificationVersion' : `specificationVersion ${JSON.stringify(version)}`;
  throw new InvalidRequestError(
    `adapter "${String(adapter.id)}" has ${named}; this @toolbridge/core runs adapters of specification ` +
      `"${ADAPTER_SPECIFICATION_VERSION}": install the adapter's version that matches @toolbridge/core`,
  );
}
