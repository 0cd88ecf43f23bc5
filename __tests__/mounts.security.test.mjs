// Hostile use of host directory mounts: a FIFO under a mount fails at once
// with EACCES (the run, Node's event loop, other sandboxes and close() never
// wait on it), and what the guest writes through a write-through mount counts
// against fsBytes and fsFiles.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readdirSync, statSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Sandbox } from "cordon";

const MiB = 1024 * 1024;
const base = mkdtempSync(path.join(os.tmpdir(), "cordon-mounts-security-"));
const data = path.join(base, "data");
const out = path.join(base, "out");
mkdirSync(data);
mkdirSync(out);
writeFileSync(path.join(data, "a.txt"), "alpha\n");
const fifos = [path.join(data, "pipe"), path.join(out, "pipe")];
for (const fifo of fifos) execFileSync("mkfifo", [fifo]);

// Code that opens a FIFO blocks in open() until the other end is opened, with
// Node's event loop frozen if that happens in the run's first slice. So that
// such code fails the timing assertions instead of hanging the suite, this
// process opens both ends of every FIFO every half second from 5 s on.
const watchdog = spawn(
  "sh",
  ["-c", 'sleep 5; while :; do exec 3<>"$1" 4<>"$2"; sleep 0.5; exec 3<&- 4<&-; done', "sh", ...fifos],
  { stdio: "ignore", detached: true },
);
watchdog.unref();
after(() => {
  try {
    process.kill(-watchdog.pid);
  } catch {}
  rmSync(base, { recursive: true, force: true });
});

const mounts = [
  { hostPath: data, guestPath: "/data" },
  { hostPath: out, guestPath: "/workspace/out", writable: true, writeThrough: true },
];

const refused = (syscall, file) => `EACCES EACCES: permission denied (not a regular file or directory), ${syscall} '${file}'`;

test("JavaScript reading or writing a FIFO under a mount gets EACCES at once, the rest of the run goes on", async () => {
  const sb = await Sandbox.create({ mounts, limits: { timeoutMs: 3000 } });
  const started = performance.now();
  const r = await sb.run(`
    console.log("before");
    const codes = [];
    for (const f of [
      () => fs.readFileSync("/data/pipe"),
      () => fs.statSync("/data/pipe"),
      () => fs.readFileSync("/workspace/out/pipe", "utf8"),
      () => fs.writeFileSync("/workspace/out/pipe", "x"),
      () => fs.appendFileSync("/workspace/out/pipe", "x"),
    ]) {
      try { f(); codes.push("no error") } catch (e) { codes.push(e.code + " " + e.message) }
    }
    codes.push(fs.readdirSync("/data").join(","), fs.existsSync("/data/pipe"));
    console.log("after");
    return codes;
  `);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 1000, `the run took ${elapsed.toFixed(0)} ms`);
  assert.deepEqual(JSON.parse(r.value), [
    refused("open", "/data/pipe"),
    refused("stat", "/data/pipe"),
    refused("open", "/workspace/out/pipe"),
    refused("open", "/workspace/out/pipe"),
    refused("open", "/workspace/out/pipe"),
    "a.txt",
    false,
  ]);
  // The returned value is printed after the run's own output.
  assert.equal(r.stdout, `before\nafter\n${r.value}\n`);
  assert.equal(r.stderr, "");
  assert.equal(r.exitCode, 0);
  assert.equal(statSync(path.join(out, "pipe")).isFIFO(), true);
  const closing = performance.now();
  await sb.close();
  assert.ok(performance.now() - closing < 1000);
});

test("the shell's cat and redirections on a FIFO fail at once with Permission denied", async () => {
  const sb = await Sandbox.create({ mounts, limits: { timeoutMs: 3000 } });
  const started = performance.now();
  const r = await sb.run(
    'echo before; cat /data/pipe; echo "cat $?"; echo x > /workspace/out/pipe; echo "redirect $?"; cat /data/a.txt',
    { language: "shell" },
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 1000, `the run took ${elapsed.toFixed(0)} ms`);
  assert.equal(r.stdout, "before\ncat 1\nredirect 1\nalpha\n");
  assert.equal(
    r.stderr,
    "cat: /data/pipe: Permission denied\ncordon: line 1: /workspace/out/pipe: Permission denied\n",
  );
  assert.equal(r.exitCode, 0);
  await sb.close();
});

