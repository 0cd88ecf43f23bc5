// cordon/ai with AI SDK 7: the code caller is a tool caller, the session an
// Experimental_SandboxSession.
import { generateText, tool, type Experimental_SandboxSession, type Experimental_ToolCallerTool } from "ai";
import { z } from "zod";
import { Sandbox } from "cordon";
import { createCodeCaller, createSandboxSession } from "cordon/ai";

const get_time = tool({ description: "The time.", inputSchema: z.object({ zone: z.string() }), execute: async ({ zone }) => `${zone} 12:00` });
const caller = await createCodeCaller({ limits: { timeoutMs: 5000 }, languages: ["javascript"] });
const asCaller: Experimental_ToolCallerTool = caller;
const session: Experimental_SandboxSession = createSandboxSession(await Sandbox.create(), { root: "/workspace" });
await generateText({
  model,
  prompt,
  tools: { run_code: caller, get_time },
  experimental_toolCallers: { get_time: ["run_code"] },
  experimental_sandbox: session,
});
await caller.close();
void asCaller;

// What must not compile.
await generateText({
  model,
  prompt,
  tools: { run_code: caller, get_time },
  // @ts-expect-error a tool routed to a tool that is not a caller
  experimental_toolCallers: { run_code: ["get_time"] },
});
// @ts-expect-error createCodeCaller takes no tools: the AI SDK binds the routed ones
await createCodeCaller({ tools: { get_time } });
// @ts-expect-error a session's files are read with { path }
await session.readTextFile("/workspace/a.txt");

// The types are the frameworks' own, never any.
const notAny: (0 extends 1 & typeof caller ? true : false) = false;
void notAny;
