/**
 * Issue 35: `GET /api/exports` lists an organisation's committed export runs, newest first, with presigned URLs
 * of its own files only. The export bucket (the run's local S3) holds two organisations' files, one of them with
 * an id that starts with the other's, an uncommitted run, and a manifest forged to name another organisation's
 * file: none of that may reach the caller.
 */
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import { organisationManifestKey, runManifestKey } from "../../functions/export/export-layout.js";
import type { ExportManifest, RemovedFile } from "../../functions/export/export-manifest.js";
import type { ExportTableName } from "../../functions/export/export-tables.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestUser, startTestApi, type TestUser } from "../support/fixtures.js";

let api: LocalApi;
let s3: S3Client;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
/** An organisation whose id starts with the first's: `table=…/org=<a>-x/` must never pass for `org=<a>`'s. */
let neighbour: TestUser;

/**
 * A bucket of this file's own on the run's local S3: its objects (text standing in for Parquet, runs of made-up
 * organisations) must not meet the files other test files export and read back from the shared export bucket.
 */
const BUCKET = `ats-export-downloads-${process.pid}`;
const HOUR = 3600_000;
const INVALID_CURSOR = "Invalid cursor: pass back the nextCursor of the previous page of the same query unchanged";
const now = Date.now();
/** Runs of the organisation, oldest first: one from 2024 (the search walks back to it), two today. */
const runs = { old: newId("exportRun", Date.parse("2024-03-01T10:00:00Z")), earlier: "", latest: "" };
/** A run whose run manifest was never written: not committed. */
let uncommitted: string;

async function put(key: string, body: string): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
}

function fileKey(table: ExportTableName, orgId: string, hour: string): string {
  return `table=${table}/org=${orgId}/env=live/day=${hour.slice(0, 10)}/s-${hour.slice(11, 13)}.parquet`;
}

/** A manifest entry, typed as the export writes it (functions/export/export-manifest.ts). */
function entry(table: ExportTableName, orgId: string, hour: string): RemovedFile {
  return {
    table,
    orgId,
    environment: "live",
    day: hour.slice(0, 10),
    unit: "s",
    hour,
    key: fileKey(table, orgId, hour),
  };
}

function manifest(runId: string, files: RemovedFile[], removed: RemovedFile[] = []): string {
  return JSON.stringify({
    formatVersion: 1,
    schemaVersion: 1,
    runId,
    startedAt: new Date(now - HOUR).toISOString(),
    committedAt: new Date(now - HOUR + 5000).toISOString(),
    changesFrom: new Date(now - 2 * HOUR).toISOString(),
    changesThrough: new Date(now - HOUR).toISOString(),
    units: files.length,
    files: files.map((file) => ({ ...file, rows: 3, bytes: 100 })),
    removed,
  } satisfies ExportManifest);
}

/** Writes a run as the export does: its files, each organisation's manifest, then (committed) the run manifest. */
async function writeRun(
  runId: string,
  perOrganisation: Record<string, { files: RemovedFile[]; removed?: RemovedFile[] }>,
  committed = true,
): Promise<void> {
  for (const [orgId, part] of Object.entries(perOrganisation)) {
    for (const file of part.files) if (!file.key.includes("..")) await put(file.key, `parquet of ${file.key}`);
    await put(organisationManifestKey(orgId, runId), manifest(runId, part.files, part.removed));
  }
  if (committed)
    await put(
      runManifestKey(runId),
      manifest(
        runId,
        Object.values(perOrganisation).flatMap((p) => p.files),
      ),
    );
}

const asUser = (user: TestUser, query = "") =>
  call(api, "GET", `/api/exports${query}`, {
    key: user.token,
    headers: { "x-organization-id": user.orgId },
    settle: false,
  });

interface Page {
  runs: {
    runId: string;
    files: { key: string; url: string }[];
    removed: { key: string }[];
    filesFrom: number;
    fileCount: number;
  }[];
  nextCursor: string | null;
}

