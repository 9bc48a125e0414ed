// Drives agent with the official Codex TypeScript SDK (@openai/codex-sdk),
// exactly as a Codex user's script would, with codexPathOverride pointing at
// the agent binary. Run by TestCodexSDK (cmd/agent/sdk_test.go), which starts
// the fake Responses server, writes AGENT_HOME's config and checks the
// requests the SDK's turns made. Prints one JSON line per turn on stdout;
// exits non-zero when an assertion fails.
import assert from "node:assert/strict";
import { Codex } from "@openai/codex-sdk";

const { AGENT_BIN, AGENT_HOME, WORK, IMAGE, PATH } = process.env;
const codex = new Codex({
  codexPathOverride: AGENT_BIN,
  env: { AGENT_HOME, PATH, FAKE_KEY: "sk-test-canary-0000" },
});
const options = { workingDirectory: WORK, skipGitRepoCheck: true, sandboxMode: "workspace-write" };
const report = (name, value) => console.log(JSON.stringify({ turn: name, ...value }));

// 1. A streamed turn with a command: every event as it comes.
const thread = codex.startThread(options);
const { events } = await thread.runStreamed("run a command, then say hello");
const seen = [];
for await (const ev of events) {
  seen.push(ev);
}
const types = seen.map((e) => e.type + (e.item ? ":" + e.item.type : ""));
assert.deepEqual(types, [
  "thread.started",
  "turn.started",
  "item.started:command_execution",
  "item.completed:command_execution",
  "item.completed:agent_message",
  "turn.completed",
]);
const cmd = seen.find((e) => e.type === "item.completed" && e.item.type === "command_execution").item;
assert.equal(cmd.aggregated_output, "from the sdk\n");
assert.equal(cmd.exit_code, 0);
assert.equal(cmd.status, "completed");
assert.equal(seen.at(-2).item.text, "hello from agent");
assert.equal(typeof seen.at(-1).usage.input_tokens, "number");
assert.ok(thread.id, "thread.id is set after the first turn");
report("streamed", { id: thread.id, types });

// 2. The same thread resumed by id from a new Codex instance.
const resumed = codex.resumeThread(thread.id, options);
const second = await resumed.run("and again");
assert.equal(second.finalResponse, "resumed answer");
assert.equal(resumed.id, thread.id);
report("resumed", { id: resumed.id, final: second.finalResponse });

// 3. An output schema: the final answer is JSON that follows it.
const schema = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
  additionalProperties: false,
};
const structured = await resumed.run("answer in JSON", { outputSchema: schema });
assert.deepEqual(JSON.parse(structured.finalResponse), { answer: "42" });
report("schema", { final: structured.finalResponse });

// 4. An image with the prompt.
const seenImage = await resumed.run([
  { type: "text", text: "what is in this image?" },
  { type: "local_image", path: IMAGE },
]);
assert.equal(seenImage.finalResponse, "a red pixel");
report("image", { final: seenImage.finalResponse });

// 5. The SDK's own apiKey and baseUrl options (CODEX_API_KEY and
// openai_base_url), on the built-in openai provider.
const direct = new Codex({
  codexPathOverride: AGENT_BIN,
  apiKey: process.env.SDK_API_KEY,
  baseUrl: process.env.SDK_BASE_URL,
  config: { model_provider: "openai" },
  env: { AGENT_HOME, PATH },
});
const viaKey = await direct.startThread(options).run("hello with the SDK's key");
assert.equal(viaKey.finalResponse, "keyed answer");
report("apiKey", { final: viaKey.finalResponse });
