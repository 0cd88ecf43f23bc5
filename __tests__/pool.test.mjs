// The instance pool: CORDON_POOL_SIZE caps the guest instances alive in a
// process; one more fails with TOO_MANY_SANDBOXES and the process goes on
// serving the others; closing a sandbox frees its slot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const index = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Runs `body` (async code with `Sandbox` and `CordonError` in scope, which
 * writes its outcome as JSON) in a new Node process with `CORDON_POOL_SIZE`
 * set to `poolSize`, checks the process ended cleanly, and returns the
 * outcome.
 */
function inProcessWithPool(poolSize, body) {
  const script = `
    const { Sandbox, CordonError } = require(${JSON.stringify(index)});
    (async () => {${body}})().catch((e) => { console.error(e); process.exit(1); });`;
  const p = spawnSync(process.execPath, ["-e", script], {
    encoding: "utf8",
    env: { ...process.env, CORDON_POOL_SIZE: String(poolSize) },
  });
  assert.equal(p.stderr, "");
  assert.equal(p.status, 0);
  return JSON.parse(p.stdout);
}

test("a full instance pool refuses one more sandbox with a typed error, and a closed sandbox frees its slot", () => {
  const outcome = inProcessWithPool(3, `
      const held = [];
      for (let i = 0; i < 3; i++) {
        const sb = await Sandbox.create();
        held.push(sb);
        if ((await sb.run("return " + i)).value !== String(i)) throw new Error("run " + i);
      }
      const extra = await Sandbox.create();
      const err = await extra.run("return 1").then(() => null, (e) => e);
      const refused = err instanceof CordonError ? err.code + " " + err.message : String(err);
      // The held sandboxes keep working.
      const still = (await held[0].run("return 'ok'")).value;
      await held[1].close();
      const after = (await extra.run("return 'freed'")).value;
      process.stdout.write(JSON.stringify({ refused, still, after }));`);
  assert.deepEqual(outcome, {
    refused:
      "TOO_MANY_SANDBOXES every instance slot of this process is in use (3 sandboxes hold one); " +
      "close sandboxes or raise CORDON_POOL_SIZE",
    still: "ok",
    after: "freed",
  });
});

test("past the first 256 slots, sandboxes take slots made by a second engine, and the pool size still caps them", () => {
  // The engine comes with the first 256 slots; the rest of CORDON_POOL_SIZE
  // comes with a second engine when they are all in use. Its sandboxes run,
  // are trimmed when idle and run again like the others.
  const outcome = inProcessWithPool(
    260,
    `
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      const held = [];
      const wrong = [];
      for (let i = 0; i < 260; i++) {
        const sb = await Sandbox.create();
        held.push(sb);
        const r = await sb.run("console.log('run', " + i + "); return " + i + " * 2");
        if (r.stdout !== "run " + i + "\\n" + i * 2 + "\\n" || r.value !== String(i * 2)) wrong.push(i);
      }
      const extra = await Sandbox.create();
      const err = await extra.run("return 1").then(() => null, (e) => e);
      const refused = err instanceof CordonError ? err.code + " " + err.message : String(err);
      // Idle past the trim delay, then every sandbox runs again with its state.
      await Promise.all(held.map((sb, i) => sb.run("globalThis.mark = " + i)));
      await sleep(400);
      for (let i = 0; i < held.length; i++) {
        const r = await held[i].run("return mark + 1");
        if (r.value !== String(i + 1)) wrong.push("again " + i);
      }
      await held[259].close();
      const afterRest = (await extra.run("return 'rest slot'")).value;
      await held[0].close();
      const another = await Sandbox.create();
      const afterFirst = (await another.run("return 'first slot'")).value;
      process.stdout.write(JSON.stringify({ wrong, refused, afterRest, afterFirst }));`,
  );
  assert.deepEqual(outcome, {
    wrong: [],
    refused:
      "TOO_MANY_SANDBOXES every instance slot of this process is in use (260 sandboxes hold one); " +
      "close sandboxes or raise CORDON_POOL_SIZE",
    afterRest: "rest slot",
    afterFirst: "first slot",
  });
});

test("under a finite address-space limit (ulimit -v) sandboxes run, and the one that does not fit is TOO_MANY_SANDBOXES", (t) => {
  // The default engine reserves 4 GiB of address space per sandbox; under
  // RLIMIT_AS it allocates each memory on demand, compiling the guest for
  // that once (into this cache).
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cordon-ulimit-"));
  t.after(() => fs.rmSync(cache, { recursive: true, force: true }));
  const script = `
    const { Sandbox, CordonError } = require(${JSON.stringify(index)});
    (async () => {
      const held = [];
      let refused = null;
      for (let i = 0; i < 400 && !refused; i++) {
        const sb = await Sandbox.create();
        const ran = await sb.run("const a = new Uint8Array(8 << 20); a[1] = 7; return a[1] + " + i).then(
          (r) => (r.error ? r.error.name + ": " + r.error.message : r.value), (e) => e);
        if (ran instanceof CordonError) refused = ran.code + " " + ran.message;
        // A memory that would grow into the host's room does not grow.
        else if (ran === String(7 + i) || ran === "InternalError: out of memory") held.push(sb);
        else throw new Error("run " + i + ": " + ran);
      }
      // The host keeps room of its own: a sandbox is refused before Node runs short.
      const spare = new Array(4).fill(0).map(() => Buffer.alloc(32 << 20, 1)).reduce((n, b) => n + b.length, 0);
      const shell = (await held[0].run("echo hi | tr a-z A-Z", { language: "shell" })).stdout;
      // Closing sandboxes gives their room back (half: the host's own use
      // of its headroom varies).
      for (const sb of held.splice(held.length >> 1)) await sb.close();
      let after;
      for (let tries = 0; tries < 100 && after === undefined; tries++) {
        const sb = await Sandbox.create();
        after = await sb.run("return 'fits'").then((r) => r.value, async () => {
          await new Promise((r) => setTimeout(r, 20));
        });
      }
      process.stdout.write(JSON.stringify({ many: held.length > 3, refused, spare, shell, after }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const p = spawnSync("bash", ["-c", 'ulimit -v 3000000 && exec "$0" -e "$1"', process.execPath, script], {
    encoding: "utf8",
    env: { ...process.env, CORDON_CACHE_DIR: cache },
  });
  assert.equal(p.stderr, "");
  assert.equal(p.status, 0);
  assert.deepEqual(JSON.parse(p.stdout), {
    many: true,
    refused:
      "TOO_MANY_SANDBOXES the process's address space (ulimit -v) has no room for another sandbox's memory; " +
      "close sandboxes or raise the limit",
    spare: 128 << 20,
    shell: "HI\n",
    after: "fits",
  });
});
