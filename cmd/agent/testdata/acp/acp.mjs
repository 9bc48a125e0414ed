// The official ACP client library (@agentclientprotocol/sdk) driving
// `agent acp` (cmd/agent/acp_test.go): initialize, a new session, a prompt
// answered with streamed chunks, a command approved through
// session/request_permission, a prompt cancelled, and the session loaded
// again by a second connection. Every message agent sends is validated
// against the SDK's own zod schemas of ACP. It prints one JSON line of
// what it saw; any failed check throws (exit code 1).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { check, validate } from "./validate.mjs";

const bin = process.env.AGENT_BIN;
const work = process.env.WORK;

// connection starts agent acp and a client recording what it gets.
function connection(permission) {
  const child = spawn(bin, ["acp", "-a", "untrusted", "-s", "workspace-write"], {
    cwd: work,
    stdio: ["pipe", "pipe", "inherit"],
    env: process.env,
  });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const seen = { updates: [], permissions: [], waiters: [] };
  const app = client({ name: "acp-acceptance" })
    .onNotification(methods.client.session.update, (cx) => {
      validate("zSessionNotification", cx.params);
      seen.updates.push(cx.params);
      for (const w of seen.waiters.splice(0)) w();
    })
    .onRequest(methods.client.session.requestPermission, (cx) => {
      validate("zRequestPermissionRequest", cx.params);
      seen.permissions.push(cx.params);
      return permission(cx.params);
    });
  return { child, stream, seen, app };
}

// allow allows every call once, except "echo no", rejected always.
function allow(params) {
  const kind = (params.toolCall.title || "").includes("echo no") ? "reject_always" : "allow_once";
  const o = params.options.find((o) => o.kind === kind);
  check(o, "an allow_once option");
  return { outcome: { outcome: "selected", optionId: o.optionId } };
}

const text = (updates, kind) =>
  updates
    .filter((u) => u.update.sessionUpdate === kind)
    .map((u) => u.update.content.text)
    .join("");

