// Types of published-manifest.cjs for the TypeScript that imports it (the packaging tests).

export declare const SOURCE_CONDITION: string;
export declare function publishedManifest<T extends Record<string, any>>(pkg: T): Record<string, any>;
