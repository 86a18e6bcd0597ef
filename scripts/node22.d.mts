// Types of node22.mjs, for the TypeScript tests that run a tool on the pinned Node 22 (Qwen Code).
export declare const NODE22: { pkg: string; version: string; bin: string };
export declare function cliCache(): string;
export declare function needsPinnedNode22(): boolean;
export declare function pinnedNode22Path(): string;
/** TOOLBRIDGE_NODE22 when set, this Node when it is 22 or newer, else the pinned one (undefined when not installed). */
export declare function node22Binary(): string | undefined;
