import { Sandbox } from "cordon";

const sb = await Sandbox.create({ files: { "/workspace/data.json": '{"a":1}' } });
await sb.run(`
  const d = JSON.parse(fs.readFileSync("data.json", "utf8"));
  fs.writeFileSync("out.txt", "a=" + d.a);
`);
await sb.fs.readFile("/workspace/out.txt", "utf8"); // "a=1"
