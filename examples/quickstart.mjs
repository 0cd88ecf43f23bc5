// Creates a sandbox, runs a script in it and prints what came back.
import { Sandbox, CordonError } from "cordon";

const sb = await Sandbox.create({ limits: { timeoutMs: 1000, memoryBytes: 32 * 1024 * 1024 } });

const r = await sb.run(`
  const primes = [];
  for (let n = 2; primes.length < 10; n++) {
    if (primes.every((p) => n % p !== 0)) primes.push(n);
  }
  console.log("first primes:", primes);
  return { count: primes.length, sum: primes.reduce((a, b) => a + b, 0) };
`);
console.log("exitCode:", r.exitCode);
console.log("stdout:", JSON.stringify(r.stdout));
console.log("value:", r.value);

// Limits are real: an endless loop is stopped and the sandbox stays usable.
try {
  await sb.run("while (true) {}", { language: "javascript" });
} catch (err) {
  if (!(err instanceof CordonError)) throw err;
  console.log("endless loop stopped:", err.code);
}
console.log("still works:", (await sb.run("return 'yes'")).value);
await sb.close();
