// Builds dist/: one ESM and one CJS bundle (no dependencies, nothing imported
// at load time) and the type declarations.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "..", "package.json"));
const esbuild = require("esbuild");

rmSync(join(root, "dist"), { recursive: true, force: true });
const common = {
  entryPoints: [join(root, "src/index.ts")],
  bundle: true,
  platform: "neutral",
  target: ["es2022", "node20"],
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
};
await esbuild.build({ ...common, format: "esm", outfile: join(root, "dist/index.js") });
await esbuild.build({ ...common, format: "cjs", outfile: join(root, "dist/index.cjs") });
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", join(root, "tsconfig.json")], {
  stdio: "inherit",
});