beforeAll(async () => {
  // Before the first request: the route's store reads EXPORT_BUCKET on first use.
  process.env.EXPORT_BUCKET = BUCKET;
  api = await startTestApi();
  const environment = inject("s3Environment");
  s3 = new S3Client({
    endpoint: environment.S3_ENDPOINT ?? "",
    forcePathStyle: true,
    region: "us-east-1",
    credentials: {
      accessKeyId: environment.S3_ACCESS_KEY_ID ?? "",
      secretAccessKey: environment.S3_SECRET_ACCESS_KEY ?? "",
    },
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  owner = await createTestUser(api, { role: "owner" });
  admin = await createTestUser(api, { orgId: owner.orgId, role: "admin" });
  member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
  neighbour = await createTestUser(api, { orgId: `${owner.orgId}-x`, role: "owner" });
  const org = owner.orgId;
  const other = neighbour.orgId;
  const today = new Date(now - 3 * HOUR).toISOString().slice(0, 13);
  const later = new Date(now - 2 * HOUR).toISOString().slice(0, 13);
  runs.earlier = newId("exportRun", now - 2 * HOUR);
  runs.latest = newId("exportRun", now - HOUR);
  uncommitted = newId("exportRun", now - HOUR / 2);

  await writeRun(runs.old, { [org]: { files: [entry("sessions", org, "2024-03-01T09")] } });
  await writeRun(runs.earlier, {
    [org]: { files: [entry("sessions", org, today), entry("events", org, today)] },
    [other]: { files: [entry("sessions", other, today)] },
  });
  await writeRun(runs.latest, {
    // A manifest naming the neighbour's file (a damaged or forged one): the file is left out, never presigned.
    [org]: {
      files: [
        entry("scores", org, later),
        entry("sessions", other, later),
        {
          ...entry("sessions", org, later),
          key: `table=sessions/org=${org}/../org=${other}/env=live/day=x/s-01.parquet`,
        },
      ],
      removed: [entry("events", org, today)],
    },
    [other]: { files: [entry("sessions", other, later)] },
  });
  await writeRun(uncommitted, { [org]: { files: [entry("conversations", org, later)] } }, false);
});
afterAll(async () => {
  s3.destroy();
  await api.close();
});

describe("GET /api/exports", () => {
  it("lists the organisation's committed runs newest first, with working URLs of its own files only", async () => {
    const response = await asUser(admin);

    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = response.body as unknown as Page;
    expect(page.runs.map((run) => run.runId)).toEqual([runs.latest, runs.earlier, runs.old]);
    expect(page.nextCursor).toBeNull();
    expect(page.runs[0]?.files.map((file) => file.key)).toEqual([
      fileKey("scores", owner.orgId, new Date(now - 2 * HOUR).toISOString().slice(0, 13)),
    ]);
    expect(page.runs[0]?.removed.map((file) => file.key)).toEqual([
      fileKey("events", owner.orgId, new Date(now - 3 * HOUR).toISOString().slice(0, 13)),
    ]);
    // The neighbour's id (which starts with the caller's) appears nowhere: not in a key, not in a URL.
    expect(response.text).not.toContain(`org=${neighbour.orgId}`);
    expect(response.text).not.toContain(`org%3D${neighbour.orgId}`);
    for (const run of page.runs) {
      for (const file of run.files) {
        expect(file.key.startsWith(`table=`) && file.key.includes(`/org=${owner.orgId}/`)).toBe(true);
        const download = await fetch(file.url);
        expect(download.status).toBe(200);
        expect(await download.text()).toBe(`parquet of ${file.key}`);
      }
    }
    const manifestUrl = String((page.runs[2] as unknown as { manifestUrl: string }).manifestUrl);
    expect(JSON.parse(await (await fetch(manifestUrl)).text())).toMatchObject({ runId: runs.old });
  });

  it("gives the other organisation its own runs, and none of the first's", async () => {
    const response = await asUser(neighbour);

    expect(response.status).toBe(200);
    const page = response.body as unknown as Page;
    expect(page.runs.map((run) => run.runId)).toEqual([runs.latest, runs.earlier]);
    expect(page.runs.flatMap((run) => run.files.map((file) => file.key))).toEqual([
      fileKey("sessions", neighbour.orgId, new Date(now - 2 * HOUR).toISOString().slice(0, 13)),
      fileKey("sessions", neighbour.orgId, new Date(now - 3 * HOUR).toISOString().slice(0, 13)),
    ]);
  });

  it("pages by run with a cursor that only works for the organisation it was given to", async () => {
    const first = (await asUser(owner, "?limit=2")).body as unknown as Page;
    expect(first.runs.map((run) => run.runId)).toEqual([runs.latest, runs.earlier]);
    expect(first.nextCursor).toEqual(expect.any(String));

    const second = (await asUser(owner, `?limit=2&cursor=${encodeURIComponent(String(first.nextCursor))}`))
      .body as unknown as Page;
    expect(second.runs.map((run) => run.runId)).toEqual([runs.old]);
    expect(second.nextCursor).toBeNull();

    const foreign = await asUser(neighbour, `?cursor=${encodeURIComponent(String(first.nextCursor))}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe(INVALID_CURSOR);
    const forged = Buffer.from(JSON.stringify({ k: { r: runs.earlier, o: 0 }, s: "x" })).toString("base64url");
    const refused = await asUser(owner, `?cursor=${forged}.c2lnbmF0dXJl`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(INVALID_CURSOR);
  });

  it("continues a run of more than 500 files on the next page", async () => {
    const big = await createTestUser(api, { role: "owner" });
    const runId = newId("exportRun", now - HOUR);
    const files = Array.from({ length: 620 }, (_, index) =>
      entry("events", big.orgId, new Date(Date.UTC(2026, 0, 1) + index * HOUR).toISOString().slice(0, 13)),
    );
    await put(organisationManifestKey(big.orgId, runId), manifest(runId, files));
    await put(runManifestKey(runId), manifest(runId, []));

    const first = (await asUser(big)).body as unknown as Page;
    const second = (await asUser(big, `?cursor=${encodeURIComponent(String(first.nextCursor))}`))
      .body as unknown as Page;

    expect(first.runs.map((run) => [run.runId, run.filesFrom, run.files.length, run.fileCount])).toEqual([
      [runId, 0, 500, 620],
    ]);
    expect(second.runs.map((run) => [run.runId, run.filesFrom, run.files.length])).toEqual([[runId, 500, 120]]);
    expect(second.nextCursor).toBeNull();
    expect([...(first.runs[0]?.files ?? []), ...(second.runs[0]?.files ?? [])].map((file) => file.key)).toEqual(
      files.map((f) => f.key),
    );
  });

  it("refuses members (403) and a bad limit (400), naming the problem", async () => {
    const refused = await asUser(member);
    expect(refused.status).toBe(403);
    const tooMany = await asUser(owner, "?limit=51");
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain("limit");
  });
});
