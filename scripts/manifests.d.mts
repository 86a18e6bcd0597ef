// Types of manifests.mjs for the TypeScript that imports it (the packaging tests).

export const MIN_NODE: string;
export function normalise(pkg: { dir: string; rel: string; manifest: Record<string, any> }): {
  problems: string[];
  manifest: Record<string, any>;
};
export function absoluteLinks(markdown: string, dir: string): string;
