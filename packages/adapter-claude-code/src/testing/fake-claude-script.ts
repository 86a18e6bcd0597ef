/**
 * The fake `claude`'s program (plain JavaScript, CommonJS), given its spec as JSON. Print mode
 * speaks stream-json on stdin as the real 2.1.330 does: control requests (`initialize`,
 * `interrupt`, ...) are answered; each user line replays the chat reply, between
 * `command_lifecycle` "started" and "completed" when it carries a uuid; `/clear` resets the
 * conversation; stdin's end lets a run finish its reply and exit. A reply that hangs waits for an
 * `interrupt` (then ends with an aborted result) unless `ignoreInterrupt`.
 */
export function fakeClaudeProgram(specJson: string): string {
  return `
const fs = require('fs');
const { randomUUID } = require('crypto');
const spec = ${specJson};
const argv = process.argv.slice(2);
if (spec.pidFile) fs.appendFileSync(spec.pidFile, process.pid + '\\n');
const out = (o) => process.stdout.write((typeof o === 'string' ? o : JSON.stringify(o)) + (typeof o === 'string' ? '' : '\\n'));
const replay = async (reply) => {
  const text = reply.stdoutFile ? fs.readFileSync(reply.stdoutFile, 'utf8') : (reply.stdout || '');
  for (const l of text.split(/(?<=\\n)/)) {
    if (!l) continue;
    out(l);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  }
};
// Like Claude Code, file the transcript of the session a reply names (under the config dir, by cwd).
const fileSession = (reply) => {
  if (argv.includes('--no-session-persistence')) return;
  const text = reply.stdoutFile ? fs.readFileSync(reply.stdoutFile, 'utf8') : (reply.stdout || '');
  const id = (/"session_id":"([^"]+)"/.exec(text) || [])[1];
  if (!id) return;
  const config = process.env.CLAUDE_CONFIG_DIR || require('path').join(process.env.HOME || '/nonexistent', '.claude');
  const dir = require('path').join(config, 'projects', process.cwd().replace(/[^a-zA-Z0-9]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(require('path').join(dir, id + '.jsonl'), '{}\\n');
};
let reply;
const print = argv.includes('-p') || argv.includes('--print');
if (argv[0] === '--version' || argv[0] === '-v') reply = spec.version || { stdout: '2.1.330 (Claude Code)\\n' };
else if (argv[0] === 'auth' && argv[1] === 'status') reply = spec.authStatus || { stdout: '{"loggedIn": false, "authMethod": "none"}\\n', exitCode: 1 };
else if (argv[0] === 'auth' && argv[1] === 'login') reply = spec.login || { hang: true };
else if (print) reply = spec.chat || {};
else reply = { stderr: 'fake claude: unexpected arguments ' + JSON.stringify(argv) + '\\n', exitCode: 2 };

const record = (input) => {
  if (!spec.recordFile) return;
  const env = {};
  for (const k of ['CLAUDE_CODE_MAX_RETRIES', 'TMPDIR', 'MAX_STRUCTURED_OUTPUT_RETRIES', 'IS_SANDBOX']) if (process.env[k] !== undefined) env[k] = process.env[k];
  const tmpdirMode = process.env.TMPDIR && fs.existsSync(process.env.TMPDIR) ? fs.statSync(process.env.TMPDIR).mode & 0o777 : undefined;
  const sp = argv.indexOf('--system-prompt-file') >= 0 ? argv[argv.indexOf('--system-prompt-file') + 1]
    : argv.indexOf('--append-system-prompt-file') >= 0 ? argv[argv.indexOf('--append-system-prompt-file') + 1] : undefined;
  let systemPrompt;
  if (sp) systemPrompt = { text: fs.readFileSync(sp, 'utf8'), mode: fs.statSync(sp).mode & 0o777 };
  fs.appendFileSync(spec.recordFile, JSON.stringify({ argv, stdin: input, cwd: process.cwd(), env, tmpdirMode, systemPrompt, pid: process.pid }) + '\\n');
};

if (!print || reply.atStart) {
  // Probes, logins, and runs that refuse before reading any input.
  record(undefined);
  if (reply.stderr) process.stderr.write(reply.stderr);
  replay(reply).then(() => {
    if (reply.hang) setInterval(() => {}, 1000);
    else process.exitCode = reply.exitCode || 0;
  });
} else {
  if (reply.stderr) process.stderr.write(reply.stderr);
  let input = '';
  let buf = '';
  let busy;
  let ended = false;
  let session = randomUUID();
  const finish = () => {
    if (!ended || busy) return;
    if (reply.hang) setInterval(() => {}, 1000);
    else process.exit(reply.exitCode || 0);
  };
  const lifecycle = (uuid, state) => uuid && out({ type: 'command_lifecycle', command_uuid: uuid, state, uuid: randomUUID(), session_id: session });
  const onLine = async (line) => {
    let msg;
    try { msg = JSON.parse(line); } catch { process.stderr.write('Error parsing streaming input line\\n'); process.exit(1); }
    input += line + '\\n';
    if (msg.type === 'control_request') {
      const r = msg.request || {};
      if (r.subtype === 'initialize' && spec.initDelayMs) await new Promise((res) => setTimeout(res, spec.initDelayMs));
      if (r.subtype === 'initialize' && spec.initFails) { process.stderr.write('fake claude: cannot start\\n'); process.exit(1); }
      out({ type: 'control_response', response: { subtype: 'success', request_id: msg.request_id, response: r.subtype === 'interrupt' ? { still_queued: [] } : {} } });
      if (r.subtype === 'interrupt' && busy && !spec.ignoreInterrupt) {
        const uuid = busy.uuid;
        clearInterval(busy.keepAlive);
        busy = undefined;
        out({ type: 'result', subtype: 'error_during_execution', is_error: true, terminal_reason: 'aborted_streaming', session_id: session, errors: ['interrupted'] });
        lifecycle(uuid, 'completed');
        finish();
      }
      return;
    }
    if (msg.type !== 'user') return;
    lifecycle(msg.uuid, 'queued');
    lifecycle(msg.uuid, 'started');
    if (msg.message && msg.message.content === '/clear') {
      const old = session;
      session = randomUUID();
      out({ type: 'conversation_reset', new_conversation_id: randomUUID(), trigger: 'clear', session_id: old });
      out({ type: 'system', subtype: 'init', session_id: session, model: 'claude-opus-5-5', cwd: process.cwd() });
      out({ type: 'result', subtype: 'success', is_error: false, num_turns: 0, result: '', local_command: 'clear', session_id: session });
      lifecycle(msg.uuid, 'completed');
      return;
    }
    record(input);
    // Claude Code writes the transcript as the turn goes, before its result.
    fileSession(reply);
    busy = { uuid: msg.uuid };
    const crash = spec.crash;
    if (crash && !(crash.onceFile && fs.existsSync(crash.onceFile))) {
      if (crash.onceFile) fs.writeFileSync(crash.onceFile, '');
      const text = reply.stdoutFile ? fs.readFileSync(reply.stdoutFile, 'utf8') : (reply.stdout || '');
      await replay({ stdout: text.split(/(?<=\\n)/).slice(0, crash.afterLines).join('') });
      process.stderr.write('fake claude: crashed\\n');
      process.exit(1);
    }
    await replay(reply);
    // A hanging reply keeps the process alive (its input may have ended) until an interrupt.
    if (reply.hang) return void (busy.keepAlive = setInterval(() => {}, 1000));
    busy = undefined;
    lifecycle(msg.uuid, 'completed');
    finish();
  };
  let chain = Promise.resolve();
  process.stdin.on('data', (c) => {
    buf += c;
    let i;
    while ((i = buf.indexOf('\\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) chain = chain.then(() => onLine(line));
    }
  });
  process.stdin.on('end', () => chain.then(() => { ended = true; finish(); }));
}
`;
}
