/**
 * Writes the generated OpenAPI document to docs/openapi.json (`npm run openapi`).
 * The OpenAPI test fails while the committed file differs from what this writes.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../functions/openapi/openapi-document.js";

const REPOSITORY_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where the document is kept in the repository. */
export const OPENAPI_PATH = fileURLToPath(new URL("../docs/openapi.json", import.meta.url));

/**
 * The file's exact text: 2-space JSON with a final newline, as Biome formats
 * it (so `biome check .` accepts the generated file as it is).
 */
export function openApiText(): string {
  const json = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
  const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
  return execFileSync(
    process.execPath,
    [biome, "format", `--stdin-file-path=${relative(REPOSITORY_ROOT, OPENAPI_PATH)}`],
    {
      cwd: REPOSITORY_ROOT,
      input: json,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_PATH, openApiText());
  console.log(`wrote ${relative(REPOSITORY_ROOT, OPENAPI_PATH)}`);
}
