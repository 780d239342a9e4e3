/**
 * The webhook signature: what the service signs verifies with the service's own check, with the receiver script's
 * function, and with the Node and Python snippets of docs/alert-destinations.md (each run as printed); a changed body,
 * another secret, an old or future timestamp, a malformed header are all refused by each.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  newSigningSecret,
  signatureHeader,
  verifyWebhookSignature,
} from "../../functions/alerts/delivery/webhook-signature.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { verifyAtsSignature } from "../../scripts/alert-receiver.js";

type Verifier = (header: string, body: string, secret: string, now: number) => boolean | Promise<boolean>;

const docs = readFileSync(join(REPOSITORY_ROOT, "docs/alert-destinations.md"), "utf8");

function snippet(language: "js" | "python"): string {
  const fence = "`".repeat(3);
  const match = new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`).exec(docs);
  if (match?.[1] === undefined) throw new Error(`no ${language} snippet in docs/alert-destinations.md`);
  return match[1];
}

async function docsNodeVerifier(): Promise<Verifier> {
  const file = join(mkdtempSync(join(tmpdir(), "ats-signature-")), "verify.mjs");
  writeFileSync(file, snippet("js"));
  const module = (await import(file)) as { verifyAtsSignature: Verifier };
  return module.verifyAtsSignature;
}

/** The Python snippet, run once over all cases (one interpreter start). */
function docsPythonResults(cases: readonly Case[]): boolean[] {
  const program = `${snippet("python")}
import json, sys
cases = json.load(sys.stdin)
print(json.dumps([verify_ats_signature(c["header"], c["body"].encode(), c["secret"], c["now"]) for c in cases]))
`;
  const output = execFileSync("python3", ["-c", program], { input: JSON.stringify(cases), encoding: "utf8" });
  return JSON.parse(output) as boolean[];
}

interface Case {
  readonly name: string;
  readonly header: string;
  readonly body: string;
  readonly secret: string;
  readonly now: number;
  readonly valid: boolean;
}

const secret = newSigningSecret();
const body = JSON.stringify({ notificationId: "ntf_01KB0M3Q7R9T1V3X5Z7B9D1F3H", figure: 12.5, name: "Kasse ✓ – 日本" });
const t = 1_796_000_000;
const header = signatureHeader(secret, body, t);

const cases: readonly Case[] = [
  { name: "as signed", header, body, secret, now: t, valid: true },
  { name: "4 min 59 s later", header, body, secret, now: t + 299, valid: true },
  { name: "with a second, unknown v1", header: `${header},v1=${"0".repeat(64)}`, body, secret, now: t, valid: true },
  { name: "5 min 1 s later (a replay)", header, body, secret, now: t + 301, valid: false },
  { name: "from 6 min in the future", header, body, secret, now: t - 360, valid: false },
  { name: "a changed body", header, body: body.replace("12.5", "1.5"), secret, now: t, valid: false },
  { name: "a trailing space", header, body: `${body} `, secret, now: t, valid: false },
  { name: "another secret", header, body, secret: newSigningSecret(), now: t, valid: false },
  { name: "another timestamp", header: header.replace(`t=${t}`, `t=${t + 1}`), body, secret, now: t, valid: false },
  { name: "no v1", header: `t=${t}`, body, secret, now: t, valid: false },
  { name: "no t", header: header.replace(`t=${t},`, ""), body, secret, now: t, valid: false },
  { name: "an empty header", header: "", body, secret, now: t, valid: false },
  { name: "a short v1", header: `t=${t},v1=abc`, body, secret, now: t, valid: false },
];

describe("the webhook signature", () => {
  it("has the contract's shape: t=<unix seconds>,v1=<64 hex>", () => {
    expect(header).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
  });

  it.each(cases)("the service's check: $name → $valid", ({ header: h, body: b, secret: s, now, valid }) => {
    expect(verifyWebhookSignature(h, b, s, now)).toBe(valid);
  });

  it.each(cases)("the local receiver's check: $name → $valid", ({ header: h, body: b, secret: s, now, valid }) => {
    expect(verifyAtsSignature(h, b, s, now)).toBe(valid);
  });

  it("the docs' Node snippet, as printed, agrees on every case", async () => {
    const verify = await docsNodeVerifier();
    const results = await Promise.all(cases.map((c) => verify(c.header, c.body, c.secret, c.now)));
    expect(results).toEqual(cases.map((c) => c.valid));
  });

  it("the docs' Python snippet, as printed, agrees on every case", () => {
    expect(docsPythonResults(cases)).toEqual(cases.map((c) => c.valid));
  });
});
