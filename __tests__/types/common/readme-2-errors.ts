import { Sandbox, CordonError } from "cordon";

const sb = await Sandbox.create({ limits: { timeoutMs: 1000 } });
const r = await sb.run("console.log('hi'); return { answer: 6 * 7 }");
// r = { exitCode: 0, stdout: 'hi\n{"answer":42}\n', stderr: "", value: '{"answer":42}', error: undefined, stats: {...} }

try {
  await sb.run("while (true) {}");
} catch (err) {
  if (err instanceof CordonError) console.log(err.code); // "TIMEOUT"
}
await sb.close();
