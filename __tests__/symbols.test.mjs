// The addon imports nothing but Node-API and the C runtime: a strong import
// of anything else (libuv, V8, OpenSSL) ties it to the Node builds that
// export that symbol, and it fails to load on the others (Node 20.0-20.2,
// Deno, Electron). Checked on the built Linux binaries with binutils' nm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const addons = existsSync(path.join(root, "npm"))
  ? readdirSync(path.join(root, "npm"))
      .filter((name) => name.startsWith("linux-"))
      // Complete builds only: the summaries of the compiled guest are written last.
      .filter((name) => existsSync(path.join(root, "npm", name, "cordon-guest-metered.sum")))
      .map((name) => path.join(root, "npm", name, `cordon.${name}.node`))
  : [];

/** Weak references the toolchain's start files and unwinder make; each may be absent. */
const WEAK = new Set(["_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable", "__gmon_start__", "__unw_add_dynamic_fde", "__cxa_finalize"]);
/** Shared libraries an addon may need: the C runtime and the unwinder. */
const LIBRARIES = /^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libgcc_s\.so\.1|ld-linux-(x86-64|aarch64)\.so\.[12]|libc\.musl-\w+\.so\.1)$/;

test("each built Linux addon imports only Node-API and the C runtime", (t) => {
  if (addons.length === 0) return t.skip("no Linux addon is built in npm/");
  for (const addon of addons) {
    const nm = spawnSync("nm", ["-D", "--undefined-only", addon], { encoding: "utf8" });
    assert.equal(nm.status, 0, nm.stderr);
    const symbols = nm.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [kind, name] = line.trim().split(/\s+/);
        return { kind, name };
      });
    assert.ok(symbols.some((s) => s.name.startsWith("napi_")), `${addon} imports no Node-API function`);
    const outside = symbols.filter(({ kind, name }) => {
      if (/^(napi|node_api)_\w+$/.test(name)) return false;
      // Versioned: the C library, the math library or the unwinder.
      if (/@(GLIBC|GCC)_[\d.]+$/.test(name)) return false;
      return !(kind === "w" && WEAK.has(name));
    });
    assert.deepEqual(outside, [], `${path.basename(addon)} imports symbols outside Node-API and libc`);
    const needed = spawnSync("readelf", ["-d", addon], { encoding: "utf8" })
      .stdout.split("\n")
      .map((line) => /\(NEEDED\)\s+Shared library: \[(.+)\]/.exec(line)?.[1])
      .filter(Boolean);
    assert.deepEqual(needed.filter((lib) => !LIBRARIES.test(lib)), [], `${path.basename(addon)} needs other libraries`);
  }
});
