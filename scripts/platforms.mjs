// The platforms cordon ships a native addon for, from package.json's
// `napi.targets` (Rust target triples), with the names and npm fields of
// each one's package: `cordon-<name>`, where `<name>` follows napi-rs
// (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

const cpus = { x86_64: "x64", aarch64: "arm64" };
const systems = { linux: "linux", darwin: "darwin", windows: "win32" };

/** Node's names for a Rust target triple. */
export function platformOf(triple) {
  const [arch, , system, abi] = triple.split("-");
  const cpu = cpus[arch];
  const os = systems[system];
  if (!cpu || !os) throw new Error(`platforms: no npm platform for ${triple}`);
  const libc = os === "linux" ? (abi === "musl" ? "musl" : "glibc") : undefined;
  const suffix = os === "linux" ? `-${abi}` : os === "win32" ? `-${abi}` : "";
  const name = `${os}-${cpu}${suffix}`;
  return { triple, name, os, cpu, libc, packageName: `cordon-${name}`, binary: `cordon.${name}.node` };
}

export const targets = pkg.napi.targets.map(platformOf);

/** The target this machine builds by default (`rustc -vV`'s host). */
export function hostTarget(rustHost) {
  return targets.find((t) => t.triple === rustHost) ?? platformOf(rustHost);
}
