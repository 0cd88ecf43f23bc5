// Packs the npm packages: the main package `cordon` (JavaScript, types, no
// binary) and one `cordon-<platform>` package per target built into
// npm/<platform>/ (the stripped addon and the guest compiled ahead of time).
// The main package lists every platform package as an optional dependency;
// npm installs only the one whose `os`, `cpu` and `libc` match.
//
//   node scripts/package.mjs [out-dir] [platform...]
//
// The default out-dir is packages/; platforms (names such as linux-x64-gnu)
// limit the platform packages to those, else every complete build is packed.
//
// Prints each tarball with its packed and unpacked size.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, cpSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pkg, root, targets } from "./platforms.mjs";

const out = path.resolve(process.argv[2] ?? path.join(root, "packages"));
const only = process.argv.slice(3);
const unknown = only.filter((name) => !targets.some((t) => t.name === name));
if (unknown.length > 0) {
  console.error(`package: unknown platform ${unknown.join(", ")}; the platforms are ${targets.map((t) => t.name).join(", ")}`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const shared = ["LICENSE", "THIRD_PARTY_LICENSES.md"];
const common = {
  version: pkg.version,
  license: pkg.license,
  repository: pkg.repository,
  homepage: pkg.homepage,
  engines: pkg.engines,
};

function pack(dir) {
  const [result] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: dir, encoding: "utf8" }),
  );
  console.log(`${result.filename}: ${(result.size / 1e6).toFixed(2)} MB packed, ${(result.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${result.entryCount} files`);
  return result;
}

const built = targets.filter(
  (t) => (only.length === 0 || only.includes(t.name)) && existsSync(path.join(root, "npm", t.name, "cordon-guest-metered.sum")),
);
if (built.length === 0) {
  console.error("package: no addon is built in npm/<platform>/; run npm run build first");
  process.exit(1);
}
for (const target of built) {
  const dir = path.join(root, "npm", target.name);
  const files = [target.binary, "cordon-guest.cwasm", "cordon-guest.sum", "cordon-guest-metered.cwasm", "cordon-guest-metered.sum"];
  for (const file of files) {
    if (!existsSync(path.join(dir, file))) {
      console.error(`package: ${path.join(dir, file)} is missing; scripts/build-native.sh makes it`);
      process.exit(1);
    }
  }
  for (const file of shared) copyFileSync(path.join(root, file), path.join(dir, file));
  writeFileSync(
    path.join(dir, "README.md"),
    `# ${target.packageName}\n\nThe native addon of [cordon](${pkg.homepage}) for ${target.name} ` +
      `(Rust target \`${target.triple}\`), with the guest compiled ahead of time. ` +
      `Install \`cordon\`, which depends on this package on this platform.\n`,
  );
  const manifest = {
    name: target.packageName,
    ...common,
    description: `cordon's native addon for ${target.name}`,
    main: target.binary,
    files: [...files, ...shared],
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc ? { libc: [target.libc] } : {}),
  };
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  pack(dir);
}

// The main package, staged with its optional dependencies added: the
// repository's own package.json has none, so that installing the project's
// development dependencies never fetches a platform package.
const stage = mkdtempSync(path.join(os.tmpdir(), "cordon-pack-"));
try {
  const listed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: root, encoding: "utf8" }))[0];
  for (const { path: file } of listed.files) {
    mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(stage, file));
  }
  const manifest = { ...pkg, optionalDependencies: Object.fromEntries(targets.map((t) => [t.packageName, pkg.version])) };
  delete manifest.devDependencies;
  delete manifest.scripts;
  writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  pack(stage);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
