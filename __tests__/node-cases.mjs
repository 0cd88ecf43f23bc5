// Runs the cases recorded from the real Node by scripts/record-node.mjs
// (__tests__/fixtures/node/<family>/<case>.js with .out, .err, .exit) in a
// sandbox each, and compares stdout, stderr and the exit status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Sandbox } from "cordon";

const root = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "node");

/**
 * One test per case of `family`. `options.stderr(text)` maps recorded
 * stderr before comparing (for shapes that differ by design, such as the
 * source line Node quotes above an uncaught error); `options.skip` names
 * cases that run elsewhere.
 */
export function nodeCases(family, options = {}) {
  const dir = join(root, family);
  const read = (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js")).sort()) {
    const name = file.slice(0, -3);
    test(family + "/" + name + " prints what Node printed", async () => {
      const base = join(dir, name);
      const code = readFileSync(base + ".js", "utf8");
      const stdout = read(base + ".out") ?? "";
      const stderr = read(base + ".err") ?? "";
      const exit = Number(read(base + ".exit") ?? 0);
      const sb = await Sandbox.create(options.sandbox);
      try {
        const r = await sb.run(code);
        assert.equal(r.stdout, stdout);
        assert.equal(r.stderr, options.stderr ? options.stderr(stderr, name) : stderr);
        assert.equal(r.exitCode, exit);
      } finally {
        await sb.close();
      }
    });
  }
}
