/** One structured log line per request. Never carries prompts, answers or headers. */
export interface RequestLogEntry {
  time: string;
  level: 'info' | 'warn' | 'error';
  msg: string;
  method?: string;
  route?: string;
  status?: number;
  toolId?: string;
  latencyMs?: number;
  stream?: boolean;
  code?: string;
  [key: string]: unknown;
}

export type BridgeLogger = (entry: RequestLogEntry) => void;

/** Default logger: one JSON line per entry on stderr, so stdout stays free for the CLI. */
export const stderrLogger: BridgeLogger = (entry) => {
  process.stderr.write(JSON.stringify(entry) + '\n');
};

export const silentLogger: BridgeLogger = () => {};
