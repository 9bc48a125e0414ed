// An editor that offers its buffers and terminals, driving `agent acp`
// with the official ACP client library (cmd/agent/acp_test.go,
// TestACPEditorFilesAndTerminals). The client declares fs/read_text_file,
// fs/write_text_file, terminal/* and Zed's terminal_output meta
// capability; it holds an unsaved buffer of buf.txt and saves nothing
// itself, so what reaches the disk did not come through it. Every message
// agent sends is validated against the SDK's schemas. It prints one JSON
// line of what it saw.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { check, validate } from "./validate.mjs";

const bin = process.env.AGENT_BIN;
const work = process.env.WORK;
const buffers = { [join(work, "buf.txt")]: "unsaved buffer\n" };
const report = { reads: [], writes: {}, terminalRequests: 0, permissions: [] };
const updates = [];

const child = spawn(bin, ["acp", "-a", "on-request", "-s", "workspace-write"], {
  cwd: work,
  stdio: ["pipe", "pipe", "inherit"],
  env: process.env,
});
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const terminal = () => {
  report.terminalRequests++;
  throw new Error("agent must not run commands in the editor's terminal");
};
const app = client({ name: "acp-editor" })
  .onNotification(methods.client.session.update, (cx) => {
    validate("zSessionNotification", cx.params);
    updates.push(cx.params.update);
  })
  .onRequest(methods.client.session.requestPermission, (cx) => {
    validate("zRequestPermissionRequest", cx.params);
    report.permissions.push(cx.params.toolCall.title);
    const o = cx.params.options.find((o) => o.kind === "reject_once");
    return { outcome: { outcome: "selected", optionId: o.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, (cx) => {
    validate("zReadTextFileRequest", cx.params);
    report.reads.push(cx.params.path);
    const b = buffers[cx.params.path];
    return { content: b !== undefined ? b : readFileSync(cx.params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, (cx) => {
    validate("zWriteTextFileRequest", cx.params);
    report.writes[cx.params.path] = cx.params.content;
    buffers[cx.params.path] = cx.params.content;
    return {};
  })
  .onRequest(methods.client.terminal.create, terminal)
  .onRequest(methods.client.terminal.output, terminal)
  .onRequest(methods.client.terminal.waitForExit, terminal);

await app.connectWith(stream, async (cx) => {
  await cx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { terminal_output: true } },
  });
  const s = await cx.request(methods.agent.session.new, { cwd: work, mcpServers: [] });
  const sessionId = s.sessionId;

  // 1. A patch of the unsaved buffer, inside the workspace (no question).
  let n = updates.length;
  const r1 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "patch the buffer" }] });
  check(r1.stopReason === "end_turn", "prompt 1: " + r1.stopReason);
  const edited = updates.slice(n).find((u) => u.sessionUpdate === "tool_call_update" && u.status);
  check(edited, "the patch's end");
  report.patchStatus = edited.status;
  report.diffs = (edited.content || []).filter((c) => c.type === "diff").map((c) => ({ path: c.path, oldText: c.oldText ?? null, newText: c.newText }));

  // 2. A command: run by agent, drawn as the client's terminal.
  n = updates.length;
  const r2 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run it" }] });
  check(r2.stopReason === "end_turn", "prompt 2: " + r2.stopReason);
  const u2 = updates.slice(n);
  const start = u2.find((u) => u.sessionUpdate === "tool_call" && u.kind === "execute");
  check(start, "the command's tool_call");
  report.terminalContent = start.content;
  report.terminalInfo = start._meta && start._meta.terminal_info;
  report.terminalOutput = u2.filter((u) => u._meta && u._meta.terminal_output).map((u) => u._meta.terminal_output.data).join("");
  const exit = u2.find((u) => u._meta && u._meta.terminal_exit);
  report.terminalExit = exit && exit._meta.terminal_exit;
  report.commandStatus = exit && exit.status;

  // 3. A patch outside the writable roots: asked, rejected, the editor never
  // told.
  const r3 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "patch outside" }] });
  check(r3.stopReason === "end_turn", "prompt 3: " + r3.stopReason);

  // 4. The model reads the buffer (read_file, through the editor) and
  // tries the agent home.
  n = updates.length;
  const r4 = await cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the buffer" }] });
  check(r4.stopReason === "end_turn", "prompt 4: " + r4.stopReason);
  const u4 = updates.slice(n);
  report.readCalls = u4.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.kind + " " + u.title + " " + (u.locations || []).map((l) => l.path).join(","));
  report.readStatuses = u4.filter((u) => u.sessionUpdate === "tool_call_update" && u.status).map((u) => u.status);
});
child.stdin.end();
report.exit = await new Promise((resolve) => child.on("exit", (code) => resolve(code)));
console.log(JSON.stringify(report));