test("while two sandboxes hit FIFOs, another sandbox's run completes, and close() resolves", async () => {
  const [a, b, c] = await Promise.all([
    Sandbox.create({ mounts, limits: { timeoutMs: 3000 } }),
    Sandbox.create({ mounts, limits: { timeoutMs: 3000 } }),
    Sandbox.create({ limits: { timeoutMs: 3000 } }),
  ]);
  const hit = (sb) =>
    sb.run(`
      let refused = 0;
      for (let i = 0; i < 3; i++) {
        for (const f of ["/data/pipe", "/workspace/out/pipe"]) {
          try { fs.readFileSync(f) } catch (e) { if (e.code === "EACCES") refused++ }
        }
      }
      return refused;
    `);
  const started = performance.now();
  let ticked = 0;
  const timer = setTimeout(() => (ticked = performance.now() - started), 20);
  const [ra, rb, rc] = await Promise.all([hit(a), hit(b), c.run("let n = 0; for (let i = 0; i < 1e5; i++) n += i; return n")]);
  const elapsed = performance.now() - started;
  clearTimeout(timer);
  assert.ok(elapsed < 1500, `the three runs took ${elapsed.toFixed(0)} ms`);
  assert.ok(ticked === 0 || ticked < 1000, `Node's event loop was blocked for ${ticked.toFixed(0)} ms`);
  assert.deepEqual([ra.value, rb.value, rc.value], ["6", "6", "4999950000"]);
  const closing = performance.now();
  await Promise.all([a.close(), b.close(), c.close()]);
  assert.ok(performance.now() - closing < 1000);
});

function usage(dir) {
  const names = readdirSync(dir);
  return { entries: names.length, bytes: names.reduce((sum, n) => sum + statSync(path.join(dir, n)).size, 0) };
}

test("a write-through mount counts against fsFiles and fsBytes: ENOSPC past them, no more reaches the host", async () => {
  const files = path.join(base, "files");
  const bytes = path.join(base, "bytes");
  mkdirSync(files);
  mkdirSync(bytes);
  const limits = { fsBytes: MiB, fsFiles: 20 };
  const sb = await Sandbox.create({
    limits,
    mounts: [
      { hostPath: files, guestPath: "/workspace/files", writable: true, writeThrough: true },
      { hostPath: bytes, guestPath: "/tmp/bytes", writable: true, writeThrough: true },
    ],
  });
  // /, /workspace and /tmp count: 17 entries are left for the guest.
  const r = await sb.run(`
    const out = [];
    let n = 0;
    try { for (; n < 340; n++) fs.writeFileSync("/workspace/files/f" + n, "") } catch (e) { out.push(n + " " + e.code + " " + e.message) }
    try { fs.mkdirSync("/workspace/files/d"); out.push("no error") } catch (e) { out.push(e.code) }
    try { fs.writeFileSync("/workspace/mem", ""); out.push("no error") } catch (e) { out.push(e.code) }
    for (let i = 0; i < 17; i++) fs.unlinkSync("/workspace/files/f" + i);
    let written = 0;
    try { for (; written < 40; written++) fs.writeFileSync("/tmp/bytes/b" + written, new Uint8Array(MiB / 2)) } catch (e) { out.push(written + " " + e.code + " " + e.message) }
    try { fs.appendFileSync("/tmp/bytes/b1", "x"); out.push("no error") } catch (e) { out.push(e.code) }
    fs.writeFileSync("/tmp/bytes/b1", "small");
    fs.writeFileSync("/workspace/mem", new Uint8Array(MiB / 2 - 5));
    try { fs.writeFileSync("/workspace/more", "x"); out.push("no error") } catch (e) { out.push(e.code) }
    return out;
  `.replaceAll("MiB", String(MiB)));
  assert.deepEqual(JSON.parse(r.value), [
    "17 ENOSPC ENOSPC: no space left on device (at most 20 files and directories), open '/workspace/files/f17'",
    "ENOSPC",
    "ENOSPC",
    `2 ENOSPC ENOSPC: no space left on device (all files together are at most ${MiB} bytes), open '/tmp/bytes/b2'`,
    "ENOSPC",
    "ENOSPC",
  ]);
  assert.equal(r.exitCode, 0);
  assert.deepEqual(usage(files), { entries: 0, bytes: 0 });
  assert.deepEqual(usage(bytes), { entries: 2, bytes: MiB / 2 + 5 });
  // The shell is held to the same quotas: each redirection creates its
  // (empty) file, an entry that fits, and its bytes do not.
  const sh = await sb.run("for i in 1 2 3; do echo x > /tmp/bytes/s$i; done; echo $?", { language: "shell" });
  assert.equal(sh.stdout, "1\n");
  assert.equal(
    sh.stderr,
    [1, 2, 3].map((i) => `cordon: line 1: /tmp/bytes/s${i}: No space left on device\n`).join(""),
  );
  assert.equal(sh.exitCode, 0);
  assert.deepEqual(usage(bytes), { entries: 5, bytes: MiB / 2 + 5 });
  await sb.close();
});
