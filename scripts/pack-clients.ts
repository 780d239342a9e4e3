/**
 * `npm run package`: the clients as files to install anywhere, in `dist/packages/`:
 * - the TypeScript client as an npm tarball (`npm install <path>/ats-client-<version>.tgz`), built by its
 *   `prepack`;
 * - the Python client as a wheel (`pip install <path>/ats_client-<version>-py3-none-any.whl`), built by its
 *   in-tree backend (standard library only, no package index needed), when `python3` is on the PATH.
 * Nothing is published: this is the path that works today from a clone.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../local/settings.js";

const destination = join(REPOSITORY_ROOT, "dist", "packages");
mkdirSync(destination, { recursive: true });
execFileSync("npm", ["pack", "--workspace", "@ats/client", "--pack-destination", destination, "--silent"], {
  cwd: REPOSITORY_ROOT,
  stdio: ["ignore", "ignore", "inherit"],
});
const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
if (python.status === 0) {
  execFileSync(
    "python3",
    ["-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "-w", destination, "./python"],
    { cwd: REPOSITORY_ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
} else {
  console.error("python3 not found: the Python client's wheel was not built (pip install ./python works from a clone)");
}
for (const file of readdirSync(destination).sort()) console.log(join(destination, file));
