// Replays the cases under __tests__/fixtures/node/<family>/ in a fresh
// sandbox each (standard input from `<case>.in` when there is one) and
// compares stdout, stderr and the exit status with Node's, recorded once by
// `RECORD=1 node scripts/record-node.mjs <family>`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Sandbox } from "../dist/index.js";

const root = new URL("./fixtures/node/", import.meta.url);

export function replayFamily(family) {
  const dir = new URL(`${family}/`, root);
  for (const file of readdirSync(dir).filter((f) => /\.m?js$/.test(f)).sort()) {
    const base = file.replace(/\.m?js$/, "");
    test(`${family}/${file} prints what Node prints`, async () => {
      const code = readFileSync(new URL(file, dir), "utf8");
      const sb = await Sandbox.create();
      try {
        const at = (ext) => new URL(`${base}.${ext}`, dir);
        const r = await sb.run(code, existsSync(at("in")) ? { stdin: readFileSync(at("in")) } : {});
        assert.deepEqual(
          { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode },
          {
            stdout: readFileSync(new URL(`${base}.out`, dir), "utf8"),
            stderr: readFileSync(new URL(`${base}.err`, dir), "utf8"),
            exitCode: existsSync(at("status")) ? Number(readFileSync(at("status"), "utf8")) : 0,
          },
        );
      } finally {
        await sb.close();
      }
    });
  }
}
