/**
 * Where `npm run sql` finds an export bucket's objects on this machine, read straight from disk (no running stack):
 *
 * - the local S3 of `npm start`: s3rver keeps bucket `ats-export-local` under `$DATA_DIR/s3`, an object of key
 *   `a/b/c` in the file `<root>/<bucket>/a/b/c._S3rver_object` (s3rver's FilesystemStore.getResourcePath; keys are
 *   not re-encoded outside Windows, and export keys hold no character Windows would re-encode);
 * - a plain copy of a bucket (`aws s3 sync s3://<bucket> <dir>`): the object of key `a/b/c` is the file `<dir>/a/b/c`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { RUN_MANIFEST_PREFIX } from "../../functions/export/export-layout.js";
import { LOCAL_EXPORT_BUCKET } from "../s3-local.js";

const S3RVER_OBJECT_SUFFIX = "._S3rver_object";
const RUN_MANIFEST_FILE = /^(exp_[0-9A-HJKMNP-TV-Z]{26})\.json$/;

export class ExportStoreError extends Error {
  override name = "ExportStoreError";
}

export interface ExportStore {
  /** Where the bucket is, for messages. */
  readonly description: string;
  /** The run ids that have a run manifest (committed runs). */
  runIds(): string[];
  /** The text of an object. */
  readText(key: string): string;
  /** The file holding an object, or undefined when there is none. */
  filePath(key: string): string | undefined;
}

function directoryStore(root: string, suffix: string, description: string): ExportStore {
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new ExportStoreError(`No export found: ${description} does not exist (run \`npm run export\` first)`);
  const pathOf = (key: string) => join(root, ...`${key}${suffix}`.split("/"));
  return {
    description,
    runIds() {
      const directory = join(root, ...RUN_MANIFEST_PREFIX.split("/").filter((part) => part !== ""));
      if (!existsSync(directory)) return [];
      return readdirSync(directory)
        .filter((name) => name.endsWith(suffix))
        .map((name) => RUN_MANIFEST_FILE.exec(name.slice(0, name.length - suffix.length))?.[1])
        .filter((runId): runId is string => runId !== undefined);
    },
    readText(key) {
      return readFileSync(pathOf(key), "utf8");
    },
    filePath(key) {
      const path = pathOf(key);
      return existsSync(path) ? path : undefined;
    },
  };
}

/** The export bucket of the local S3 kept under `s3Directory` (`$DATA_DIR/s3`). */
export function s3rverExportStore(s3Directory: string, bucket = LOCAL_EXPORT_BUCKET): ExportStore {
  const root = join(s3Directory, bucket);
  return directoryStore(root, S3RVER_OBJECT_SUFFIX, `the local export bucket ${bucket} (${root})`);
}

/** A plain copy of an export bucket: keys are file paths under `directory`. */
export function plainDirectoryExportStore(directory: string): ExportStore {
  return directoryStore(directory, "", `the directory ${directory}`);
}
