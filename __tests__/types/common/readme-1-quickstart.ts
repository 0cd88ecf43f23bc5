import { Sandbox } from "cordon";
const sb = await Sandbox.create({ limits: { timeoutMs: 1000 } });
const r = await sb.run("console.log([1, 2, 3].map((n) => n * 2))");
console.log(r.stdout); // [ 2, 4, 6 ]
await sb.close();
