/** The pure rules of invitations (domain/invitation.ts). */
import { describe, expect, it } from "vitest";
import {
  INVITATION_LIFETIME_DAYS,
  invitationExpiry,
  isPending,
  secondsUntilNextUtcDay,
  utcDay,
} from "../../functions/domain/invitation.js";

const NOW = Date.parse("2026-11-22T09:30:00.000Z");

describe("invitations", () => {
  it(`expire ${INVITATION_LIFETIME_DAYS} days after they are sent, and are pending until then (exclusive)`, () => {
    const expiresAt = invitationExpiry(NOW);

    expect(expiresAt).toBe("2026-11-29T09:30:00.000Z");
    expect(isPending({ expiresAt }, Date.parse(expiresAt) - 1)).toBe(true);
    expect(isPending({ expiresAt }, Date.parse(expiresAt))).toBe(false);
  });

  it("are counted per UTC day, and the count starts again at midnight UTC", () => {
    expect(utcDay(NOW)).toBe("2026-11-22");
    expect(utcDay(Date.parse("2026-11-22T23:59:59.999Z"))).toBe("2026-11-22");
    expect(secondsUntilNextUtcDay(NOW)).toBe(14 * 3600 + 30 * 60);
    expect(secondsUntilNextUtcDay(Date.parse("2026-11-22T23:59:59.999Z"))).toBe(1);
    expect(secondsUntilNextUtcDay(Date.parse("2026-11-23T00:00:00.000Z"))).toBe(86_400);
  });
});
