/**
 * A tiny local receiver for alert webhooks (`npm run alerts:receiver`): it verifies each request's `ats-signature`
 * with the destination's secret and prints the notification. Standalone on purpose (Node's standard library only),
 * so it can be copied out of docs/alert-destinations.md, which prints it.
 *
 *   ATS_WEBHOOK_SECRET=whsec_… npm run alerts:receiver            # listens on http://127.0.0.1:8787/
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

/** Whether `header` (`t=<unix seconds>,v1=<hex>`) signs `rawBody` with `secret`, at most 5 minutes from now. */
export function verifyAtsSignature(header: string, rawBody: string, secret: string, now = Date.now() / 1000): boolean {
  const pairs = header.split(",").map((part) => part.trim().split("=", 2));
  const t = Number(pairs.find(([name]) => name === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(now - t) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest();
  return pairs.some(([name, value = ""]) => {
    if (name !== "v1" || !/^[0-9a-f]{64}$/.test(value)) return false;
    return timingSafeEqual(Buffer.from(value, "hex"), expected);
  });
}

if (process.argv[1]?.endsWith("alert-receiver.ts")) {
  const secret = process.env.ATS_WEBHOOK_SECRET ?? "";
  const port = Number(process.env.PORT ?? 8787);
  const seen = new Set<string>();
  createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (!verifyAtsSignature(String(request.headers["ats-signature"] ?? ""), body, secret)) {
        console.log(`refused: bad or old signature (${request.method} ${request.url})`);
        return response.writeHead(401).end();
      }
      const notification = JSON.parse(body);
      const repeat = seen.has(notification.notificationId) ? " (a retry: already seen)" : "";
      seen.add(notification.notificationId);
      console.log(
        `${notification.type}: ${notification.monitor.name} ${notification.previousState} → ${notification.state}, figure ${notification.figure} (threshold ${notification.threshold})${repeat}`,
      );
      console.log(`  ${notification.links.sessions}`);
      response.writeHead(204).end();
    });
  }).listen(port, "127.0.0.1", () => console.log(`alert receiver on http://127.0.0.1:${port}/`));
}
