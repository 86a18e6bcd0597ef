import type { ModelCatalogs } from './images.js';
import type { SessionDirs } from './session-files.js';

/** What one chat turn works with on either transport (a `serve` session or an `opencode run`), beside the request. */
export interface TurnInputs {
  /** The model the chat asks for (`provider/model`), else OpenCode's own choice. */
  model: string | undefined;
  /** Which models take images (read from `opencode models`). */
  catalogs: ModelCatalogs;
  /** The directories of the sessions Toolbridge made, to continue one only where it lives. */
  sessions: SessionDirs;
}
