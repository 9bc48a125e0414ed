// The same script, driven by the official ACP client library, against any
// ACP agent: `agent acp` or Codex's adapter `@zed-industries/codex-acp`
// (cmd/agent/acp_test.go, TestACPSideBySide). ACP_CMD is the agent's
// command line (a JSON array). It records what the agent did at each step
// and every message that does not validate against the SDK's schemas
// (invalid), and prints one JSON line; it throws only when the agent
// cannot be driven at all.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { validate } from "./validate.mjs";

const [cmd, ...args] = JSON.parse(process.env.ACP_CMD);
const work = process.env.WORK;
const report = { invalid: [], steps: {} };

// valid records a message that does not validate, instead of throwing.
function valid(name, v, extra = []) {
  try {
    validate(name, v, extra);
  } catch (e) {
    report.invalid.push(e.message.split("\n")[0]);
  }
}

function connection() {
  // A process group of its own: codex-acp's launcher is node running the
  // platform binary, which outlived the launcher and the test (80 MB
  // each, two a run) until the whole group was killed (exited).
  const child = spawn(cmd, args, { cwd: work, stdio: ["pipe", "pipe", "inherit"], env: process.env, detached: true });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const seen = { updates: [], permissions: [], waiters: [] };
  const app = client({ name: "acp-side-by-side" })
    .onNotification(methods.client.session.update, (cx) => {
      valid("zSessionNotification", cx.params);
      seen.updates.push(cx.params.update);
      for (const w of seen.waiters.splice(0)) w();
    })
    .onRequest(methods.client.session.requestPermission, (cx) => {
      valid("zRequestPermissionRequest", cx.params);
      seen.permissions.push({ title: cx.params.toolCall.title, kind: cx.params.toolCall.kind, options: cx.params.options.map((o) => o.kind) });
      const o = cx.params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: o.optionId } };
    });
  return { child, stream, seen, app };
}

const text = (updates, kind) => updates.filter((u) => u.sessionUpdate === kind).map((u) => (u.content && u.content.text) || "").join("");

// tools summarises the tool calls among updates: kind, last status,
// content types and the text of their output.
function tools(updates) {
  const calls = new Map();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const c = calls.get(u.toolCallId) || { kind: null, status: null, content: [], output: "" };
    if (u.kind) c.kind = u.kind;
    if (u.status) c.status = u.status;
    for (const x of u.content || []) {
      c.content.push(x.type);
      if (x.type === "content" && x.content && x.content.text) c.output += x.content.text;
      if (x.type === "diff") c.output += `[diff ${x.path.replace(work + "/", "")}: ${JSON.stringify(x.oldText ?? null)} -> ${JSON.stringify(x.newText)}]`;
    }
    if (u._meta && u._meta.terminal_output) c.output += u._meta.terminal_output.data;
    calls.set(u.toolCallId, c);
  }
  return [...calls.values()];
}

// keep writes what was seen so far to $REPORT: a run cut short still
// tells what happened up to there.
const keep = () => writeFileSync(process.env.REPORT, JSON.stringify(report));

// exited waits for child to exit; 10 s after its input ended it is killed
// and recorded as such. Either way what is left of its process group
// (the processes it started) is killed then.
function exited(child) {
  const killGroup = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {} // the group is gone
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      killGroup();
      resolve("still running 10 s after its input ended: killed");
    }, 10000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      killGroup();
      resolve(code ?? signal);
    });
  });
}

