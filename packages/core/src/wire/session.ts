import { Type, type Static } from '@sinclair/typebox';
import { IsoTime } from './common.js';
import { ChatMessage } from './chat.js';

export const SessionSummary = Type.Object({
  id: Type.String(),
  toolId: Type.String({ description: 'The tool the session belongs to now' }),
  model: Type.Optional(Type.String()),
  createdAt: IsoTime,
  updatedAt: IsoTime,
  turns: Type.Integer(),
  title: Type.String({ description: 'The first prompt, cut short' }),
  cwd: Type.Optional(Type.String({ description: 'The working directory the caller chose (absent: a private one)' })),
  forkedFrom: Type.Optional(Type.String()),
});
export type SessionSummary = Static<typeof SessionSummary>;

export const TranscriptMessage = Type.Composite([
  ChatMessage,
  Type.Object({ toolId: Type.Optional(Type.String({ description: 'For assistant messages: the tool that answered' })), at: IsoTime }),
]);
export type TranscriptMessage = Static<typeof TranscriptMessage>;

export const ToolChange = Type.Object({ from: Type.String(), to: Type.String(), at: IsoTime });

export const SessionDetail = Type.Composite([
  SessionSummary,
  Type.Object({ messages: Type.Array(TranscriptMessage), toolChanges: Type.Array(ToolChange) }),
]);
export type SessionDetail = Static<typeof SessionDetail>;
