import { generateText } from "ai";
import { Sandbox } from "cordon";
import { createCodeCaller, createSandboxSession } from "cordon/ai";

const run_code = await createCodeCaller({ limits: { timeoutMs: 5000 } });
await generateText({
  model, prompt,
  tools: { run_code, get_weather, wipe },
  experimental_toolCallers: { get_weather: ["run_code"], wipe: ["run_code"] },  // only via code
  experimental_sandbox: createSandboxSession(await Sandbox.create()),             // for tools that want one
});
await run_code.close();
