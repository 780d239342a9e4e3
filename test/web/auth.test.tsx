// @vitest-environment jsdom
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import { apiError, baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

const location = () => screen.getByRole("status", { name: "Current location" }).textContent ?? "";

describe("sign-in", () => {
  test("local: pick a user, then land on the page asked for", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("owner"),
      "GET /local/users": json([{ email: "dev@localhost", userId: "u-dev" }]),
      "POST /local/sign-in": json({ accessToken: "local-token", expiresAt: "2099-01-01T00:00:00.000Z" }),
      "GET /api/members": json({ items: [] }),
    });
    renderApp("/settings/members", { signedIn: false });
    await user.click(await screen.findByRole("button", { name: "Sign in as dev@localhost" }));
    expect(await screen.findByRole("heading", { name: "Members" })).toBeTruthy();
    expect(location()).toBe("/settings/members");
    expect(requests.find((request) => request.path === "/local/sign-in")?.body).toEqual({ email: "dev@localhost" });
    expect(requests.find((request) => request.path === "/api/members")?.headers.get("Authorization")).toBe(
      "Bearer local-token",
    );
  });

  test("a 401 sends the user to sign in again with a message, keeping the page", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/sdk/agents": apiError(401, "Unauthorized", "Invalid access token: expired"),
      "GET /local/users": json([{ email: "dev@localhost", userId: "u-dev" }]),
    });
    renderApp("/agents?env=test");
    expect(await screen.findByText(/Your session has expired/)).toBeTruthy();
    await waitFor(() => expect(location()).toBe(`/sign-in?next=${encodeURIComponent("/agents?env=test")}`));
  });
});

describe("members", () => {
  test("owners invite people (who join once they accept) and change roles; a 409 is explained", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("owner"),
      "GET /api/members": json({
        items: [{ userId: "user-1", email: "ada@example.com", role: "owner", createdAt: "2026-11-01T00:00:00.000Z" }],
      }),
      "GET /api/invitations": json({ items: [] }),
      "POST /api/invitations": json(
        {
          userId: "user-2",
          email: "bob@example.com",
          role: "admin",
          invitedBy: "ada@example.com",
          createdAt: "2026-11-22T00:00:00.000Z",
          expiresAt: "2026-11-29T00:00:00.000Z",
        },
        201,
      ),
      "PATCH /api/members/user-1": apiError(409, "Conflict", "acme must keep at least one owner"),
    });
    renderApp("/settings/members");
    expect(await screen.findByRole("table", { name: "Members of acme" })).toBeTruthy();
    await user.type(screen.getByLabelText("Email"), "bob@example.com");
    await user.selectOptions(screen.getByLabelText("Role"), "admin");
    await user.click(screen.getByRole("button", { name: "Invite" }));
    expect(
      (await screen.findByText("Invitation sent to bob@example.com: they join as admin once they accept.")).textContent,
    ).toBeTruthy();
    expect(requests.find((request) => request.method === "POST")?.body).toEqual({
      email: "bob@example.com",
      role: "admin",
    });
    await user.selectOptions(screen.getByLabelText("Role of ada@example.com"), "member");
    expect((await screen.findByRole("alert")).textContent).toContain("acme must keep at least one owner");
  });

  test("members see the list without controls", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/members": json({
        items: [{ userId: "user-1", email: "ada@example.com", role: "member", createdAt: "2026-11-01T00:00:00.000Z" }],
      }),
    });
    renderApp("/settings/members");
    expect(await screen.findByRole("rowheader", { name: /ada@example.com/ })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Invite" })).toBeNull();
    expect(screen.queryByRole("table", { name: /^Pending invitations/ })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Remove/ })).toBeNull();
    expect(screen.queryByRole("combobox", { name: /^Role of/ })).toBeNull();
  });
});
