import { App, Stack, Validations } from "aws-cdk-lib";
import { HttpApi, HttpStage } from "aws-cdk-lib/aws-apigatewayv2";
import { Mfa, UserPool } from "aws-cdk-lib/aws-cognito";
import { describe, expect, it } from "vitest";
import { acknowledgementsIn, awsSolutionsFindings } from "./nag-findings.js";

/**
 * Negative controls for the helper the stack test relies on: it must report
 * errors and warnings, and honour acknowledgements. Small stacks, no bundling.
 */
describe("awsSolutionsFindings", () => {
  it("reports an error (APIG1) for an HTTP API stage without access logs", () => {
    // Prepare
    const stack = new Stack(new App(), "Probe");
    const api = new HttpApi(stack, "Api", { createDefaultStage: false });
    new HttpStage(stack, "Stage", { httpApi: api, autoDeploy: true });

    // Act
    const { errors } = awsSolutionsFindings(stack);

    // Assess
    expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-APIG1 at Probe\/Stage\/Resource: /));
  });

  it("reports a warning (COG2) for a user pool whose MFA is optional", () => {
    // Prepare
    const stack = new Stack(new App(), "Probe");
    new UserPool(stack, "Pool", { mfa: Mfa.OPTIONAL, mfaSecondFactor: { otp: true, sms: false } });

    // Act
    const { warnings } = awsSolutionsFindings(stack);

    // Assess
    expect(warnings).toContainEqual(expect.stringMatching(/^AwsSolutions-COG2 at Probe\/Pool\/Resource: /));
  });

  it("leaves out acknowledged rules, and lists the acknowledgements with their reason", () => {
    // Prepare
    const stack = new Stack(new App(), "Probe");
    const pool = new UserPool(stack, "Pool", { mfa: Mfa.OPTIONAL, mfaSecondFactor: { otp: true, sms: false } });

    // Act
    Validations.of(pool).acknowledge({ id: "AwsSolutions-COG2", reason: "probe reason" });
    const { warnings } = awsSolutionsFindings(stack);

    // Assess
    expect(warnings.filter((line) => line.startsWith("AwsSolutions-COG2 "))).toEqual([]);
    expect(acknowledgementsIn(stack)).toEqual([
      { path: "Probe/Pool", id: "AwsSolutions-COG2", reason: "probe reason" },
    ]);
  });
});
