/** The Slack message and the console links of a notification (pure). */
import { describe, expect, it } from "vitest";
import { notificationLinks } from "../../functions/alerts/delivery/notification-links.js";
import { formatFigure, formatWindow, slackMessage, slackText } from "../../functions/alerts/delivery/slack-message.js";
import type { AlertNotification } from "../../functions/domain/alert-notification.js";

const base: AlertNotification = {
  notificationId: "ntf_01KB0M3Q7R9T1V3X5Z7B9D1F3H",
  type: "monitor.state_changed",
  orgId: "acme",
  environment: "live",
  monitor: {
    id: "mon_01KB0J2A4C6E8G0J2L4N6Q8S0U",
    name: "Checkout <failures> & co",
    metric: "failure_rate",
    filters: { agent: "checkout" },
    windowMinutes: 15,
    comparison: "above",
    warningThreshold: 2,
    alertThreshold: 5,
  },
  state: "alert",
  previousState: "ok",
  figure: 12.5,
  samples: 40,
  threshold: 5,
  windowStart: "2026-11-27T10:00:00.000Z",
  windowEnd: "2026-11-27T10:15:00.000Z",
  occurredAt: "2026-11-27T10:15:04.000Z",
};

describe("slackText", () => {
  it("says the state, the monitor, the figure against the threshold and the window", () => {
    expect(slackText(base)).toBe("[ALERT] Checkout <failures> & co: failure_rate 12.5% above 5% over 15 minutes");
  });

  it("says a recovery without a threshold, a renotify and a test", () => {
    expect(slackText({ ...base, state: "ok", previousState: "alert", figure: 1.25, threshold: null })).toBe(
      "[OK] Checkout <failures> & co (recovered): failure_rate 1.25% over 15 minutes",
    );
    expect(slackText({ ...base, type: "monitor.renotify", previousState: "alert" })).toBe(
      "[ALERT] Checkout <failures> & co: failure_rate 12.5% above 5% over 15 minutes",
    );
    expect(slackText({ ...base, type: "monitor.test" }).startsWith("[TEST] [ALERT] ")).toBe(true);
    expect(slackText({ ...base, state: "warning", figure: null, threshold: 2 })).toBe(
      "[WARNING] Checkout <failures> & co: failure_rate no data above 2% over 15 minutes",
    );
  });

  it("formats figures by metric and windows in whole units", () => {
    expect(formatFigure("cost", 51.237)).toBe("$51.24");
    expect(formatFigure("duration_p95", 1200)).toBe("1200 ms");
    expect(formatFigure("label_share", 33.333)).toBe("33.33%");
    expect(formatFigure("tokens", 1_000_000)).toBe("1000000");
    expect(formatFigure("score_mean", 0.5)).toBe("0.5");
    expect([5, 60, 90, 1440, 10080].map(formatWindow)).toEqual([
      "5 minutes",
      "1 hour",
      "90 minutes",
      "1 day",
      "7 days",
    ]);
  });
});

describe("slackMessage", () => {
  it("escapes user text for mrkdwn and links the monitor and its sessions", () => {
    const links = notificationLinks(base, "https://console.example.com/");
    const message = slackMessage(base, links);

    expect(message.text).toBe(
      "[ALERT] Checkout &lt;failures&gt; &amp; co: failure_rate 12.5% above 5% over 15 minutes",
    );
    expect(JSON.stringify(message)).not.toContain("<failures>");
    expect(message.blocks[1]).toEqual({
      type: "section",
      fields: [
        { type: "mrkdwn", text: "*State*\nOK → ALERT" },
        { type: "mrkdwn", text: "*Figure*\n12.5% (40 samples)" },
        { type: "mrkdwn", text: "*Threshold*\nabove 5% (warning 2%)" },
        { type: "mrkdwn", text: "*Window*\n15 minutes: 2026-11-27T10:00:00.000Z – 2026-11-27T10:15:00.000Z" },
      ],
    });
    expect(message.blocks[2]).toEqual({
      type: "actions",
      elements: [
        { type: "button", text: { type: "plain_text", text: "Open the monitor" }, url: links.monitor },
        { type: "button", text: { type: "plain_text", text: "See the sessions" }, url: links.sessions },
      ],
    });
  });
});

describe("notificationLinks", () => {
  it("filters the sessions by the monitor's filters and window, failed ones for failure metrics, test env kept", () => {
    expect(notificationLinks(base, "https://console.example.com/")).toEqual({
      monitor: "https://console.example.com/alerts?monitor=mon_01KB0J2A4C6E8G0J2L4N6Q8S0U",
      sessions: "https://console.example.com/sessions?agentName=checkout&status=failed&from=2026-11-27&to=2026-11-27",
    });
    const tool = notificationLinks(
      {
        ...base,
        environment: "test",
        monitor: { ...base.monitor, metric: "tool_failure_rate", filters: { agent: "a&b", tool: "search#1" } },
        windowStart: "2026-11-20T10:00:00.000Z",
      },
      "http://127.0.0.1:3000",
    );
    expect(tool).toEqual({
      monitor: "http://127.0.0.1:3000/alerts?monitor=mon_01KB0J2A4C6E8G0J2L4N6Q8S0U&env=test",
      sessions:
        "http://127.0.0.1:3000/sessions?agentName=a%26b&toolName=search%231&from=2026-11-20&to=2026-11-27&env=test",
    });
  });
});
