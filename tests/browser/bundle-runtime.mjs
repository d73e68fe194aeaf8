// Bundles the built runtime (schemas/dist, `npm run build` there) into one ES
// module, wire/web/runtime.js, which `python -m wire demo --web` serves, so
// that an installed wheel needs no node. With --check, writes nothing and
// exits 1 if the committed file differs from a fresh bundle.
// Uses the esbuild pinned in schemas/package.json.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = new URL("../../", import.meta.url);
const esbuild = createRequire(new URL("schemas/package.json", root))("esbuild");
const out = fileURLToPath(new URL("wire/web/runtime.js", root));

const result = await esbuild.build({
  absWorkingDir: fileURLToPath(root), // the path comments in the bundle, whatever the current directory
  entryPoints: [fileURLToPath(new URL("schemas/dist/index.js", root))],
  bundle: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  banner: { js: "// wire's TypeScript runtime (schemas/src), bundled by tests/browser/bundle-runtime.mjs. Do not edit." },
  write: false,
  logLevel: "error",
});
const text = result.outputFiles[0].text;
if (process.argv.includes("--check")) {
  let committed = "";
  try { committed = readFileSync(out, "utf8"); } catch {}
  if (committed !== text) {
    console.error(`${out} differs from a fresh bundle of schemas/dist: run node tests/browser/bundle-runtime.mjs`);
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
  console.log(`wrote ${out} (${text.length} characters)`);
}
