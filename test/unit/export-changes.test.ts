/** Which export units a change of the table touches (functions/domain/export-changes.ts). */
import { describe, expect, it } from "vitest";
import { unitOfStart, unitsOfChange } from "../../functions/domain/export-changes.js";

const session = (createdAt: string) => ({
  entity: "session",
  orgId: "acme",
  environment: "live",
  createdAt,
});

describe("unitsOfChange", () => {
  it("places a session by its own start hour, and a moved session in both hours", () => {
    expect(unitsOfChange({ partitionKey: "SESSION#ses_1", newImage: session("2026-11-27T14:59:59.999Z") })).toEqual({
      units: [{ kind: "s", orgId: "acme", environment: "live", hour: "2026-11-27T14" }],
    });
    const moved = unitsOfChange({
      partitionKey: "SESSION#ses_1",
      newImage: session("2026-11-27T13:10:00.000Z"),
      oldImage: session("2026-11-27T14:00:00.000Z"),
    });
    expect(moved.units.map((unit) => unit.hour)).toEqual(["2026-11-27T13", "2026-11-27T14"]);
  });

  it("places a removed session and a tombstone by their old image", () => {
    expect(
      unitsOfChange({ partitionKey: "SESSION#ses_1", oldImage: session("2026-01-02T03:04:05.000Z") }).units,
    ).toEqual([{ kind: "s", orgId: "acme", environment: "live", hour: "2026-01-02T03" }]);
    const tombstone = { ...session("2026-01-02T03:04:05.000Z"), entity: "sessionTombstone" };
    expect(unitsOfChange({ partitionKey: "SESSION#ses_1", newImage: tombstone }).units).toHaveLength(1);
  });

  it("asks for the session of an event or score, and for the summary of a conversation's score", () => {
    expect(unitsOfChange({ partitionKey: "SESSION#ses_9", oldImage: { entity: "event" } })).toEqual({
      units: [],
      lookup: { kind: "session", sessionId: "ses_9" },
    });
    expect(unitsOfChange({ partitionKey: "CONVERSATION#ORG#a#ENV#live#c1", newImage: { entity: "score" } })).toEqual({
      units: [],
      lookup: { kind: "conversation", partitionKey: "CONVERSATION#ORG#a#ENV#live#c1" },
    });
  });

  it("places a conversation summary by its start, and ignores what the export holds none of", () => {
    const summary = {
      entity: "conversation",
      orgId: "acme",
      environment: "test",
      startedAt: "2026-11-27T00:00:00.000Z",
    };
    expect(unitsOfChange({ partitionKey: "CONVERSATION#x", newImage: summary }).units).toEqual([
      { kind: "c", orgId: "acme", environment: "test", hour: "2026-11-27T00" },
    ]);
    expect(unitsOfChange({ partitionKey: "ROLLUP#x", newImage: { entity: "rollup" } })).toEqual({ units: [] });
    expect(unitsOfChange({ partitionKey: "SESSION#s", newImage: { entity: "scoreCount" } })).toEqual({ units: [] });
  });

  it("refuses an image without a tenant, an environment or a time", () => {
    expect(unitsOfChange({ partitionKey: "SESSION#s", newImage: { ...session("not a time") } }).units).toEqual([]);
    expect(
      unitsOfChange({
        partitionKey: "SESSION#s",
        newImage: { ...session("2026-11-27T00:00:00Z"), environment: "prod" },
      }).units,
    ).toEqual([]);
    expect(unitOfStart({ kind: "session", sessionId: "s" }, undefined)).toBeUndefined();
  });
});
