/**
 * @toolbridge/adapter-kit: what every adapter needs and none should write again. An adapter built
 * on it holds only what is truly about its tool: argv, event parsing, failure classification,
 * credential and usage reading.
 */
export { ACTIVITY_TAIL_CHARS, finishedStep, otherActivity, startedStep } from './activity.js';
export { JsonEventParser, type JsonEvent } from './json-events.js';
export { KeyedListeners } from './keyed-listeners.js';
export { endGracefully } from './end-gracefully.js';
export { LineProcess, PendingRequests, type LineProcessExit, type LineProcessSpec } from './line-process.js';
export { approveAction, insideRoots, refusedByLevel } from './approvals.js';
export { acpMcpServers, mcpConfigJson, type AcpMcpServer, type McpConfigServer } from './mcp-servers.js';
export { adapterConfig, configPrefix, type AdapterConfig, type KeyDeclaration } from './config.js';
export { defineAdapter, type AdapterSpec } from './define.js';
export { alreadyLoggedIn, firstSignInUrl, LoginManager, manualLogin, manualLoginOf, type LoginSpec } from './login.js';
export { permissionReport, resolvePermissions, type PermissionReport, type ResolvedPermissions } from './permissions.js';
export { parseVersionText, probeVersion, type VersionProbe, type VersionProbeOptions } from './probe.js';
export { endedWithoutResult, toolFailure } from './failures.js';
export {
  classifyFailure,
  failureClass,
  type FailureClass,
  type FailureFacts,
  type FailureRule,
  type FailureTable,
} from './failure-table.js';
export { parseRetryAfter, retryAfterMs } from './retry-after.js';
export {
  liveProcessGroupCount,
  runProcess,
  spawnProcess,
  type CollectedProcessResult,
  type ProcessResult,
  type RunningProcess,
  type SpawnOptions,
} from './runner.js';
export { promptWithImagePaths, writeImageFiles } from './images.js';
export { refuseMisreadArgs } from './request-checks.js';
export { runFiles, type RunFiles } from './run-files.js';
export { NO_EXIT, spawnTurn, type SpawnLaunch, type SpawnTurnSpec } from './spawn-turn.js';
export { readDotEnv, readJsonFile } from './settings-files.js';
export { nativeSchema, type NativeSchema } from './structured.js';
export { findMarked, findMarkedSync, killStragglers, RUN_MARKER_ENV } from './stragglers.js';
export { imagesOf, integerUsage, messageText, parseJsonLine, renderConversation, stripAnsi, systemText } from './text.js';
export { descendants, groupRssBytes, pidsWithEnv, processRunning } from './proc.js';
export { retriesOnFreshProcess, WarmPool, type WarmLease, type WarmMember, type WarmPoolOptions } from './warm-pool.js';
export { WarmTransport, type WarmProgress, type WarmSetup, type WarmTurnSpec } from './warm-transport.js';
export { DEFAULT_WARM_IDLE_MS, envFingerprint, warmFingerprint, warmIdleMs, whichOnPath } from './fingerprint.js';
export { AcpAgent, AcpRequestError, type AcpAgentLaunch, type AcpSessionListener } from './acp-agent.js';
export { AcpTransport, acpOnly, type AcpLaunch, type AcpTransportSpec } from './acp-transport.js';
export { acpTurn } from './acp-turn.js';
export { promptBlocks } from './acp-session.js';
export type { AcpNotice, AcpPromptResponse, AcpTurnEnd, AcpTurnSpec } from './acp-turn-spec.js';
export { activityOfPlan, activityOfToolCall, approvalOfToolCall, mergeToolCall, type AcpToolCall } from './acp-updates.js';
