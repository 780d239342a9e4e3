/**
 * The web ACL of edge protection as JSON: what the stack writes into the
 * `Custom::EdgeWebAcl` resource's `Definition` property (built at synthesis by
 * lib/constructs/edge-rate-rules.ts) and what its function sends to AWS WAF.
 *
 * The shapes are AWS WAF's own (field names as in its API), narrowed to the
 * statements the service uses: rate-based rules scoped down by string matches
 * on the method and the path. The one difference is `SearchString`, text here
 * and bytes for the SDK: {@link toWebAclInput} converts. Passed as one JSON
 * string because CloudFormation hands custom resources every other property
 * value as a string.
 */
import type {
  CustomResponseBody,
  DefaultAction,
  Rule,
  Statement,
  TextTransformationType,
  VisibilityConfig,
} from "@aws-sdk/client-wafv2";

/** A string match on the request's method or (transformed) path. */
export interface ByteMatchDefinition {
  readonly ByteMatchStatement: {
    readonly SearchString: string;
    readonly FieldToMatch: { readonly Method: Record<string, never> } | { readonly UriPath: Record<string, never> };
    readonly PositionalConstraint: "EXACTLY" | "STARTS_WITH";
    readonly TextTransformations: readonly { readonly Priority: number; readonly Type: TextTransformationType }[];
  };
}

export interface AndDefinition {
  readonly AndStatement: { readonly Statements: readonly StatementDefinition[] };
}

export interface OrDefinition {
  readonly OrStatement: { readonly Statements: readonly StatementDefinition[] };
}

export type StatementDefinition = ByteMatchDefinition | AndDefinition | OrDefinition;

/** A rate-based rule: block a client address over `Limit` requests per evaluation window. */
export interface RateRuleDefinition {
  readonly Name: string;
  readonly Priority: number;
  readonly Action: {
    readonly Block: {
      readonly CustomResponse: {
        readonly ResponseCode: number;
        readonly CustomResponseBodyKey: string;
        readonly ResponseHeaders: readonly { readonly Name: string; readonly Value: string }[];
      };
    };
  };
  readonly Statement: {
    readonly RateBasedStatement: {
      readonly Limit: number;
      readonly EvaluationWindowSec: 60 | 120 | 300 | 600;
      readonly AggregateKeyType: "IP";
      readonly ScopeDownStatement?: StatementDefinition;
    };
  };
  readonly VisibilityConfig: VisibilityConfig;
}

export interface WebAclDefinition {
  readonly Description: string;
  readonly DefaultAction: { readonly Allow: Record<string, never> };
  readonly Rules: readonly RateRuleDefinition[];
  readonly VisibilityConfig: VisibilityConfig;
  readonly CustomResponseBodies: Readonly<Record<string, CustomResponseBody>>;
}

/** What CreateWebACL and UpdateWebACL take besides the name, scope, id and lock token. */
export interface WebAclInput {
  readonly Description: string;
  readonly DefaultAction: DefaultAction;
  readonly Rules: Rule[];
  readonly VisibilityConfig: VisibilityConfig;
  readonly CustomResponseBodies: Record<string, CustomResponseBody>;
}

/**
 * The `Definition` property (JSON text) as a definition.
 *
 * @throws Error naming what is missing when it is not JSON or not a web ACL
 * definition (the property is written by the stack, so this is a guard
 * against a template edited by hand, not a full schema check).
 */
export function parseWebAclDefinition(text: unknown): WebAclDefinition {
  if (typeof text !== "string") throw new Error("The Definition property must be the web ACL's JSON text");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error("The Definition property is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null) throw new Error("The Definition property is not a JSON object");
  for (const field of ["Description", "DefaultAction", "Rules", "VisibilityConfig", "CustomResponseBodies"]) {
    if (!(field in parsed)) throw new Error(`The Definition property has no ${field}`);
  }
  if (!Array.isArray((parsed as { Rules: unknown }).Rules)) throw new Error("The Definition's Rules is not a list");
  return parsed as WebAclDefinition;
}

const utf8 = new TextEncoder();

function toStatement(statement: StatementDefinition): Statement {
  if ("ByteMatchStatement" in statement) {
    const match = statement.ByteMatchStatement;
    return {
      ByteMatchStatement: {
        SearchString: utf8.encode(match.SearchString),
        FieldToMatch: "Method" in match.FieldToMatch ? { Method: {} } : { UriPath: {} },
        PositionalConstraint: match.PositionalConstraint,
        TextTransformations: match.TextTransformations.map((step) => ({ ...step })),
      },
    };
  }
  if ("AndStatement" in statement)
    return { AndStatement: { Statements: statement.AndStatement.Statements.map(toStatement) } };
  return { OrStatement: { Statements: statement.OrStatement.Statements.map(toStatement) } };
}

function toRule(rule: RateRuleDefinition): Rule {
  const rate = rule.Statement.RateBasedStatement;
  const response = rule.Action.Block.CustomResponse;
  return {
    Name: rule.Name,
    Priority: rule.Priority,
    Action: {
      Block: {
        CustomResponse: { ...response, ResponseHeaders: response.ResponseHeaders.map((header) => ({ ...header })) },
      },
    },
    Statement: {
      RateBasedStatement: {
        Limit: rate.Limit,
        EvaluationWindowSec: rate.EvaluationWindowSec,
        AggregateKeyType: rate.AggregateKeyType,
        ...(rate.ScopeDownStatement === undefined ? {} : { ScopeDownStatement: toStatement(rate.ScopeDownStatement) }),
      },
    },
    VisibilityConfig: { ...rule.VisibilityConfig },
  };
}

/** The SDK's input for a definition: the same fields, search strings as UTF-8 bytes. */
export function toWebAclInput(definition: WebAclDefinition): WebAclInput {
  return {
    Description: definition.Description,
    DefaultAction: { Allow: {} },
    Rules: definition.Rules.map(toRule),
    VisibilityConfig: { ...definition.VisibilityConfig },
    CustomResponseBodies: { ...definition.CustomResponseBodies },
  };
}
