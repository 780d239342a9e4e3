// @vitest-environment jsdom
/**
 * Invitations in the console (issue 21, item 4): nobody lands in an organisation they did not choose. The
 * invitations are shown apart with Accept and Decline; accepting is a choice, and the console then acts for
 * the organisation accepted; a user of several organisations who has chosen none is asked, never given the
 * first one.
 */
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import type { Me } from "../../web/src/api/types";
import { json, ME, mockFetch, type RecordedRequest, renderApp } from "./support/render-app";

const INVITATION = {
  orgId: "initech",
  role: "admin",
  invitedBy: "bill@initech.example",
  createdAt: "2026-11-21T16:00:00.000Z",
  expiresAt: "2099-11-28T16:00:00.000Z",
} as const;

function me(organisations: Me["organisations"], invitations: Me["invitations"] = []): Me {
  return { userId: "user-1", email: ME, organisations, invitations };
}

const members = (orgId: string) =>
  json({ items: [{ userId: "user-1", email: ME, role: "member", createdAt: "2026-11-01T00:00:00.000Z" }], orgId });

/** Requests that named an organisation, by the organisation named. */
function organisationsNamed(requests: readonly RecordedRequest[]): string[] {
  return [...new Set(requests.map((request) => request.headers.get("X-Organization-Id")).filter((id) => id !== null))];
}

