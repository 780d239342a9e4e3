/**
 * One attempt to deliver a notification to a destination, by its kind: a signed webhook POST, a Slack message, or
 * an EventBridge event. A webhook or Slack URL is checked again here (destination-url-policy.ts) and the connection
 * made to the checked address. Never throws: the outcome says what happened.
 */
import type { AlertNotification } from "../../domain/alert-notification.js";
import { publishAlertEvent } from "./alert-event-publisher.js";
import type { DeliveryOutcome } from "./delivery-job.js";
import { resolveDeliveryTarget, urlPolicy } from "./destination-url-policy.js";
import { notificationLinks } from "./notification-links.js";
import { postPinned } from "./pinned-post.js";
import { deliveryTimeoutMs } from "./retry-schedule.js";
import { slackMessage } from "./slack-message.js";
import { NOTIFICATION_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from "./webhook-signature.js";

/** What sending needs of a destination. */
export interface SendableDestination {
  readonly kind: "webhook" | "slack" | "eventbridge";
  readonly url: string | null;
  readonly signingSecret?: string | undefined;
}

/** The webhook's JSON body: the notification and its console links. */
export function webhookBody(notification: AlertNotification): string {
  return JSON.stringify({ ...notification, links: notificationLinks(notification) });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<DeliveryOutcome> {
  const target = await resolveDeliveryTarget(url, urlPolicy());
  const answer = await postPinned(target, body, headers, deliveryTimeoutMs());
  if (answer.status >= 200 && answer.status < 300) return { delivered: true, status: answer.status };
  const excerpt = answer.body.replace(/\s+/g, " ").trim().slice(0, 200);
  return {
    delivered: false,
    status: answer.status,
    error: `HTTP ${answer.status}${excerpt === "" ? "" : `: ${excerpt}`}`,
  };
}

export async function sendNotification(
  destination: SendableDestination,
  notification: AlertNotification,
  nowMs = Date.now(),
): Promise<DeliveryOutcome> {
  try {
    if (destination.kind === "eventbridge") {
      await publishAlertEvent(notification, notificationLinks(notification));
      return { delivered: true };
    }
    if (destination.url === null) return { delivered: false, error: "The destination has no URL" };
    if (destination.kind === "slack") {
      return await post(
        destination.url,
        JSON.stringify(slackMessage(notification, notificationLinks(notification))),
        {},
      );
    }
    if (destination.signingSecret === undefined)
      return { delivered: false, error: "The webhook has no signing secret" };
    const body = webhookBody(notification);
    return await post(destination.url, body, {
      [SIGNATURE_HEADER]: signatureHeader(destination.signingSecret, body, Math.floor(nowMs / 1000)),
      [NOTIFICATION_ID_HEADER]: notification.notificationId,
    });
  } catch (error) {
    return { delivered: false, error: messageOf(error) };
  }
}
