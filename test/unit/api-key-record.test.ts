import { describe, expect, it } from "vitest";
import { type ApiKeyRecord, isUsable } from "../../functions/domain/api-key-record.js";

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

function record(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId: "key_01ARZ3NDEKTSV4RRFFQ69G5FAV",
    orgId: "org-1",
    environment: "live",
    name: "ci",
    hint: "AbCd",
    scopes: ["sessions:write", "events:write", "read"],
    retentionDays: 30,
    createdAt: "2025-01-01T00:00:00.000Z",
    createdBy: "admin",
    ...overrides,
  };
}

describe("isUsable", () => {
  it("accepts a key that is neither revoked nor expiring", () => {
    // Prepare
    const key = record();

    // Act
    const usable = isUsable(key, NOW);

    // Assess
    expect(usable).toBe(true);
  });

  it("refuses a revoked key", () => {
    // Prepare
    const key = record({ revokedAt: "2025-05-01T00:00:00.000Z" });

    // Act
    const usable = isUsable(key, NOW);

    // Assess
    expect(usable).toBe(false);
  });

  it("refuses a revoked key even if its expiry is in the future", () => {
    // Prepare
    const key = record({ revokedAt: "2025-05-01T00:00:00.000Z", expiresAt: "2026-01-01T00:00:00.000Z" });

    // Act
    const usable = isUsable(key, NOW);

    // Assess
    expect(usable).toBe(false);
  });

  it("refuses a key whose expiry has passed", () => {
    // Prepare
    const key = record({ expiresAt: new Date(NOW - 1000).toISOString() });

    // Act
    const usable = isUsable(key, NOW);

    // Assess
    expect(usable).toBe(false);
  });

  it("accepts a key whose expiry is still in the future", () => {
    // Prepare
    const key = record({ expiresAt: new Date(NOW + 1000).toISOString() });

    // Act
    const usable = isUsable(key, NOW);

    // Assess
    expect(usable).toBe(true);
  });

  it("accepts the same key before its expiry and refuses it after", () => {
    // Prepare
    const expiresAt = NOW + 60_000;
    const key = record({ expiresAt: new Date(expiresAt).toISOString() });

    // Act
    const before = isUsable(key, expiresAt - 1);
    const after = isUsable(key, expiresAt + 1);

    // Assess
    expect(before).toBe(true);
    expect(after).toBe(false);
  });

  it("refuses a key whose expiry cannot be read (fails closed)", () => {
    // Prepare
    const key = record({ expiresAt: "not a date" });

    // Act
    const usable = isUsable(key, NOW);

    // Assess
    expect(usable).toBe(false);
  });
});
