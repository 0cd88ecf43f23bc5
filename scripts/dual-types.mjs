// Writes dist/<name>.d.mts beside each dist/<name>.d.ts: the same
// declarations as an ES module, which package.json's `exports` gives to
// `import` (the .d.ts files stay for `require`).
//
// Why: cordon's JavaScript is CommonJS, so under `moduleResolution:
// node16`/`nodenext` TypeScript reads its .d.ts files as CommonJS and
// resolves their imports of the frameworks (`@langchain/core`,
// `@modelcontextprotocol/sdk`, `ai`) with the `require` condition, while an
// ES module's own imports of them resolve with `import`. Those frameworks
// ship separate declarations for each, and their classes (with private and
// protected members) do not match across the two: a LangChain tool from the
// user's `import` would not fit cordon's `require`-resolved parameter type.
// Relative imports get the extension an ES module needs.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
for (const name of readdirSync(dist).filter((f) => f.endsWith(".d.ts"))) {
  const text = readFileSync(path.join(dist, name), "utf8").replace(
    /((?:from|import)\s*\(?\s*)"(\.\.?\/[^"]+)"/g,
    (_, lead, spec) => `${lead}"${spec.startsWith("../") ? `${spec}.js` : `${spec}.mjs`}"`,
  );
  writeFileSync(path.join(dist, name.replace(/\.d\.ts$/, ".d.mts")), text);
}
