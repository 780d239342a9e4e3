/** The committed file set `npm run sql` reads (local/sql/committed-files.ts): newest committed run wins per key. */
import { describe, expect, it } from "vitest";
import { newId } from "../../functions/domain/ids.js";
import {
  type CheckedManifest,
  checkRunManifest,
  committedFiles,
  ExportManifestError,
} from "../../local/sql/committed-files.js";

const sessionsKey = (hour: string) => `table=sessions/org=dev/env=live/day=2026-11-27/s-${hour}.parquet`;
const eventsKey = (hour: string) => `table=events/org=dev/env=live/day=2026-11-27/s-${hour}.parquet`;
const conversationsKey = `table=conversations/org=acme/env=test/day=2026-11-26/c-23.parquet`;

/** Run ids in time order: a later time, a later id. */
const runId = (minute: number) => newId("exportRun", Date.UTC(2026, 10, 27, 14, minute));

const manifest = (id: string, files: string[], removed: string[] = []): CheckedManifest => ({
  runId: id,
  files,
  removed,
});

describe("committedFiles", () => {
  it("is empty without a committed run", () => {
    expect(committedFiles([])).toEqual({ sessions: [], events: [], scores: [], conversations: [] });
  });

  it("sorts each table's keys and keeps tables apart", () => {
    const set = committedFiles([
      manifest(runId(1), [sessionsKey("15"), conversationsKey, eventsKey("14"), sessionsKey("14")]),
    ]);
    expect(set).toEqual({
      sessions: [sessionsKey("14"), sessionsKey("15")],
      events: [eventsKey("14")],
      scores: [],
      conversations: [conversationsKey],
    });
  });

  it("leaves out a key a newer run removed, whatever order the manifests come in", () => {
    const older = manifest(runId(1), [sessionsKey("14"), eventsKey("14")]);
    const newer = manifest(runId(2), [sessionsKey("14")], [eventsKey("14")]);
    expect(committedFiles([newer, older]).events).toEqual([]);
    expect(committedFiles([older, newer]).sessions).toEqual([sessionsKey("14")]);
  });

  it("keeps a key a newer run wrote again after an older removal (the newest run naming it wins)", () => {
    const removal = manifest(runId(1), [], [sessionsKey("14")]);
    const rewrite = manifest(runId(2), [sessionsKey("14")]);
    expect(committedFiles([rewrite, removal]).sessions).toEqual([sessionsKey("14")]);
  });

  it("keeps only one organisation's files when asked", () => {
    const set = committedFiles([manifest(runId(1), [sessionsKey("14"), conversationsKey])], "acme");
    expect(set).toEqual({ sessions: [], events: [], scores: [], conversations: [conversationsKey] });
    expect(committedFiles([manifest(runId(1), [sessionsKey("14")])], "de").sessions).toEqual([]);
  });

  it("keeps a key no newer run names", () => {
    const set = committedFiles([manifest(runId(1), [sessionsKey("14")]), manifest(runId(2), [sessionsKey("15")])]);
    expect(set.sessions).toEqual([sessionsKey("14"), sessionsKey("15")]);
  });
});

describe("checkRunManifest", () => {
  const id = runId(3);
  const valid = {
    formatVersion: 1,
    runId: id,
    files: [{ key: sessionsKey("14") }],
    removed: [{ key: eventsKey("13") }],
  };

  it("keeps the run id and the keys of a valid manifest", () => {
    expect(checkRunManifest(valid, id)).toEqual({ runId: id, files: [sessionsKey("14")], removed: [eventsKey("13")] });
  });

  it.each([
    ["not an object", null, "is not a JSON object"],
    ["an unknown format", { ...valid, formatVersion: 2 }, "unknown formatVersion 2"],
    ["another run's id", { ...valid, runId: runId(4) }, "does not match its key"],
    ["files not a list", { ...valid, files: {} }, '"files" is not a list'],
    ["an entry without a key", { ...valid, removed: [{}] }, 'an entry of "removed" has no key'],
    [
      "a key outside the layout",
      { ...valid, files: [{ key: "table=sessions/../../etc/passwd" }] },
      "not an export data file key",
    ],
    [
      "a key with a quote",
      { ...valid, files: [{ key: "table=sessions/org=dev'/env=live/day=2026-11-27/s-14.parquet" }] },
      "not an export data file key",
    ],
    [
      "a key of another table",
      { ...valid, files: [{ key: "table=users/org=dev/env=live/day=2026-11-27/s-14.parquet" }] },
      "not an export data file key",
    ],
  ])("refuses %s", (_, parsed, message) => {
    expect(() => checkRunManifest(parsed, id)).toThrow(ExportManifestError);
    expect(() => checkRunManifest(parsed, id)).toThrow(message);
  });

  it("refuses a manifest whose name is no export run id", () => {
    expect(() => checkRunManifest({ ...valid, runId: "exp_nope" }, "exp_nope")).toThrow("does not match its key");
  });
});
