/**
 * `npm run sql` reads the local export bucket straight from s3rver's on-disk store (local/sql/export-store.ts): objects
 * PUT through the S3 API into a real s3rver (local/s3-local.ts, as `npm start` runs it under `$DATA_DIR/s3`) are
 * found at the paths the store computes, and the views answer their rows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import { runManifestKey, unitFileKey } from "../../functions/export/export-layout.js";
import { LOCAL_REGION } from "../../local/dynamo-endpoint.js";
import { LOCAL_EXPORT_BUCKET, type RunningS3, startS3Local } from "../../local/s3-local.js";
import { openExportDatabase } from "../../local/sql/export-database.js";
import { s3rverExportStore } from "../../local/sql/export-store.js";
import { exportParquet } from "../support/export-bucket-fixture.js";

const dataDirectory = mkdtempSync(join(tmpdir(), "ats-sql-s3rver-"));
let s3: RunningS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startS3Local({ dataDirectory });
  client = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: LOCAL_REGION,
    credentials: s3.credentials,
  });
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
  rmSync(dataDirectory, { recursive: true, force: true });
});

const put = (key: string, body: Uint8Array | string) =>
  client.send(new PutObjectCommand({ Bucket: LOCAL_EXPORT_BUCKET, Key: key, Body: body }));

it("finds the committed runs and files of the local export bucket in s3rver's store", async () => {
  const hour = "2026-11-27T09";
  const key = unitFileKey("conversations", { kind: "c", orgId: "dev", environment: "live", hour });
  const body = exportParquet("conversations", [
    {
      conversation_id: "chat-1",
      agent_name: "support-bot",
      user_id: "user-a",
      started_at: `${hour}:10:00.000Z`,
      last_run_at: `${hour}:20:00.000Z`,
      run_count: 2,
    },
  ]);
  await put(key, body);
  const runId = newId("exportRun");
  const file = { table: "conversations", orgId: "dev", environment: "live", day: "2026-11-27", unit: "c", hour, key };
  await put(
    runManifestKey(runId),
    JSON.stringify({ formatVersion: 1, runId, files: [{ ...file, rows: 1, bytes: body.byteLength }], removed: [] }),
  );
  const database = await openExportDatabase(s3rverExportStore(dataDirectory));
  try {
    expect(database.runs).toBe(1);
    const answer = await database.query(
      "SELECT conversation_id, run_count, started_at, day FROM conversations WHERE org = 'dev' AND env = 'live'",
    );
    expect(answer.rows).toEqual([["chat-1", 2, "2026-11-27 09:10:00.000", "2026-11-27"]]);
  } finally {
    database.close();
  }
});
