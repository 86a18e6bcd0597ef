import type { StreamEvent } from '@toolbridge/core';
import { parseJsonLine } from './text.js';

/** One event of a tool's JSON-lines output: an object with a string `type`. */
export type JsonEvent = Record<string, unknown> & { type: string };

/**
 * The reading of a tool's JSON-lines output (`--output-format json` and the like) that every such
 * parser shares: blank lines are skipped, and a line that is not an event is counted, not read
 * (a failure names the count: a tool that printed something else). The tool's parser reads the events.
 */
export abstract class JsonEventParser {
  nonJsonLines = 0;

  push(line: string): StreamEvent[] {
    if (!line.trim()) return [];
    const event = parseJsonLine(line);
    if (!event || typeof event.type !== 'string') {
      this.nonJsonLines++;
      return [];
    }
    return this.pushEvent(event as JsonEvent);
  }

  /** One event as the stream events it makes. */
  abstract pushEvent(event: JsonEvent): StreamEvent[];
}
