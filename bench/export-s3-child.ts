/**
 * The export bench's local S3 in a process of its own, so the bench's CPU and memory figures are the exporter's
 * alone: starts s3rver on a temporary directory and prints its environment as one JSON line; stops on SIGTERM.
 */
import { s3Environment, startS3Local } from "../local/s3-local.js";

const s3 = await startS3Local();
process.stdout.write(`${JSON.stringify(s3Environment(s3))}\n`);
process.once("SIGTERM", () => {
  void s3.stop().then(() => process.exit(0));
});
