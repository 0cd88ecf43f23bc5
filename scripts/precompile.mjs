// Compiles the guest ahead of time with the addon given (a `.node` file),
// for that addon's target, and writes the modules beside it, where its
// package ships them: `cordon-guest.cwasm` and the deterministic engine's
// `cordon-guest-metered.cwasm`, each with a summary file.
//
//   node scripts/precompile.mjs <addon.node> [target-triple] [out-dir] [cpu-flag,...]
//
// The addon compiles for its own architecture, on any of its systems (an
// x86-64 Linux addon also compiles for x86_64-apple-darwin and
// x86_64-pc-windows-msvc).
import { createRequire } from "node:module";
import path from "node:path";

const [addonPath, target, outDir, flags] = process.argv.slice(2);
if (!addonPath) {
  console.error("usage: node scripts/precompile.mjs <addon.node> [target-triple] [out-dir] [cpu-flag,...]");
  process.exit(2);
}
const out = path.resolve(outDir || path.dirname(addonPath));
const addon = createRequire(import.meta.url)(path.resolve(addonPath));
const started = performance.now();
const written = addon.precompileGuest(
  out,
  target || null,
  flags ? flags.split(",") : null,
);
console.log(`precompile: ${written.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
