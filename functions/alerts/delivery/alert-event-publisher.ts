/**
 * EventBridge destinations: an `ats.monitor` event (source `ats.monitor`, detail-type the notification's type,
 * detail the notification with its links) on the stack's bus, `SESSION_EVENTS_BUS`, beside the session
 * notifications (functions/stream/session-notifications.ts). Locally (no bus) the event is appended as one JSON line
 * to `SESSION_EVENTS_FILE`, the file the session notifications go to.
 */
import { appendFile } from "node:fs/promises";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import type { AlertNotification } from "../../domain/alert-notification.js";
import type { NotificationLinks } from "./notification-links.js";

export const ALERT_EVENT_SOURCE = "ats.monitor";

let eventBridge: EventBridgeClient | undefined;

export async function publishAlertEvent(notification: AlertNotification, links: NotificationLinks): Promise<void> {
  const detail = { ...notification, links };
  const bus = process.env.SESSION_EVENTS_BUS;
  if (bus !== undefined && bus !== "") {
    eventBridge ??= new EventBridgeClient({});
    const result = await eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: bus,
            Source: ALERT_EVENT_SOURCE,
            DetailType: notification.type,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );
    if ((result.FailedEntryCount ?? 0) > 0) {
      throw new Error(`EventBridge refused the event: ${result.Entries?.[0]?.ErrorCode ?? "unknown error"}`);
    }
    return;
  }
  const file = process.env.SESSION_EVENTS_FILE;
  if (file === undefined || file === "")
    throw new Error("No event bus (SESSION_EVENTS_BUS) and no SESSION_EVENTS_FILE");
  await appendFile(
    file,
    `${JSON.stringify({ source: ALERT_EVENT_SOURCE, "detail-type": notification.type, detail })}\n`,
    "utf8",
  );
}
