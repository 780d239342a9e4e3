/**
 * Which URLs a webhook or Slack destination may name, and where a delivery may connect (docs/alert-destinations.md
 * "SSRF rules"). The rule is a setting, never a guess from the URL:
 * - `public` (the default, and AWS): `https:` only, and every address the host resolves to must be public
 *   (address-classification.ts);
 * - `loopback` (`ALERT_DESTINATIONS_ALLOW_LOOPBACK=true`, set by `npm start` and the tests): besides those, `http:`
 *   or `https:` to a host that resolves to loopback addresses only (127.0.0.1, ::1), so a local receiver can see a
 *   webhook arrive.
 * The URL is checked when a destination is created or changed, and again at every delivery: the host is resolved,
 * every address checked, and the connection made to the checked address ({@link resolveDeliveryTarget}), so a DNS
 * answer that changes between the check and the connection (rebinding) cannot reach an internal address.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { DESTINATION_LIMITS } from "../../domain/alert-destination.js";
import { isLoopbackAddress, isPublicAddress } from "./address-classification.js";

export type UrlPolicy = "public" | "loopback";

/** The policy of this process, from `ALERT_DESTINATIONS_ALLOW_LOOPBACK` (read on each use: cheap, and tests set it). */
export function urlPolicy(): UrlPolicy {
  return process.env.ALERT_DESTINATIONS_ALLOW_LOOPBACK === "true" ? "loopback" : "public";
}

/** A URL refused by the policy; `message` says why in words a user can act on. */
export class DestinationUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationUrlError";
  }
}

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/** The syntactic rules (no DNS): a parsable absolute URL, the scheme, no credentials. Returns the parsed URL. */
export function parseDestinationUrl(text: string, policy: UrlPolicy): URL {
  if (text.length > DESTINATION_LIMITS.urlLength) {
    throw new DestinationUrlError(`Must be at most ${DESTINATION_LIMITS.urlLength} characters`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationUrlError("Must be an absolute URL");
  }
  if (url.username !== "" || url.password !== "")
    throw new DestinationUrlError("Must not carry a user name or password");
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && policy === "loopback") return url;
  throw new DestinationUrlError(
    policy === "loopback" ? "Must be an https:// URL, or http:// to a loopback host" : "Must be an https:// URL",
  );
}

/** Where one delivery connects: the URL and the checked address its host resolved to. */
export interface DeliveryTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

function allowedAddress(address: string, url: URL, policy: UrlPolicy): boolean {
  if (policy === "loopback" && isLoopbackAddress(address)) return true;
  return url.protocol === "https:" && isPublicAddress(address);
}

/**
 * Resolves the URL's host and checks every address it resolves to (an answer mixing a public and a private address
 * is refused as a whole); returns the first, which the delivery connects to. Throws DestinationUrlError.
 */
export async function resolveDeliveryTarget(text: string, policy: UrlPolicy): Promise<DeliveryTarget> {
  const url = parseDestinationUrl(text, policy);
  const host = hostOf(url);
  const literal = isIP(host);
  let answers: { address: string; family: number }[];
  if (literal !== 0) {
    answers = [{ address: host, family: literal }];
  } else {
    try {
      answers = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new DestinationUrlError(`The host ${host} does not resolve`);
    }
  }
  const first = answers[0];
  if (first === undefined) throw new DestinationUrlError(`The host ${host} does not resolve`);
  const refused = answers.find((answer) => !allowedAddress(answer.address, url, policy));
  if (refused !== undefined) {
    throw new DestinationUrlError(
      `The host ${host} resolves to ${refused.address}, which is not a public address${url.protocol === "http:" ? " (http:// is allowed to loopback hosts only)" : ""}`,
    );
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
