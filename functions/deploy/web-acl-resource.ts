/**
 * CloudFormation custom resource (`Custom::EdgeWebAcl`) that keeps the AWS WAF
 * web ACL of edge protection: created, updated and deleted with the stack.
 * CloudFront web ACLs exist only in us-east-1 (the `Region` property), while
 * the stack may be in any region, so the function calls WAF there instead of
 * CloudFormation declaring the web ACL itself.
 *
 * Properties: `Name` (the web ACL's name), `Region`, `Definition` (its JSON,
 * see web-acl-definition.ts). Physical id and attribute `Arn`: the web ACL's
 * ARN, which the distribution names as its web ACL; attributes `Id`, `Name`.
 *
 * The WAF client is the Lambda runtime's (not bundled): this function runs
 * only during deployments.
 */
import {
  CreateWebACLCommand,
  DeleteWebACLCommand,
  GetWebACLCommand,
  ListWebACLsCommand,
  UpdateWebACLCommand,
  WAFV2Client,
} from "@aws-sdk/client-wafv2";
import type { CloudFormationCustomResourceEvent, Context } from "aws-lambda";
import { type CustomResourceOutcome, failureReason, outcomeFor, sendOutcome } from "./custom-resource-response.js";
import { toWebAclInput } from "./web-acl-definition.js";
import { applyWebAclPlan, type RetryClock, type WebAclApi } from "./web-acl-manager.js";
import { planWebAclRequest, type WebAclRef, webAclProperties } from "./web-acl-plan.js";

/** A CloudFront web ACL's scope in the WAF API. */
const SCOPE = "CLOUDFRONT";
/** Time kept back from the function's timeout to answer CloudFormation. */
const ANSWER_MARGIN_MS = 30_000;
/** Longest wait between two attempts to delete a web ACL the distribution still holds. */
const MAX_PAUSE_MS = 30_000;
/** Physical id of a web ACL that could not be created (a later Delete then has nothing to do). */
const NOT_CREATED = "web-acl-not-created";

function refOf(summary: { Name?: string | undefined; Id?: string | undefined; ARN?: string | undefined }): WebAclRef {
  if (summary.Name === undefined || summary.Id === undefined || summary.ARN === undefined) {
    throw new Error("WAF answered without the web ACL's name, id or ARN");
  }
  return { name: summary.Name, id: summary.Id, arn: summary.ARN };
}

/** {@link WebAclApi} over the WAF client. */
function wafApi(client: WAFV2Client): WebAclApi {
  return {
    async create(name, definition) {
      const created = await client.send(
        new CreateWebACLCommand({ Name: name, Scope: SCOPE, ...toWebAclInput(definition) }),
      );
      return refOf(created.Summary ?? {});
    },
    async find(name) {
      let marker: string | undefined;
      do {
        const page = await client.send(new ListWebACLsCommand({ Scope: SCOPE, Limit: 100, NextMarker: marker }));
        const found = page.WebACLs?.find((summary) => summary.Name === name);
        if (found !== undefined) return refOf(found);
        marker = page.NextMarker;
      } while (marker !== undefined && marker !== "");
      return undefined;
    },
    async lockToken(target) {
      const current = await client.send(new GetWebACLCommand({ Name: target.name, Id: target.id, Scope: SCOPE }));
      if (current.LockToken === undefined) throw new Error("WAF answered without a lock token");
      return current.LockToken;
    },
    async update(target, definition, lockToken) {
      await client.send(
        new UpdateWebACLCommand({
          Name: target.name,
          Id: target.id,
          Scope: SCOPE,
          LockToken: lockToken,
          ...toWebAclInput(definition),
        }),
      );
    },
    async delete(target, lockToken) {
      await client.send(
        new DeleteWebACLCommand({ Name: target.name, Id: target.id, Scope: SCOPE, LockToken: lockToken }),
      );
    },
  };
}

/** Retries until the function is about to time out, waiting 5 s, 10 s, 20 s, then 30 s between attempts. */
function lambdaClock(context: Pick<Context, "getRemainingTimeInMillis">): RetryClock {
  return {
    timeLeft: () => context.getRemainingTimeInMillis() > ANSWER_MARGIN_MS + MAX_PAUSE_MS,
    pause: (attempt) =>
      new Promise((resolve) => setTimeout(resolve, Math.min(MAX_PAUSE_MS, 5000 * 2 ** (attempt - 1)))),
  };
}

async function apply(event: CloudFormationCustomResourceEvent, context: Context): Promise<WebAclRef | undefined> {
  const plan = planWebAclRequest(event);
  if (plan.kind === "nothing") return undefined;
  // A delete needs no definition, and must work whatever the properties hold.
  const properties = plan.kind === "delete" ? undefined : webAclProperties(event.ResourceProperties);
  const region =
    properties?.region ??
    (typeof event.ResourceProperties.Region === "string" ? event.ResourceProperties.Region : undefined);
  const client = new WAFV2Client(region === undefined ? {} : { region });
  return applyWebAclPlan(wafApi(client), plan, properties?.definition, lambdaClock(context));
}

export async function handler(
  event: CloudFormationCustomResourceEvent,
  context: Context,
): Promise<CustomResourceOutcome> {
  const previousId = event.RequestType === "Create" ? NOT_CREATED : event.PhysicalResourceId;
  let outcome: CustomResourceOutcome;
  try {
    const webAcl = await apply(event, context);
    outcome =
      webAcl === undefined
        ? { Status: "SUCCESS", ...outcomeFor(event, previousId) }
        : {
            Status: "SUCCESS",
            ...outcomeFor(event, webAcl.arn),
            Data: { Arn: webAcl.arn, Id: webAcl.id, Name: webAcl.name },
          };
  } catch (error) {
    outcome = { Status: "FAILED", Reason: failureReason(error), ...outcomeFor(event, previousId) };
  }
  await sendOutcome(event, outcome);
  return outcome;
}
