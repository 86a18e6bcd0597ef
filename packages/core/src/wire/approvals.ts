import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, StringEnum } from './common.js';

/**
 * Approvals: with `approvals: "ask"` every action with a side effect that the permission level
 * allows is asked before it runs. These are the wire shapes (the SSE `approval` event, `GET
 * /approvals`, `POST /approvals/:id`, `result.metadata.approvals`).
 */
export const APPROVAL_MODES = ['never', 'ask'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export const APPROVAL_KINDS = ['command', 'file_change', 'tool_call'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export const APPROVAL_DECISIONS = ['allow', 'allow_session', 'deny'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** The chat request fields of approvals (merged into `chatRequestFields`). */
export const approvalRequestFields = {
  approvals: Type.Optional(
    StringEnum(APPROVAL_MODES, { description: 'never (default): the level alone decides; ask: each side-effecting action is asked first' }),
  ),
  approvalTimeoutMs: Type.Optional(
    Type.Integer({ minimum: 1000, maximum: 86_400_000, description: 'An unanswered approval is denied after this (default 300000)' }),
  ),
};

const FileChangeRef = Type.Object({ path: Type.String(), kind: StringEnum(['add', 'update', 'delete'] as const) });

/** One pending approval, as the SSE `approval` event and `GET /approvals` carry it. */
export const Approval = Type.Object({
  id: Type.String({ description: 'Unguessable id; answer with POST /approvals/:id' }),
  sessionId: Type.Optional(Type.String()),
  toolId: Type.String(),
  kind: StringEnum(APPROVAL_KINDS),
  title: Type.String(),
  command: Type.Optional(Type.String()),
  cwd: Type.Optional(Type.String()),
  changes: Type.Optional(Type.Array(FileChangeRef)),
  tool: Type.Optional(Type.String()),
  input: Type.Optional(Type.Unknown()),
  options: Type.Array(StringEnum(APPROVAL_DECISIONS)),
  expiresAt: IsoTime,
});
export type Approval = Static<typeof Approval>;

/** `POST /approvals/:id` body. */
export const ApprovalReply = Type.Object(
  { decision: StringEnum(APPROVAL_DECISIONS), message: Type.Optional(Type.String({ maxLength: 4000 })) },
  { additionalProperties: false },
);
export type ApprovalReply = Static<typeof ApprovalReply>;

/** One entry of `result.metadata.approvals`. */
export const ApprovalRecord = Type.Object({
  id: Type.String(),
  kind: StringEnum(APPROVAL_KINDS),
  title: Type.String(),
  decision: StringEnum(APPROVAL_DECISIONS),
  decidedBy: StringEnum(['caller', 'timeout', 'session'] as const),
});
export type ApprovalRecord = Static<typeof ApprovalRecord>;