describe("invitations", () => {
  test("a user of no organisation sees the invitation, accepts it, and lands in that organisation", async () => {
    const user = userEvent.setup();
    let accepted = false;
    const requests = mockFetch({
      "GET /console-config.json": json({ auth: { kind: "local" } }),
      "GET /api/me": () => json(accepted ? me([{ orgId: "initech", role: "admin" }]) : me([], [INVITATION])),
      "POST /api/me/invitations/initech/accept": () => {
        accepted = true;
        return json({ orgId: "initech", role: "admin", createdAt: "2026-11-22T09:30:00.000Z" }, 201);
      },
      "GET /api/members": members("initech"),
      "GET /api/invitations": json({ items: [] }),
    });
    renderApp("/settings/members");

    const prompt = await screen.findByRole("complementary", { name: "Your invitations" });
    expect(screen.getByRole("heading", { level: 1, name: "No organisation" })).toBeTruthy();
    expect(prompt.textContent).toContain("initech invites you as admin");
    expect(prompt.textContent).toContain("bill@initech.example");
    await user.click(within(prompt).getByRole("button", { name: "Accept the invitation to initech" }));

    expect(await screen.findByRole("table", { name: "Members of initech" })).toBeTruthy();
    const accept = requests.find((request) => request.path === "/api/me/invitations/initech/accept");
    expect(accept?.method).toBe("POST");
    expect(accept?.headers.get("X-Organization-Id")).toBeNull();
    expect(localStorage.getItem("ats.orgId")).toBe("initech");
    expect(screen.queryByRole("complementary", { name: "Your invitations" })).toBeNull();
  });

  test("an invitation never changes the organisation a user works in; declining removes it", async () => {
    const user = userEvent.setup();
    let declined = false;
    const requests = mockFetch({
      "GET /console-config.json": json({ auth: { kind: "local" } }),
      // The inviting organisation sorts first: it must still not be picked.
      "GET /api/me": () =>
        json(me([{ orgId: "zeta", role: "owner" }], declined ? [] : [{ ...INVITATION, orgId: "aaa" }])),
      "POST /api/me/invitations/aaa/decline": () => {
        declined = true;
        return { status: 204 };
      },
      "GET /api/members": members("zeta"),
      "GET /api/invitations": json({ items: [] }),
    });
    renderApp("/settings/members");

    expect(await screen.findByRole("table", { name: "Members of zeta" })).toBeTruthy();
    const prompt = screen.getByRole("complementary", { name: "Your invitations" });
    await user.click(within(prompt).getByRole("button", { name: "Decline the invitation to aaa" }));

    await waitFor(() => expect(screen.queryByRole("complementary", { name: "Your invitations" })).toBeNull());
    expect(screen.getByRole("table", { name: "Members of zeta" })).toBeTruthy();
    expect(organisationsNamed(requests)).toEqual(["zeta"]);
  });

  test("accepting while working in another organisation switches to the one accepted", async () => {
    const user = userEvent.setup();
    let accepted = false;
    mockFetch({
      "GET /console-config.json": json({ auth: { kind: "local" } }),
      "GET /api/me": () =>
        json(
          accepted
            ? me([
                { orgId: "initech", role: "admin" },
                { orgId: "zeta", role: "owner" },
              ])
            : me([{ orgId: "zeta", role: "owner" }], [INVITATION]),
        ),
      "POST /api/me/invitations/initech/accept": () => {
        accepted = true;
        return json({ orgId: "initech", role: "admin", createdAt: "2026-11-22T09:30:00.000Z" }, 201);
      },
      "GET /api/members": (request) => members(request.headers.get("X-Organization-Id") ?? "?"),
      "GET /api/invitations": json({ items: [] }),
    });
    renderApp("/settings/members");

    expect(await screen.findByRole("table", { name: "Members of zeta" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Accept the invitation to initech" }));

    expect(await screen.findByRole("table", { name: "Members of initech" })).toBeTruthy();
    expect(screen.getByRole("combobox", { name: "Organisation" })).toHaveProperty("value", "initech");
  });

  test("a user of several organisations who chose none is asked to choose: nothing is picked for them", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      "GET /console-config.json": json({ auth: { kind: "local" } }),
      "GET /api/me": json(
        me([
          { orgId: "aaa", role: "member" },
          { orgId: "zeta", role: "owner" },
        ]),
      ),
      "GET /api/members": (request) => members(request.headers.get("X-Organization-Id") ?? "?"),
      "GET /api/invitations": json({ items: [] }),
    });
    renderApp("/settings/members");

    expect(await screen.findByRole("heading", { level: 1, name: "Choose an organisation" })).toBeTruthy();
    expect(organisationsNamed(requests)).toEqual([]);
    await user.click(screen.getByRole("button", { name: "zeta (owner)" }));

    expect(await screen.findByRole("table", { name: "Members of zeta" })).toBeTruthy();
    expect(localStorage.getItem("ats.orgId")).toBe("zeta");
    expect(organisationsNamed(requests)).toEqual(["zeta"]);
  });

  test("owners see the pending invitations and revoke one", async () => {
    const user = userEvent.setup();
    let revoked = false;
    const requests = mockFetch({
      "GET /console-config.json": json({ auth: { kind: "local" } }),
      "GET /api/me": json(me([{ orgId: "acme", role: "owner" }])),
      "GET /api/members": members("acme"),
      "GET /api/invitations": () =>
        json({
          items: revoked
            ? []
            : [
                {
                  userId: "user-2",
                  email: "bob@example.com",
                  role: "admin",
                  invitedBy: ME,
                  createdAt: "2026-11-22T00:00:00.000Z",
                  expiresAt: "2099-11-29T00:00:00.000Z",
                },
              ],
        }),
      "DELETE /api/invitations/user-2": () => {
        revoked = true;
        return { status: 204 };
      },
    });
    renderApp("/settings/members");

    const pending = await screen.findByRole("table", { name: "Pending invitations to acme" });
    expect(within(pending).getByRole("rowheader", { name: "bob@example.com" })).toBeTruthy();
    await user.click(within(pending).getByRole("button", { name: "Revoke the invitation of bob@example.com" }));

    expect(await screen.findByText("No pending invitations.")).toBeTruthy();
    expect(requests.some((request) => request.method === "DELETE" && request.path === "/api/invitations/user-2")).toBe(
      true,
    );
  });
});
