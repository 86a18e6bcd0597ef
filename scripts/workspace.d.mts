// Types of workspace.mjs for the TypeScript that imports it (the packaging test).

export interface WorkspacePackage {
  dir: string;
  rel: string;
  manifest: {
    name: string;
    version: string;
    private?: boolean;
    dependencies?: Record<string, string>;
    bin?: Record<string, string>;
    [key: string]: unknown;
  };
}
export const ROOT: string;
export const REPOSITORY: string;
export function workspacePackages(root?: string): WorkspacePackage[];
export function publicPackages(root?: string): WorkspacePackage[];
export function workspaceClosure(name: string, packages?: WorkspacePackage[]): WorkspacePackage[];
