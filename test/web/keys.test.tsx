// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import { apiError, baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

const KEY = {
  id: "key_01KAZ3X8Q9M4T7V2N6P5R1S0WE",
  name: "ci pipeline",
  hint: "Ab12",
  environment: "live",
  scopes: ["sessions:write", "events:write", "read"],
  createdAt: "2026-11-20T10:00:00.000Z",
  createdBy: "ada@example.com",
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  rotatedFrom: null,
  rotatedTo: null,
  status: "active",
};
const PLAINTEXT = "ats_test_0123456789abcdefghijABCDEFGHIJ012345";

describe("API keys page", () => {
  test("an admin creates a key: the plaintext is shown once, with the warning and a copy button", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("admin"),
      "GET /api/keys": json({ items: [KEY] }),
      "POST /api/keys": (request) => json({ ...KEY, id: "key_new", key: PLAINTEXT, ...(request.body as object) }, 201),
    });
    renderApp("/settings/keys");
    expect(await screen.findByRole("table", { name: "API keys of acme" })).toBeTruthy();

    // Act
    await user.click(screen.getByRole("button", { name: "Create key" }));
    const dialog = screen.getByRole("dialog", { name: "Create an API key" });
    await user.type(within(dialog).getByLabelText("Name"), "staging");
    await user.click(within(dialog).getByLabelText("Test"));
    await user.click(within(dialog).getByRole("checkbox", { name: /^delete/ }));
    await user.click(within(dialog).getByRole("button", { name: "Create key" }));

    // Assess: the request, then the key once with its warning and copy button
    const created = await screen.findByRole("dialog", { name: 'Key "staging" created' });
    const post = requests.find((request) => request.method === "POST");
    expect(post?.body).toEqual({
      name: "staging",
      environment: "test",
      scopes: ["sessions:write", "events:write", "scores:write", "read", "delete"],
    });
    expect(post?.headers.get("Authorization")).toBe("Bearer token-1");
    expect(post?.headers.get("X-Organization-Id")).toBe("acme");
    expect((within(created).getByLabelText("API key") as HTMLInputElement).value).toBe(PLAINTEXT);
    expect(within(created).getByRole("alert").textContent).toContain("shown only once");
    await user.click(within(created).getByRole("button", { name: "Copy key" }));
    expect(await navigator.clipboard.readText()).toBe(PLAINTEXT);
    expect(within(created).getByText("Copied to the clipboard")).toBeTruthy();
    // How to use it: the SDK's and an OTLP exporter's environment variables, with this key and this origin.
    const usage = within(created).getByRole("region", { name: "Use it" });
    expect([...usage.querySelectorAll("pre")].map((pre) => pre.textContent)).toEqual([
      `export ATS_BASE_URL="${window.location.origin}"\nexport ATS_API_KEY="${PLAINTEXT}"`,
      [
        `export OTEL_EXPORTER_OTLP_ENDPOINT="${window.location.origin}/api/otel"`,
        `export OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer%20${PLAINTEXT}"`,
        `export OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf"`,
      ].join("\n"),
    ]);
    await user.click(within(usage).getByRole("button", { name: "Copy OpenTelemetry variables" }));
    expect(await navigator.clipboard.readText()).toContain(`Bearer%20${PLAINTEXT}`);

    // Act: close it; the key is gone from the page for good
    await user.click(within(created).getByRole("button", { name: "Done" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.queryByDisplayValue(PLAINTEXT)).toBeNull();
    expect(document.body.textContent).not.toContain(PLAINTEXT);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Create key" }));
    expect(screen.getByText("Key “staging” created.")).toBeTruthy();
  });

  test("rotating shows the new key and the old key's expiry", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("owner"),
      "GET /api/keys": json({ items: [KEY] }),
      [`POST /api/keys/${KEY.id}/rotate`]: json(
        {
          ...KEY,
          id: "key_next",
          key: PLAINTEXT,
          hint: "Zz99",
          rotatedFrom: { ...KEY, status: "expiring", expiresAt: "2026-11-23T12:00:00.000Z", rotatedTo: "key_next" },
        },
        201,
      ),
    });
    renderApp("/settings/keys");
    await user.click(await screen.findByRole("button", { name: "Rotate ci pipeline (…Ab12)" }));
    const dialog = screen.getByRole("dialog", { name: 'Rotate "ci pipeline"' });
    await user.selectOptions(within(dialog).getByLabelText("Old key keeps working for"), "1 hour");
    await user.click(within(dialog).getByRole("button", { name: "Rotate key" }));
    const rotated = await screen.findByRole("dialog", { name: 'Key "ci pipeline" rotated' });
    expect(requests.find((request) => request.path.endsWith("/rotate"))?.body).toEqual({ overlapSeconds: 3600 });
    expect((within(rotated).getByLabelText("API key") as HTMLInputElement).value).toBe(PLAINTEXT);
    expect(rotated.textContent).toMatch(/This key \(…Zz99\) replaces …Ab12, which works until .*2026/);
  });

  test("revoking asks for confirmation; Escape cancels", async () => {
    const user = userEvent.setup();
    const requests = mockFetch({
      ...baseRoutes("admin"),
      "GET /api/keys": json({ items: [KEY] }),
      [`DELETE /api/keys/${KEY.id}`]: { status: 204 },
    });
    renderApp("/settings/keys");
    await user.click(await screen.findByRole("button", { name: "Revoke ci pipeline (…Ab12)" }));
    expect(screen.getByRole("dialog", { name: 'Revoke "ci pipeline"?' })).toBeTruthy();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(requests.some((request) => request.method === "DELETE")).toBe(false);

    await user.click(screen.getByRole("button", { name: "Revoke ci pipeline (…Ab12)" }));
    await user.click(screen.getByRole("button", { name: "Revoke key" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(requests.filter((request) => request.method === "DELETE").map((request) => request.path)).toEqual([
      `/api/keys/${KEY.id}`,
    ]);
  });

  test("a member sees the keys and the audit trail, but no create, rotate or revoke buttons", async () => {
    const user = userEvent.setup();
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/keys": json({ items: [KEY] }),
      [`GET /api/keys/${KEY.id}/audit`]: json({
        items: [
          {
            id: "aud_1",
            keyId: KEY.id,
            action: "key.created",
            actor: "ada@example.com",
            actorId: "user-1",
            at: KEY.createdAt,
            details: {},
          },
        ],
      }),
    });
    renderApp("/settings/keys");
    expect(await screen.findByRole("rowheader", { name: "ci pipeline" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Create key" })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Rotate/ })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Revoke/ })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Audit trail of ci pipeline (…Ab12)" }));
    const dialog = screen.getByRole("dialog", { name: 'Audit trail of "ci pipeline"' });
    expect(await within(dialog).findByText("Created")).toBeTruthy();
  });

  test("a rotation's keys name each other; the audit trail reads as people, times and sentences; the rotated key cannot be rotated again, and says why", async () => {
    const user = userEvent.setup();
    const next = { ...KEY, id: "key_01KAZ3X8Q9M4T7V2N6P5R1S0WF", hint: "Zz99", rotatedFrom: KEY.id };
    const old = { ...KEY, status: "expiring", expiresAt: "2026-11-23T12:00:00.000Z", rotatedTo: next.id };
    mockFetch({
      ...baseRoutes("admin"),
      "GET /api/keys": json({ items: [old, next] }),
      [`GET /api/keys/${KEY.id}/audit`]: json({
        items: [
          {
            id: "aud_1",
            keyId: KEY.id,
            action: "key.created",
            actor: "ada@example.com",
            actorId: "user-1",
            at: KEY.createdAt,
            details: { environment: "live", scopes: "sessions:write events:write read" },
          },
          {
            id: "aud_2",
            keyId: KEY.id,
            action: "key.rotated",
            actor: "bob@example.com",
            actorId: "user-2",
            at: "2026-11-22T12:00:00.000Z",
            details: { replacedBy: next.id, expiresAt: old.expiresAt, overlapSeconds: 86_400 },
          },
        ],
      }),
    });
    renderApp("/settings/keys");
    const oldRow = (await screen.findAllByRole("rowheader", { name: /^ci pipeline/ }))[0]?.closest("tr");
    const newRow = screen.getAllByRole("rowheader", { name: /^ci pipeline/ })[1]?.closest("tr");
    if (oldRow == null || newRow == null) throw new Error("rows missing");
    expect(within(oldRow).getByText("Replaced by …Zz99")).toBeTruthy();
    expect(within(newRow).getByText("Replacement of …Ab12")).toBeTruthy();
    const rotate = within(oldRow).getByRole("button", { name: "Rotate ci pipeline (…Ab12)" }) as HTMLButtonElement;
    expect(rotate.disabled).toBe(true);
    expect(within(oldRow).getByText("Already rotated: rotate its replacement.")).toBeTruthy();

    await user.click(within(oldRow).getByRole("button", { name: "Audit trail of ci pipeline (…Ab12)" }));
    const dialog = screen.getByRole("dialog", { name: 'Audit trail of "ci pipeline"' });
    const items = await within(dialog).findAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringMatching(
        /^Created by ada@example\.com.*2026.*For live, with the scopes sessions:write, events:write, read\.$/,
      ),
      expect.stringMatching(
        /^Rotated by bob@example\.com.*2026.*Replaced by “ci pipeline” \(…Zz99\); it kept working for 24 hours, until .*2026.*\.$/,
      ),
    ]);
    expect(dialog.textContent).not.toContain("overlapSeconds");
  });

  test("a 403 is explained, not a blank page", async () => {
    mockFetch({
      ...baseRoutes("member"),
      "GET /api/keys": apiError(403, "Forbidden", "Your role (member) may not list keys of acme."),
    });
    renderApp("/settings/keys");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("You don't have access to this");
    expect(alert.textContent).toContain("Your role (member) may not list keys of acme.");
    expect(screen.getByRole("heading", { name: "API keys" })).toBeTruthy();
  });

  test("no keys: an empty state", async () => {
    mockFetch({ ...baseRoutes("admin"), "GET /api/keys": json({ items: [] }) });
    renderApp("/settings/keys");
    expect(await screen.findByText("No API keys yet.")).toBeTruthy();
  });
});