const report = {};
const first = connection(allow);
let sessionId;
await first.app.connectWith(first.stream, async (cx) => {
  const init = await cx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  validate("zInitializeResponse", init);
  check(init.agentCapabilities.loadSession === true, "loadSession capability");
  check(init.agentCapabilities.promptCapabilities.image === true, "image capability");
  check(init.agentCapabilities.promptCapabilities.embeddedContext === true, "embeddedContext capability");

  const s = await cx.request(methods.agent.session.new, { cwd: work, mcpServers: [] });
  validate("zNewSessionResponse", s, ["models"]);
  sessionId = s.sessionId;
  check(s.modes && s.modes.currentModeId === "config", "modes with the config's current: " + JSON.stringify(s.modes));

  // 0. The model: listed as a config option and chosen, with its
  // reasoning effort, for the next turns.
  const option = (opts, id) => (opts || []).find((o) => o.id === id);
  const model = option(s.configOptions, "model");
  check(model && model.category === "model", "a model config option: " + JSON.stringify(s.configOptions));
  report.models = model.options.map((o) => o.value);
  report.currentModel = model.currentValue;
  report.modeOption = (option(s.configOptions, "mode") || {}).currentValue;
  const setModel = await cx.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "gpt-5.5" });
  validate("zSetSessionConfigOptionResponse", setModel);
  const effort = option(setModel.configOptions, "reasoning_effort");
  check(effort && effort.category === "thought_level", "a reasoning effort option for gpt-5.5: " + JSON.stringify(setModel.configOptions));
  report.efforts = effort.options.map((o) => o.value);
  const setEffort = await cx.request(methods.agent.session.setConfigOption, { sessionId, configId: "reasoning_effort", value: "high" });
  validate("zSetSessionConfigOptionResponse", setEffort);
  report.chosen = option(setEffort.configOptions, "model").currentValue + "/" + option(setEffort.configOptions, "reasoning_effort").currentValue;
  try {
    await cx.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "no-such-model" });
    report.badModel = "accepted";
  } catch (e) {
    report.badModel = JSON.stringify({ code: e.code, message: e.message, data: e.data });
  }

  // 1. A prompt answered with streamed chunks.
  let n = first.seen.updates.length;
  const r1 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "say hello" }] });
  validate("zPromptResponse", r1);
  check(r1.stopReason === "end_turn", "prompt 1 stop reason " + r1.stopReason);
  const u1 = first.seen.updates.slice(n);
  report.chunks = u1.filter((u) => u.update.sessionUpdate === "agent_message_chunk").length;
  report.answer = text(u1, "agent_message_chunk");
  const usage = u1.filter((u) => u.update.sessionUpdate === "usage_update").map((u) => u.update);
  report.usage = usage.length === 1 ? usage[0] : { count: usage.length };
  report.thought = text(u1, "agent_thought_chunk");

  // 2. A command the policy asks about, approved once.
  n = first.seen.updates.length;
  const r2 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run it" }] });
  check(r2.stopReason === "end_turn", "prompt 2 stop reason " + r2.stopReason);
  const u2 = first.seen.updates.slice(n);
  const start = u2.find((u) => u.update.sessionUpdate === "tool_call");
  check(start && start.update.kind === "execute", "a tool_call of kind execute: " + JSON.stringify(u2));
  const done = u2.find((u) => u.update.sessionUpdate === "tool_call_update" && u.update.status);
  check(done && done.update.toolCallId === start.update.toolCallId, "its tool_call_update");
  report.permissions = first.seen.permissions.map((p) => p.toolCall.title);
  report.toolStatus = done.update.status;
  report.toolOutput = (done.update.content || []).map((c) => c.content && c.content.text).join("");
  report.answer2 = text(u2, "agent_message_chunk");

  // 3. A plan and a patch, approved: its diff.
  n = first.seen.updates.length;
  let asked = first.seen.permissions.length;
  const r4 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "plan and patch" }] });
  check(r4.stopReason === "end_turn", "prompt 3 stop reason " + r4.stopReason);
  const u4 = first.seen.updates.slice(n);
  const plan = u4.find((u) => u.update.sessionUpdate === "plan");
  check(plan, "a plan update");
  report.plan = plan.update.entries.map((e) => e.content + ":" + e.status);
  const edit = u4.find((u) => u.update.sessionUpdate === "tool_call" && u.update.kind === "edit");
  check(edit, "a tool_call of kind edit: " + JSON.stringify(u4));
  report.patchAsked = first.seen.permissions.slice(asked).map((p) => p.toolCall.kind);
  const edited = u4.find((u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === edit.update.toolCallId && u.update.status);
  check(edited, "the patch's tool_call_update");
  report.patchStatus = edited.update.status;
  report.diffs = (edited.update.content || []).filter((c) => c.type === "diff").map((c) => ({ path: c.path, oldText: c.oldText ?? null, newText: c.newText }));

  // 4. A command rejected always: asked once, refused the second time without asking.
  asked = first.seen.permissions.length;
  n = first.seen.updates.length;
  const r5 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "say no twice" }] });
  check(r5.stopReason === "end_turn", "prompt 4 stop reason " + r5.stopReason);
  report.rejectAsked = first.seen.permissions.length - asked;
  report.rejectStatuses = first.seen.updates
    .slice(n)
    .filter((u) => u.update.sessionUpdate === "tool_call_update" && u.update.status)
    .map((u) => u.update.status);

  // 5. A prompt cancelled mid-answer.
  n = first.seen.updates.length;
  const p3 = cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "take your time" }] });
  while (!first.seen.updates.slice(n).some((u) => u.update.sessionUpdate === "agent_message_chunk")) {
    await new Promise((resolve) => first.seen.waiters.push(resolve));
  }
  await cx.notify(methods.agent.session.cancel, { sessionId });
  const r3 = await p3;
  validate("zPromptResponse", r3);
  report.cancelled = r3.stopReason;
});
first.child.stdin.end();
report.firstExit = await new Promise((resolve) => first.child.on("exit", (code) => resolve(code)));

// 4. A second connection loads the session: its history replayed.
const second = connection(allow);
await second.app.connectWith(second.stream, async (cx) => {
  await cx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const l = await cx.request(methods.agent.session.load, { sessionId, cwd: work, mcpServers: [] });
  validate("zLoadSessionResponse", l, ["models"]);
  report.replayedUser = text(second.seen.updates, "user_message_chunk");
  report.replayedAgent = text(second.seen.updates, "agent_message_chunk");
  report.replayedCalls = second.seen.updates
    .filter((u) => u.update.sessionUpdate === "tool_call")
    .map((u) => u.update.kind + " " + u.update.title + ": " + u.update.status + " " + (u.update.content || []).map((c) => c.content?.text ?? "").join(""));
  report.replayedPlans = second.seen.updates.filter((u) => u.update.sessionUpdate === "plan").length;
  report.replayOrder = second.seen.updates.map((u) => u.update.sessionUpdate).join(",");
  const r = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "and after loading" }] });
  check(r.stopReason === "end_turn", "loaded prompt stop reason " + r.stopReason);
});
second.child.stdin.end();
report.secondExit = await new Promise((resolve) => second.child.on("exit", (code) => resolve(code)));
console.log(JSON.stringify(report));
