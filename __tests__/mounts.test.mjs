// Host directories mounted into a sandbox, through JavaScript, the shell and
// the host API: read-only mounts read through and refuse writes, links out of
// a mount are refused, a write-through mount writes the host directory.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, symlinkSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Sandbox, CordonError } from "cordon";

const base = mkdtempSync(path.join(os.tmpdir(), "cordon-mounts-"));
after(() => rmSync(base, { recursive: true, force: true }));
const data = path.join(base, "data");
const out = path.join(base, "out");
mkdirSync(path.join(data, "sub"), { recursive: true });
mkdirSync(out);
writeFileSync(path.join(data, "a.txt"), "alpha\n");
writeFileSync(path.join(data, "sub", "b.txt"), "beta\n");
writeFileSync(path.join(base, "secret.txt"), "SECRET\n");
symlinkSync(path.join(base, "secret.txt"), path.join(data, "escape"));

const mounts = [
  { hostPath: data, guestPath: "/data" },
  { hostPath: out, guestPath: "/workspace/out", writable: true, writeThrough: true },
];

test("JavaScript reads a read-only mount, cannot write it or follow a link out of it", async () => {
  const sb = await Sandbox.create({ mounts });
  const r = await sb.run(`
    const out = [fs.readFileSync("/data/a.txt", "utf8").trim(), fs.readdirSync("/data").join(",")];
    for (const f of [() => fs.writeFileSync("/data/x", "1"), () => fs.readFileSync("/data/escape", "utf8")]) {
      try { f(); out.push("no error"); } catch (e) { out.push(e.code + " " + e.message); }
    }
    fs.writeFileSync("/workspace/out/from-js.txt", "written through");
    return out.join("|");
  `);
  assert.equal(
    r.value,
    "alpha|a.txt,sub|EROFS EROFS: read-only file system (a read-only mount), open '/data/x'|" +
      "EACCES EACCES: permission denied (a link leads out of the mount), open '/data/escape'",
  );
  assert.equal(readFileSync(path.join(out, "from-js.txt"), "utf8"), "written through");
  assert.ok(!existsSync(path.join(data, "x")));
  await sb.close();
});

test("the shell sees mounts like any directory", async () => {
  const sb = await Sandbox.create({ mounts });
  const r = await sb.run("ls /; cat /data/sub/b.txt; cd /data && cat a.txt && pwd; echo x > /data/new; echo done > /workspace/out/sh.txt", {
    language: "shell",
  });
  assert.equal(r.stdout, "data\ntmp\nworkspace\nbeta\nalpha\n/data\n");
  assert.equal(r.stderr, "cordon: line 1: /data/new: Read-only file system\n");
  assert.equal(r.exitCode, 0);
  assert.equal(readFileSync(path.join(out, "sh.txt"), "utf8"), "done\n");
  // The host API goes through the same tree.
  assert.equal(await sb.fs.readFile("/data/a.txt", "utf8"), "alpha\n");
  await sb.close();
});

test("malformed mounts are refused at create()", async () => {
  const bad = [
    [{ hostPath: path.join(base, "missing"), guestPath: "/data" }, /^mounts: hostPath /],
    [{ hostPath: data, guestPath: "/etc/data" }, /must be a directory directly below \/ or inside \/workspace or \/tmp$/],
    [{ hostPath: data, guestPath: "/data", writable: true }, /the writable mount "\/data" must be inside \/workspace or \/tmp$/],
    [{ hostPath: data, guestPath: "/data", extra: 1 }, /mounts\[0\]/],
    [{ hostPath: 1, guestPath: "/data" }, /mounts\[0\]\.hostPath must be a non-empty string/],
  ];
  for (const [m, message] of bad) {
    await assert.rejects(
      Sandbox.create({ mounts: [m] }),
      (e) => e instanceof CordonError && e.code === "INVALID_OPTIONS" && message.test(e.message),
      JSON.stringify(m),
    );
  }
  await assert.rejects(Sandbox.create({ mounts: "x" }), (e) => e.code === "INVALID_OPTIONS");
});
