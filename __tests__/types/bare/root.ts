// cordon's root entry with none of its optional peers installed (no ai,
// zod, LangChain or MCP SDK) and skipLibCheck off: its types import none.
import { Sandbox, CordonError, tool, type RunResult, type InferToolInput } from "cordon";

const add = tool({
  name: "math.add",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }) => a + b,
});
const sb = await Sandbox.create({ tools: [add], capabilities: [{ method: "math.*" }], limits: { timeoutMs: 1000 } });
try {
  const r: RunResult = await sb.run("return await math.add({ a: 1, b: 2 })");
  console.log(r.value);
} catch (err) {
  if (err instanceof CordonError) console.log(err.code);
}
await sb.close();
const n: InferToolInput<{ readonly type: "number" }> = 1;
void n;
// @ts-expect-error execute called with the wrong argument type
add.execute({ a: "1", b: 2 }, { toolCallId: "1", toolName: "math.add", messages: [] });
