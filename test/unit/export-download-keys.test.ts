/**
 * Issue 35: the tenancy check of `GET /api/exports` (organisation-export-keys.ts), the manifest reader that
 * keeps only typed fields (organisation-manifest.ts), and the ULID time helpers the run search walks back with.
 */
import { describe, expect, it } from "vitest";
import { newId, ulidTime, ulidTimePrefix } from "../../functions/domain/ids.js";
import { isSearchBound } from "../../functions/store/export/committed-runs.js";
import {
  ForeignExportKeyError,
  isOrganisationExportKey,
  organisationExportKey,
} from "../../functions/store/export/organisation-export-keys.js";
import { parseOrganisationManifest } from "../../functions/store/export/organisation-manifest.js";

describe("isOrganisationExportKey", () => {
  it.each([
    "table=sessions/org=acme/env=live/day=2026-11-22/s-10.parquet",
    "table=conversations/org=acme/env=test/day=2026-11-22/c-00.parquet",
    "manifests/org=acme/runs/exp_01KAZ7A0B1C2D3E4F5G6H7J8K9.json",
  ])("accepts the organisation's own %s", (key) => {
    expect(isOrganisationExportKey("acme", key)).toBe(true);
    expect(organisationExportKey("acme", key)).toBe(key);
  });

  it.each([
    ["another organisation's file", "table=sessions/org=globex/env=live/day=2026-11-22/s-10.parquet"],
    [
      "an organisation whose id starts with the caller's",
      "table=sessions/org=acme-x/env=live/day=2026-11-22/s-10.parquet",
    ],
    ["a table that is not exported", "table=apikeys/org=acme/env=live/day=2026-11-22/s-10.parquet"],
    ["the run's whole manifest", "manifests/runs/exp_01KAZ7A0B1C2D3E4F5G6H7J8K9.json"],
    ["a step out of the prefix", "table=sessions/org=acme/../org=globex/env=live/day=2026-11-22/s-10.parquet"],
    ["an empty segment", "table=sessions/org=acme//org=globex/s-10.parquet"],
    ["a query string", "table=sessions/org=acme/env=live/x.parquet?x-id=GetObject"],
    ["a percent escape", "table=sessions/org=acme/%2e%2e/org=globex/s-10.parquet"],
    ["a payload object", "payloads/acme/live/ses_1/evt_1/toolInputJson"],
    ["a control character", "table=sessions/org=acme/\u0000.parquet"],
  ])("refuses %s", (_what, key) => {
    expect(isOrganisationExportKey("acme", key)).toBe(false);
    expect(() => organisationExportKey("acme", key)).toThrow(ForeignExportKeyError);
  });

  it("refuses everything for an organisation id that is not a slug", () => {
    expect(isOrganisationExportKey("acme/..", "table=sessions/org=acme/../s.parquet")).toBe(false);
    expect(isOrganisationExportKey("", "table=sessions/org=/env=live/s.parquet")).toBe(false);
  });
});

describe("parseOrganisationManifest", () => {
  const runId = "exp_01KAZ7A0B1C2D3E4F5G6H7J8K9";
  const file = {
    table: "events",
    environment: "live",
    day: "2026-11-22",
    hour: "2026-11-22T10",
    unit: "s",
    key: "table=events/org=acme/env=live/day=2026-11-22/s-10.parquet",
  };

  it("keeps the typed fields of each file and drops entries that are not files of an exported table", () => {
    const parsed = parseOrganisationManifest(
      {
        runId,
        schemaVersion: 1,
        startedAt: "2026-11-22T11:00:00.000Z",
        committedAt: "2026-11-22T11:00:05.000Z",
        changesFrom: "a",
        changesThrough: "b",
        files: [
          { ...file, rows: 3, bytes: 10, extra: "dropped" },
          { ...file, table: "secrets" },
          { ...file, key: 7 },
          "not an object",
          { ...file, rows: -1, bytes: 1.5 },
        ],
        removed: [file, null],
        __proto__: { polluted: true },
      },
      runId,
    );

    expect(parsed?.files).toEqual([
      { ...file, rows: 3, bytes: 10 },
      { ...file, rows: 0, bytes: 0 },
    ]);
    expect(parsed?.removed).toEqual([file]);
  });

  it("refuses a manifest of another run, or no object at all", () => {
    expect(parseOrganisationManifest({ runId: "exp_other", files: [] }, runId)).toBeUndefined();
    expect(parseOrganisationManifest([runId], runId)).toBeUndefined();
    expect(parseOrganisationManifest(undefined, runId)).toBeUndefined();
  });
});

describe("ULID time helpers", () => {
  it("give the time prefix every id of a millisecond starts with, and read it back", () => {
    const time = Date.parse("2026-11-22T10:00:00.123Z");
    const id = newId("exportRun", time);

    expect(id.slice(4, 14)).toBe(ulidTimePrefix(time));
    expect(ulidTime(id.slice(4))).toBe(time);
    expect(ulidTimePrefix(time - 1) < id.slice(4)).toBe(true);
    expect(ulidTimePrefix(time + 1) > id.slice(4)).toBe(true);
    expect(ulidTime("not-a-ulid")).toBeNaN();
  });

  it("accept as a search bound only the newest bound, a time prefix or a run manifest's name", () => {
    expect(isSearchBound("exp_~")).toBe(true);
    expect(isSearchBound(`exp_${ulidTimePrefix(Date.now())}`)).toBe(true);
    expect(isSearchBound("exp_01KAZ7A0B1C2D3E4F5G6H7J8K9.json")).toBe(true);
    expect(isSearchBound("exp_01KAZ7A0B1C2D3E4F5G6H7J8K9.json/../../x")).toBe(false);
    expect(isSearchBound("")).toBe(false);
  });
});