async function prompt(cx, conn, sessionId, words) {
  keep();
  process.stderr.write(`sidebyside: prompt "${words}"\n`);
  const n = conn.seen.updates.length;
  const asked = conn.seen.permissions.length;
  let stopReason;
  try {
    const r = await Promise.race([
      cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: words }] }),
      new Promise((resolve) => setTimeout(() => resolve(null), 20000)),
    ]);
    if (r === null) {
      stopReason = "no answer in 20 s";
    } else {
      valid("zPromptResponse", r);
      stopReason = r.stopReason;
    }
  } catch (e) {
    stopReason = "error: " + (e.message || "") + " " + JSON.stringify(e.data || "");
  }
  const u = conn.seen.updates.slice(n);
  return {
    stopReason,
    answer: text(u, "agent_message_chunk"),
    chunks: u.filter((x) => x.sessionUpdate === "agent_message_chunk").length,
    thought: text(u, "agent_thought_chunk"),
    tools: tools(u),
    plan: (u.find((x) => x.sessionUpdate === "plan") || { entries: [] }).entries.map((e) => e.content + ":" + e.status),
    permissions: conn.seen.permissions.slice(asked),
    others: [...new Set(u.map((x) => x.sessionUpdate))].filter((k) => !["agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"].includes(k)),
  };
}

const first = connection();
let sessionId;
await first.app.connectWith(first.stream, async (cx) => {
  const init = await cx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  valid("zInitializeResponse", init);
  report.steps.initialize = {
    loadSession: !!init.agentCapabilities.loadSession,
    prompt: init.agentCapabilities.promptCapabilities,
    session: Object.keys(init.agentCapabilities.sessionCapabilities || {}),
    auth: (init.authMethods || []).map((m) => m.id),
  };
  const s = await cx.request(methods.agent.session.new, { cwd: work, mcpServers: [] });
  valid("zNewSessionResponse", s, ["models"]);
  sessionId = s.sessionId;
  report.steps.new = {
    modes: s.modes ? s.modes.availableModes.map((m) => m.id) : null,
    currentMode: s.modes ? s.modes.currentModeId : null,
    configOptions: (s.configOptions || []).map((o) => o.id + ":" + o.category),
    models: s.models ? s.models.availableModels.length : null,
  };
  report.steps.hello = await prompt(cx, first, sessionId, "say hello");
  report.steps.command = await prompt(cx, first, sessionId, "run it");
  report.steps.command.file = existsSync(join(work, "ran.txt")) ? readFileSync(join(work, "ran.txt"), "utf8") : null;
  report.steps.patch = await prompt(cx, first, sessionId, "plan and patch");
  report.steps.patch.files = ["hello.txt", "old.txt"].map((f) => (existsSync(join(work, f)) ? readFileSync(join(work, f), "utf8") : null));
  // A prompt cancelled once its answer has begun.
  const n = first.seen.updates.length;
  const p = prompt(cx, first, sessionId, "take your time");
  const deadline = Date.now() + 10000;
  while (!first.seen.updates.slice(n).some((u) => u.sessionUpdate === "agent_message_chunk") && Date.now() < deadline) {
    await Promise.race([new Promise((resolve) => first.seen.waiters.push(resolve)), new Promise((resolve) => setTimeout(resolve, 500))]);
  }
  await cx.notify(methods.agent.session.cancel, { sessionId });
  report.steps.cancel = await p;
});
first.child.stdin.end();
report.firstExit = await exited(first.child);
keep();

process.stderr.write("sidebyside: second connection\n");
const second = connection();
await second.app.connectWith(second.stream, async (cx) => {
  await cx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  try {
    const l = await cx.request(methods.agent.session.load, { sessionId, cwd: work, mcpServers: [] });
    valid("zLoadSessionResponse", l, ["models"]);
    report.steps.load = {
      replayedUser: text(second.seen.updates, "user_message_chunk"),
      replayedAgent: text(second.seen.updates, "agent_message_chunk"),
      replayedTools: tools(second.seen.updates).length,
    };
    report.steps.afterLoad = await prompt(cx, second, sessionId, "and after loading");
  } catch (e) {
    report.steps.load = { error: (e.message || "") + " " + JSON.stringify(e.data || "") };
  }
});
second.child.stdin.end();
report.secondExit = await exited(second.child);
keep();
console.log(JSON.stringify(report));
