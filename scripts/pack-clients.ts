/**
 * `npm run package`: the clients as files to install anywhere, in `dist/packages/`:
 * the TypeScript client as an npm tarball (`npm install <path>/ats-client-<version>.tgz`), built by its
 * `prepack`. Nothing is published: this is the path that works today from a clone.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../local/settings.js";

const destination = join(REPOSITORY_ROOT, "dist", "packages");
mkdirSync(destination, { recursive: true });
execFileSync("npm", ["pack", "--workspace", "@ats/client", "--pack-destination", destination, "--silent"], {
  cwd: REPOSITORY_ROOT,
  stdio: ["ignore", "ignore", "inherit"],
});
for (const file of readdirSync(destination).sort()) console.log(join(destination, file));
