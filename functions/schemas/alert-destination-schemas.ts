/** Request schemas of the alert destination routes (`/api/alerts/destinations…`, issue 34). */
import * as z from "zod/mini";
import { DestinationUrlError, parseDestinationUrl, urlPolicy } from "../alerts/delivery/destination-url-policy.js";
import { DESTINATION_KINDS, DESTINATION_LIMITS, kindHasUrl } from "../domain/alert-destination.js";
import { boolean, enumeration, optional, strictObject, text } from "./fields.js";

/** A webhook or Slack URL: the policy's syntactic rules here (the host's addresses are checked by the handler). */
function destinationUrl() {
  return text(DESTINATION_LIMITS.urlLength).check(
    z.superRefine((value, context) => {
      try {
        parseDestinationUrl(value, urlPolicy());
      } catch (error) {
        if (!(error instanceof DestinationUrlError)) throw error;
        context.addIssue({ code: "custom", message: error.message, input: value });
      }
    }),
  );
}

/** POST /api/alerts/destinations: a webhook or Slack URL with its name, or the stack's EventBridge bus. */
export const createDestinationBody = strictObject({
  name: text(DESTINATION_LIMITS.nameLength),
  kind: enumeration(DESTINATION_KINDS),
  url: optional(destinationUrl()),
}).check(
  z.superRefine((body, context) => {
    if (kindHasUrl(body.kind) && body.url === undefined) {
      context.addIssue({ code: "custom", path: ["url"], message: `Required for a ${body.kind} destination` });
    }
    if (!kindHasUrl(body.kind) && body.url !== undefined) {
      context.addIssue({ code: "custom", path: ["url"], message: "An eventbridge destination has no URL" });
    }
  }),
);
export type CreateDestinationBody = z.output<typeof createDestinationBody>;

/** PUT /api/alerts/destinations/{destinationId}: the whole changeable definition (the kind stays). */
export const updateDestinationBody = strictObject({
  name: text(DESTINATION_LIMITS.nameLength),
  url: optional(destinationUrl()),
  enabled: boolean(),
});
export type UpdateDestinationBody = z.output<typeof updateDestinationBody>;
