// The sandbox's file system: guest `fs`, the host's `sb.fs`, seeding, limits,
// and persistence across runs and traps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Sandbox, CordonError, FsError } from "cordon";

test("guest code reads seeded files and writes new ones the host can read", async () => {
  const sb = await Sandbox.create({
    files: { "/workspace/data/in.json": '{"a":1}', "/tmp/bin": new Uint8Array([0, 255, 10]) },
  });
  const r = await sb.run(`
    const d = JSON.parse(fs.readFileSync("data/in.json", "utf8"));
    fs.writeFileSync("out.txt", "a=" + d.a + "\\n");
    fs.appendFileSync("out.txt", "é");
    console.log(fs.readdirSync("."), fs.readFileSync("/tmp/bin"), fs.statSync("out.txt").size, process.cwd());
    await fs.promises.mkdir("x/y", { recursive: true });
    console.log(await fs.readFile("out.txt", "utf8"), fs.existsSync("x/y"), fs.statSync("x").isDirectory());
  `);
  assert.equal(r.stderr, "");
  assert.equal(r.stdout, "[ 'data', 'out.txt' ] Uint8Array(3) [ 0, 255, 10 ] 6 /workspace\na=1\né true true\n");
  assert.equal(await sb.fs.readFile("/workspace/out.txt", "utf8"), "a=1\né");
  assert.deepEqual(await sb.fs.readFile("out.txt"), new Uint8Array([97, 61, 49, 10, 0xc3, 0xa9]));
  assert.deepEqual(await sb.fs.readdir("/workspace"), ["data", "out.txt", "x"]);
  assert.deepEqual({ ...(await sb.fs.stat("x")), mtimeMs: 0 }, { kind: "dir", size: 1, mtimeMs: 0 });
  await sb.close();
});

test("binary content is preserved byte for byte in both directions", async () => {
  const sb = await Sandbox.create();
  const all = new Uint8Array(256).map((_, i) => i);
  await sb.fs.writeFile("/tmp/all.bin", all);
  const r = await sb.run(`
    const b = fs.readFileSync("/tmp/all.bin");
    const out = new Uint8Array(b.length);
    for (let i = 0; i < b.length; i++) out[i] = 255 - b[i];
    fs.writeFileSync("/tmp/inv.bin", out);
    return b.length + " " + b[0] + " " + b[255];
  `);
  assert.equal(r.value, "256 0 255");
  const inv = await sb.fs.readFile("/tmp/inv.bin");
  assert.deepEqual(inv, all.map((v) => 255 - v));
  await sb.close();
});

test("errors carry POSIX codes in the guest and on the host", async () => {
  const sb = await Sandbox.create({ limits: { fsBytes: 1000, fsFiles: 6 } });
  const r = await sb.run(`
    const codes = [];
    const tryIt = (f) => { try { f(); codes.push("ok") } catch (e) { codes.push(e.code + " " + e.message) } };
    tryIt(() => fs.writeFileSync("/etc/passwd", "x"));
    tryIt(() => fs.readFileSync("missing.txt"));
    tryIt(() => fs.readFileSync("/workspace"));
    tryIt(() => fs.mkdirSync("/workspace"));
    tryIt(() => fs.writeFileSync("big", "x".repeat(1001)));
    tryIt(() => fs.writeFileSync("a\\0b", "x"));
    tryIt(() => fs.rmSync("/workspace", { recursive: true }));
    tryIt(() => { fs.mkdirSync("d"); fs.writeFileSync("d/f", "1"); fs.rmdirSync("d") });
    tryIt(() => fs.writeFileSync("../../../workspace/ok.txt", "fine"));
    tryIt(() => { fs.writeFileSync("f1", ""); fs.writeFileSync("f2", "") });
    return codes;
  `);
  assert.deepEqual(JSON.parse(r.value), [
    "EROFS EROFS: read-only file system (only /workspace and /tmp are writable), open '/etc/passwd'",
    "ENOENT ENOENT: no such file or directory, open 'missing.txt'",
    "EISDIR EISDIR: is a directory, open '/workspace'",
    "EEXIST EEXIST: file exists, mkdir '/workspace'",
    "ENOSPC ENOSPC: no space left on device (a file is at most 1000 bytes), open 'big'",
    "EINVAL EINVAL: invalid argument (paths cannot contain NUL or control characters), open 'a\\0b'",
    "EACCES EACCES: permission denied (/, /workspace and /tmp cannot be removed), rm '/workspace'",
    "ENOTEMPTY ENOTEMPTY: directory not empty, rmdir 'd'",
    "ok",
    "ENOSPC ENOSPC: no space left on device (at most 6 files and directories), open 'f1'",
  ]);
  assert.equal(await sb.fs.readFile("/workspace/ok.txt", "utf8"), "fine");
  await assert.rejects(sb.fs.readFile("/nope"), (err) => err instanceof FsError && err.code === "ENOENT" && err.path === "/nope");
  await assert.rejects(sb.fs.writeFile("/etc/x", "y"), { name: "FsError", code: "EROFS" });
  await assert.rejects(sb.fs.readFile(42), { code: "INVALID_OPTIONS" });
  await sb.close();
});

test("the file system survives a trap; JavaScript globals do not", async () => {
  const sb = await Sandbox.create({ limits: { timeoutMs: 100 } });
  await sb.run("fs.writeFileSync('state.txt', 'kept'); globalThis.lost = 1");
  await assert.rejects(sb.run("while (true) {}"), { code: "TIMEOUT" });
  const r = await sb.run("return fs.readFileSync('state.txt', 'utf8') + ' ' + typeof lost");
  assert.equal(r.value, "kept undefined");
  assert.equal(r.stats.instanceRestarted, true);
  await sb.close();
});

test("each sandbox has its own tree", async () => {
  const a = await Sandbox.create({ files: { "/workspace/secret.txt": "a's" } });
  const b = await Sandbox.create();
  const r = await b.run("return fs.existsSync('/workspace/secret.txt')");
  assert.equal(r.value, "false");
  await a.close();
  await b.close();
});

test("bad seed files are refused at create()", async () => {
  for (const files of [{ "/etc/x": "y" }, { "/workspace/a": 42 }, { "/workspace/\0": "x" }, []]) {
    await assert.rejects(Sandbox.create({ files }), (err) => err instanceof CordonError && err.code === "INVALID_OPTIONS");
  }
});

test("permission bits: the shell's chmod and JavaScript's chmodSync and statSync().mode share them", async () => {
  const sb = await Sandbox.create();
  const sh = await sb.run("touch f; mkdir d; chmod 750 f; stat -c '%a %A' f d; [ -x f ] && echo x", { language: "shell" });
  assert.deepEqual([sh.stdout, sh.stderr, sh.exitCode], ["750 -rwxr-x---\n755 drwxr-xr-x\nx\n", "", 0]);
  const r = await sb.run(`
    const a = fs.statSync("f").mode.toString(8), d = fs.statSync("d").mode.toString(8);
    fs.chmodSync("f", 0o600);
    fs.chmodSync("d", "700");
    let err = "";
    try { fs.chmodSync("/", 0o777); } catch (e) { err = e.code; }
    return [a, d, fs.statSync("f").mode.toString(8), err].join(" ");
  `);
  assert.equal(r.value, "100750 40755 100600 EROFS");
  const back = await sb.run("stat -c '%a %n' f d; chmod 777 /; echo $?", { language: "shell" });
  assert.deepEqual([back.stdout, back.stderr], ["600 f\n700 d\n1\n", "chmod: changing permissions of '/': Read-only file system\n"]);
  await sb.close();
});
