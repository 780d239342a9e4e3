/**
 * The answers of edge protection's custom resources to CloudFormation
 * (functions/deploy/origin-secret-resource.ts, web-acl-resource.ts): what they
 * PUT to the presigned response URL, here a local HTTP server. The web ACL's
 * calls to WAF are covered by web-acl-manager.test.ts; here only the requests
 * that answer without reaching WAF.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CloudFormationCustomResourceEvent, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handler as originSecretHandler } from "../../functions/deploy/origin-secret-resource.js";
import { handler as webAclHandler } from "../../functions/deploy/web-acl-resource.js";

let server: Server;
let responseUrl: string;
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/response?signature=presigned`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function event(
  requestType: "Create" | "Update" | "Delete",
  resourceType: string,
  properties: Record<string, unknown> = {},
  physicalResourceId = "previous-id",
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: "arn:aws:lambda:eu-west-1:123456789012:function:setup",
    ResponseURL: responseUrl,
    StackId: "arn:aws:cloudformation:eu-west-1:123456789012:stack/AgentTracking/0a1b",
    RequestId: `request-${received.length}`,
    LogicalResourceId: "Resource",
    ResourceType: resourceType,
    ResourceProperties: { ServiceToken: "token", ...properties },
  };
  if (requestType === "Create") return { ...common, RequestType: "Create" };
  if (requestType === "Delete") return { ...common, RequestType: "Delete", PhysicalResourceId: physicalResourceId };
  return {
    ...common,
    RequestType: "Update",
    PhysicalResourceId: physicalResourceId,
    OldResourceProperties: common.ResourceProperties,
  };
}

const lambdaContext = { getRemainingTimeInMillis: () => 600_000 } as Context;

describe("Custom::OriginSecret", () => {
  it("answers a Create with a new secret, masked (NoEcho), under a physical id that does not carry it", async () => {
    const outcome = await originSecretHandler(event("Create", "Custom::OriginSecret"));

    expect(received.at(-1)).toEqual(outcome);
    expect(outcome).toMatchObject({ Status: "SUCCESS", NoEcho: true, RequestId: expect.any(String) });
    const secret = outcome.Data?.Secret ?? "";
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(outcome.PhysicalResourceId).toMatch(/^origin-secret-[0-9a-f-]{36}$/);
    expect(outcome.PhysicalResourceId).not.toContain(secret);
  });

  it("draws a new secret under a new physical id on Update (a replacement)", async () => {
    const first = await originSecretHandler(event("Create", "Custom::OriginSecret"));

    const updated = await originSecretHandler(event("Update", "Custom::OriginSecret", {}, first.PhysicalResourceId));

    expect(updated.Data?.Secret).not.toBe(first.Data?.Secret);
    expect(updated.PhysicalResourceId).not.toBe(first.PhysicalResourceId);
  });

  it("answers a Delete with success and nothing else", async () => {
    const outcome = await originSecretHandler(event("Delete", "Custom::OriginSecret", {}, "origin-secret-x"));

    expect(outcome).toMatchObject({ Status: "SUCCESS", PhysicalResourceId: "origin-secret-x" });
    expect(outcome).not.toHaveProperty("Data");
  });
});

describe("Custom::EdgeWebAcl", () => {
  it("fails a Create with malformed properties, saying why, under a physical id a later Delete ignores", async () => {
    const outcome = await webAclHandler(
      event("Create", "Custom::EdgeWebAcl", { Name: "bad name", Region: "us-east-1", Definition: "{}" }),
      lambdaContext,
    );

    expect(received.at(-1)).toEqual(outcome);
    expect(outcome).toMatchObject({ Status: "FAILED", PhysicalResourceId: "web-acl-not-created" });
    expect(outcome.Reason).toMatch(/^Error: The Name property must be/);
  });

  it("answers a Delete of a web ACL that was never created with success, calling no one", async () => {
    const outcome = await webAclHandler(
      event("Delete", "Custom::EdgeWebAcl", { Name: "x", Region: "us-east-1" }, "web-acl-not-created"),
      lambdaContext,
    );

    expect(outcome).toMatchObject({ Status: "SUCCESS", PhysicalResourceId: "web-acl-not-created" });
  });

  it("keeps the current physical id when an Update fails", async () => {
    const current = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/Stack-edge-1/id-1";

    const outcome = await webAclHandler(
      event(
        "Update",
        "Custom::EdgeWebAcl",
        { Name: "Stack-edge-1", Region: "us-east-1", Definition: "not json" },
        current,
      ),
      lambdaContext,
    );

    expect(outcome).toMatchObject({
      Status: "FAILED",
      PhysicalResourceId: current,
      Reason: "Error: The Definition property is not JSON",
    });
  });
});
