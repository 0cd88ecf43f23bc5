// Sessions: reset, snapshot and restore (also in another process).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Sandbox, CordonError } from "cordon";

const rejectsWith = (promise, code) =>
  assert.rejects(promise, (err) => {
    assert.ok(err instanceof CordonError, String(err));
    assert.equal(err.code, code, err.message);
    return true;
  });

function toolOptions(counter) {
  return {
    tools: { inc: async () => ++counter.n },
    capabilities: [{ method: "inc", maxCalls: 3 }],
  };
}

test("reset starts clean: no globals, no files, unused budgets", async () => {
  const counter = { n: 0 };
  const sb = await Sandbox.create(toolOptions(counter));
  await sb.run("globalThis.x = 1; fs.writeFileSync('f', 'x'); await inc({}); await inc({}); await inc({})");
  assert.equal((await sb.run("try { await inc({}) } catch (e) { return e.reason }")).value, "budget");
  await sb.reset();
  const r = await sb.run("return [typeof x, fs.existsSync('f'), await inc({})]");
  assert.equal(r.value, '["undefined",false,4]');
  assert.deepEqual(await sb.fs.readdir("/workspace"), []);
  await sb.close();
  await rejectsWith(sb.reset(), "CLOSED");
});

test("snapshot and restore keep globals, files and budgets", async () => {
  const counter = { n: 0 };
  const sb = await Sandbox.create(toolOptions(counter));
  await sb.run(`
    globalThis.notes = ["first"];
    globalThis.counter = { n: 41, bump() { return ++this.n } };
    fs.mkdirSync("data");
    fs.writeFileSync("data/a.txt", "alpha");
    await inc({}); await inc({});
  `);
  const bytes = await sb.snapshot();
  assert.ok(bytes instanceof Uint8Array && bytes.length > 1000);
  // The original goes on independently.
  await sb.run("notes.push('only in the original'); fs.writeFileSync('data/a.txt', 'changed')");
  const copy = await Sandbox.restore(bytes, toolOptions(counter));
  const r = await copy.run(`
    const out = [notes.join(","), counter.bump(), fs.readFileSync("data/a.txt", "utf8"), await inc({})];
    try { await inc({}) } catch (e) { out.push(e.reason) }
    return out;
  `);
  assert.equal(r.value, '["first",42,"alpha",3,"budget"]');
  assert.equal(await copy.fs.readFile("/workspace/data/a.txt", "utf8"), "alpha");
  assert.equal(await sb.fs.readFile("/workspace/data/a.txt", "utf8"), "changed");
  await sb.close();
  await copy.close();
});

test("a snapshot restores in another process", async () => {
  const sb = await Sandbox.create();
  await sb.run("globalThis.greeting = 'hello from the heap'; fs.writeFileSync('/tmp/note', 'from the tree')");
  const dir = mkdtempSync(path.join(os.tmpdir(), "cordon-snap-"));
  const file = path.join(dir, "session.bin");
  writeFileSync(file, await sb.snapshot());
  await sb.close();
  const script = `
    import { readFileSync } from "node:fs";
    import { Sandbox } from "cordon";
    const sb = await Sandbox.restore(readFileSync(${JSON.stringify(file)}));
    const r = await sb.run("return greeting + ' / ' + fs.readFileSync('/tmp/note', 'utf8')");
    process.stdout.write(r.value);
    await sb.close();
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", cwd: process.cwd() });
  assert.equal(child.stderr, "");
  assert.equal(child.status, 0);
  assert.equal(child.stdout, "hello from the heap / from the tree");
});

test("corrupt, foreign or mismatched snapshots are refused", async () => {
  const sb = await Sandbox.create(toolOptions({ n: 0 }));
  await sb.run("globalThis.x = 1");
  const bytes = await sb.snapshot();
  const flipped = bytes.slice();
  flipped[bytes.length - 100] ^= 1;
  await rejectsWith(Sandbox.restore(flipped, toolOptions({ n: 0 })), "INVALID_SNAPSHOT");
  await rejectsWith(Sandbox.restore(bytes.slice(0, bytes.length - 1), toolOptions({ n: 0 })), "INVALID_SNAPSHOT");
  await rejectsWith(Sandbox.restore(new TextEncoder().encode("not a snapshot"), {}), "INVALID_SNAPSHOT");
  await rejectsWith(Sandbox.restore("bytes", {}), "INVALID_SNAPSHOT");
  const wrongVersion = bytes.slice();
  wrongVersion[8] = 99;
  await rejectsWith(Sandbox.restore(wrongVersion, toolOptions({ n: 0 })), "INVALID_SNAPSHOT");
  // Other capabilities than at snapshot time.
  await rejectsWith(Sandbox.restore(bytes, {}), "INVALID_SNAPSHOT");
  // A heap larger than the restoring sandbox's memory limit.
  const big = await Sandbox.create();
  await big.run("globalThis.big = 'x'.repeat(20e6) + '!'");
  await rejectsWith(Sandbox.restore(await big.snapshot(), { limits: { memoryBytes: 16 * 2 ** 20 } }), "INVALID_SNAPSHOT");
  await big.close();
  // Files that do not fit the restoring sandbox's quota.
  const files = await Sandbox.create({ files: { "/workspace/a": "x".repeat(1000) } });
  await rejectsWith(Sandbox.restore(await files.snapshot(), { limits: { fsBytes: 10 } }), "INVALID_SNAPSHOT");
  await files.close();
  await sb.close();
});

test("a snapshot taken after a trap carries the files but no heap", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 100 } });
  await sb.run("globalThis.x = 1; fs.writeFileSync('kept', 'yes')");
  await rejectsWith(sb.run("while (true) {}"), "TIMEOUT");
  const copy = await Sandbox.restore(await sb.snapshot(), { limits: { timeoutMs: 100 } });
  const r = await copy.run("return typeof x + ' ' + fs.readFileSync('kept', 'utf8')");
  assert.equal(r.value, "undefined yes");
  await sb.close();
  await copy.close();
});

test("snapshot waits for the run in progress", async () => {
  const sb = await Sandbox.create();
  const run = sb.run("let s = 0; for (let i = 0; i < 3e6; i++) s += i; globalThis.done = s; return s");
  const snap = sb.snapshot();
  await run;
  const copy = await Sandbox.restore(await snap);
  assert.equal((await copy.run("return done")).value, "4499998500000");
  await sb.close();
  await copy.close();
});
