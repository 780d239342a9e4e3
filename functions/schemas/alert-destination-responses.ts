/** Response schemas of the alert destination routes (issue 34), field for field as the handlers build them. */
import * as z from "zod";
import { DESTINATION_KINDS, DESTINATION_LIMITS } from "../domain/alert-destination.js";
import { ID_PREFIXES } from "../domain/ids.js";

const timestamp = z.iso.datetime({ precision: 3 });
const secret = z
  .string()
  .regex(/^whsec_[\w-]{43}$/)
  .describe("The webhook's signing secret (`whsec_` + 32 random bytes, base64url): shown this once, never again");

/** A destination (never its secret). */
export const alertDestinationResponse = z.strictObject({
  id: z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES.alertDestination}_[0-9A-HJKMNP-TV-Z]{26}$`))
    .describe("`dst_` + a ULID"),
  name: z.string().min(1).max(DESTINATION_LIMITS.nameLength),
  kind: z.enum(DESTINATION_KINDS),
  url: z.string().nullable().describe("The webhook's or Slack's URL; null for eventbridge"),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe(
      `Why delivery turned it off (${DESTINATION_LIMITS.failuresBeforeDisabling} failures in a row); null while enabled`,
    ),
  consecutiveFailures: z
    .int()
    .nonnegative()
    .describe("Failed deliveries in a row (each attempt counts; a success resets it)"),
  lastDeliveryAt: timestamp.nullable(),
  lastError: z.string().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** 201 of POST /api/alerts/destinations. */
export const createdAlertDestinationResponse = alertDestinationResponse.extend({ secret: secret.optional() });

/** 200 of GET /api/alerts/destinations. */
export const alertDestinationListResponse = z.strictObject({
  destinations: z.array(alertDestinationResponse).max(DESTINATION_LIMITS.perOrganisation).describe("Oldest first"),
});

/** 200 of POST …/rotate-secret. */
export const rotatedSecretResponse = z.strictObject({ secret });

/** 200 of POST …/test. */
export const destinationTestResponse = z.strictObject({
  delivered: z.boolean(),
  status: z.int().optional().describe("The receiver's HTTP status, when it answered"),
  error: z.string().optional().describe("Why it was not delivered"),
});
