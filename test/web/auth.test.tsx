// @vitest-environment jsdom
import { act, cleanup, renderHook, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test, vi } from "vitest";
import { useTransient } from "../../web/src/lib/use-transient";
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

  test("local: a reload of the tab keeps the session (sessionStorage, never localStorage); signing out forgets it", async () => {
    // Prepare: signed in once
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

    // Act: a reload (a new app on the same tab) at a deep link
    cleanup();
    renderApp("/settings/members?env=test", { signedIn: false });

    // Assess: straight to the page, with the kept token; nothing in localStorage
    expect(await screen.findByRole("heading", { name: "Members" })).toBeTruthy();
    expect(location()).toBe("/settings/members?env=test");
    expect(requests.filter((request) => request.path === "/local/sign-in")).toHaveLength(1);
    expect(requests.at(-1)?.headers.get("Authorization")).toBe("Bearer local-token");
    expect(JSON.stringify({ ...localStorage })).not.toContain("local-token");

    // Act: sign out, reload
    await user.click(screen.getByRole("button", { name: "Sign out" }));
    cleanup();
    renderApp("/settings/members", { signedIn: false });
    expect(await screen.findByRole("button", { name: "Sign in as dev@localhost" })).toBeTruthy();
  });

  test("AWS: a reload or a deep link renews the sign-in through Cognito's session, straight back to the page asked for", async () => {
    const assign = vi.fn();
    vi.stubGlobal("location", { ...window.location, assign });
    mockFetch({
      "GET /console-config.json": json({
        auth: {
          kind: "cognito",
          domain: "https://ats.auth.eu-west-1.amazoncognito.com",
          clientId: "client-1",
          redirectUri: "https://console.example/auth/callback",
          logoutUri: "https://console.example/",
        },
      }),
    });
    renderApp("/sessions/ses_1?env=test", { signedIn: false });
    expect(await screen.findByText("Signing you in…")).toBeTruthy();
    await waitFor(() => expect(assign).toHaveBeenCalled());
    const url = new URL(String(assign.mock.calls[0]?.[0]));
    expect(url.pathname).toBe("/oauth2/authorize");
    expect(JSON.parse(sessionStorage.getItem("ats.oauth.pending") ?? "{}").returnTo).toBe("/sessions/ses_1?env=test");
    expect(screen.queryByRole("heading", { name: "Sign in to Agent Tracking" })).toBeNull();
    expect(JSON.stringify({ ...localStorage, ...sessionStorage })).not.toMatch(/access_?token|idToken/i);
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
        items: [
          { userId: "user-1", email: "ada@example.com", role: "owner", createdAt: "2026-11-01T00:00:00.000Z" },
          { userId: "user-3", email: "cy@example.com", role: "owner", createdAt: "2026-11-02T00:00:00.000Z" },
        ],
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

  test("the only owner cannot be demoted or removed: the controls are disabled and say why", async () => {
    mockFetch({
      ...baseRoutes("owner"),
      "GET /api/members": json({
        items: [
          { userId: "user-1", email: "ada@example.com", role: "owner", createdAt: "2026-11-01T00:00:00.000Z" },
          { userId: "user-2", email: "bob@example.com", role: "member", createdAt: "2026-11-02T00:00:00.000Z" },
        ],
      }),
      "GET /api/invitations": json({ items: [] }),
    });
    renderApp("/settings/members");
    const role = (await screen.findByLabelText("Role of ada@example.com")) as HTMLSelectElement;
    expect(role.disabled).toBe(true);
    expect((screen.getByRole("button", { name: "Remove ada@example.com" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("The only owner: make another member an owner first.")).toBeTruthy();
    expect((screen.getByLabelText("Role of bob@example.com") as HTMLSelectElement).disabled).toBe(false);
    expect((screen.getByRole("button", { name: "Remove bob@example.com" }) as HTMLButtonElement).disabled).toBe(false);
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

describe("messages", () => {
  test("clear themselves after a few seconds; showing one again restarts its time", () => {
    vi.useFakeTimers();
    try {
      const { result } = renderHook(() => useTransient<string>(5_000));
      act(() => result.current[1]("Key created."));
      expect(result.current[0]).toBe("Key created.");
      act(() => vi.advanceTimersByTime(4_000));
      act(() => result.current[1]("Key created."));
      act(() => vi.advanceTimersByTime(4_000));
      expect(result.current[0]).toBe("Key created.");
      act(() => vi.advanceTimersByTime(1_001));
      expect(result.current[0]).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
