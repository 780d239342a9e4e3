/**
 * The OpenAPI 3.1 document of the service, generated, never written by hand:
 *
 * - paths, methods and authentication from the route table (`route-table.ts`);
 * - parameters, bodies and success responses from each route's contract (`schemas/route-contracts.ts`):
 *   the very zod schemas the handlers validate with (`z.toJSONSchema`, input side; what a refinement checks
 *   the schema says itself, `jsonSchemaOf` in `schemas/fields.ts`), the response schemas (output side, named
 *   in `responseComponents`) and the OTLP bodies (named in `protocolComponents`);
 * - errors from the middleware chain's rules and the contract (`openapi-errors.ts`);
 * - words and examples from `openapi-prose.ts` and `openapi-examples.ts`, the only hand-written parts.
 *
 * The document is built on first use and memoised: importing this module does no work. `npm run openapi`
 * writes it to `docs/openapi.json`.
 */
import * as z from "zod";
import packageJson from "../../package.json" with { type: "json" };
import { LIMITS } from "../domain/limits.js";
import { type HttpMethod, type RouteEntry, type RouteId, routeTable } from "../route-table.js";
import { protocolComponents } from "../schemas/otlp-schemas.js";
import { responseComponents } from "../schemas/response-schemas.js";
import { contractOf, PATH_PARAMETERS, type RoutesWith } from "../schemas/route-contracts.js";
import { errorCases, isRateLimited, takesIdempotencyKey } from "./openapi-errors.js";
import { invalidInputs, requestExamples, responseExamples } from "./openapi-examples.js";
import { OPERATION_PROSE, PATH_PARAMETER_PROSE, type ParameterDoc, TAGS } from "./openapi-prose.js";

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/** The parts of an OpenAPI 3.1 document this generator writes. */
export interface OpenApiDocument {
  readonly openapi: "3.1.0";
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, Readonly<Partial<Record<Lowercase<HttpMethod>, Operation>>>>>;
  readonly components: {
    readonly securitySchemes: Record<string, Record<string, string>>;
    readonly headers: Record<string, Record<string, unknown>>;
    readonly parameters: Record<string, Parameter>;
    readonly schemas: Record<string, JsonSchema>;
  };
}

export interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header";
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
  readonly example?: string;
}

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly security: readonly Record<string, readonly string[]>[];
  readonly "x-required-scope"?: string;
  readonly "x-required-role"?: string;
  readonly parameters?: readonly (Parameter | { readonly $ref: string })[];
  readonly requestBody?: Record<string, unknown>;
  readonly responses: Record<string, Record<string, unknown>>;
}

/**
 * What the document says a route takes and answers, as zod schemas: the tests check real requests and
 * responses against these, and send `invalidInput` to compare the real 400 with the documented one.
 */
export function documentedSchemas(routeId: RouteId): {
  readonly body: z.core.$ZodType | undefined;
  readonly query: z.core.$ZodType | undefined;
  readonly response: z.ZodType | undefined;
  readonly invalidInput: Readonly<Record<string, unknown>> | undefined;
} {
  const contract = contractOf(routeId);
  return {
    body: contract.body?.schema ?? contract.protocolBody?.schema,
    query: contract.query,
    response: contract.success.body,
    invalidInput: (invalidInputs as Partial<Record<RouteId, Readonly<Record<string, unknown>>>>)[routeId],
  };
}

/** The name of a request body in `components.schemas`: `<route id>Request`, or the protocol's own. */
export function requestBodyName(routeId: RouteId): string | undefined {
  const contract = contractOf(routeId);
  if (contract.body !== undefined) return `${routeId}Request`;
  if (contract.protocolBody !== undefined) return componentName(protocolComponents, contract.protocolBody.schema);
  return undefined;
}

/** The name of a route's success body in `components.schemas`. */
export function responseBodyName(routeId: RouteId): string | undefined {
  const body = contractOf(routeId).success.body;
  return body === undefined ? undefined : componentName(responseComponents, body);
}

function componentName(registry: z.core.$ZodRegistry<{ readonly id: string }>, schema: z.core.$ZodType): string {
  const id = registry.get(schema)?.id;
  if (id === undefined) throw new Error("A contract names a schema without a component name: add it to its registry");
  return id;
}

// ---------------------------------------------------------------------------------------------------------------
// Components.

const JSON_SCHEMA_OPTIONS = { target: "draft-2020-12", unrepresentable: "any" } as const;
const SCHEMA_URI = (id: string) => `#/components/schemas/${id}`;

/** Drops what a component must not carry: the dialect (`$schema`) and a fragment `$id`. */
function component(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** Converts a registry of named schemas to components that `$ref` each other. */
function components(
  registry: z.core.$ZodRegistry<{ readonly id: string }>,
  io: "input" | "output",
): Record<string, JsonSchema> {
  const generated = z.toJSONSchema(registry, { ...JSON_SCHEMA_OPTIONS, io, uri: SCHEMA_URI }).schemas;
  return Object.fromEntries(Object.entries(generated).map(([id, schema]) => [id, component(schema)]));
}

/** Checks JSON Schema cannot carry, common to every request body. */
const COMMON_RULES =
  `Strings must be well-formed Unicode (no lone surrogates); non-zero numbers must be at least ` +
  `${LIMITS.smallestNonZero} in magnitude; \`Content-Encoding: gzip\` is accepted.`;

function isUnconstrained(schema: JsonSchema | boolean | undefined): boolean {
  return schema === true || (typeof schema === "object" && Object.keys(schema).length === 0);
}

/** Adds words to the non-null branch of an optional field (`anyOf: [X, {type: "null"}]`), or to the field. */
function describeField(field: JsonSchema, description: string): JsonSchema {
  const branches = field.anyOf;
  if (branches?.length === 2 && branches[1]?.type === "null" && branches[0] !== undefined) {
    return { ...field, anyOf: [{ ...branches[0], description }, branches[1]] };
  }
  return { ...field, description };
}

/** A JSON request body: its schema's JSON Schema with the words of openapi-prose.ts. */
function requestComponent(routeId: RoutesWith<"body">, generated: JsonSchema): JsonSchema {
  const words = OPERATION_PROSE[routeId].body;
  const fieldWords: Partial<Record<string, string>> = words.fields ?? {};
  const maxBytes = contractOf(routeId).body?.maxBytes ?? LIMITS.bodyBytes;
  const properties: Record<string, JsonSchema> = {};
  for (const [field, schema] of Object.entries(generated.properties ?? {})) {
    if (typeof schema !== "object") throw new Error(`${routeId}Request.${field}: unexpected boolean schema`);
    if (isUnconstrained(schema) || (schema.anyOf ?? []).some(isUnconstrained)) {
      throw new Error(
        `${routeId}Request.${field} has no JSON Schema: declare it with jsonSchemaOf (schemas/fields.ts)`,
      );
    }
    const description = fieldWords[field];
    properties[field] = description === undefined ? schema : describeField(schema, description);
  }
  const description = `${words.description} ${COMMON_RULES} The body is at most ${maxBytes} bytes once decompressed.`;
  return { ...generated, description, properties };
}

function schemaComponents(): Record<string, JsonSchema> {
  const requests = z.registry<{ readonly id: string }>();
  const bodyRoutes = routeTable.map((route) => route.id).filter((id) => contractOf(id).body !== undefined);
  for (const id of bodyRoutes) {
    const schema = contractOf(id).body?.schema;
    if (schema !== undefined) requests.add(schema, { id: `${id}Request` });
  }
  const generated = components(requests, "input");
  const refined = Object.fromEntries(
    Object.entries(generated).map(([name, schema]) => [
      name,
      requestComponent(name.replace(/Request$/, "") as RoutesWith<"body">, schema),
    ]),
  );
  return { ...refined, ...components(protocolComponents, "input"), ...components(responseComponents, "output") };
}

// ---------------------------------------------------------------------------------------------------------------
// Operations.

const JSON_MEDIA_TYPE = "application/json";

function pathParameters(route: RouteEntry): Parameter[] {
  const kinds: Readonly<Record<string, keyof typeof PATH_PARAMETERS>> = contractOf(route.id as RouteId).path ?? {};
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
  return names.map((name) => {
    const kind = kinds[name];
    if (kind === undefined) throw new Error(`${route.id}: the contract gives no kind for the path parameter ${name}`);
    const { errors: _errors, ...words } = PATH_PARAMETER_PROSE[kind];
    const schema = z.toJSONSchema(PATH_PARAMETERS[kind].schema, JSON_SCHEMA_OPTIONS);
    return { name, in: "path", required: true, ...words, schema: component(schema) };
  });
}

function queryParameters(routeId: RouteId): Parameter[] {
  const query = contractOf(routeId).query;
  if (query === undefined) return [];
  const words: Readonly<Record<string, ParameterDoc>> =
    OPERATION_PROSE[routeId as RoutesWith<"query">].query.parameters;
  const generated = z.toJSONSchema(query, { ...JSON_SCHEMA_OPTIONS, io: "input" });
  const required = new Set(generated.required ?? []);
  return Object.entries(generated.properties ?? {}).map(([name, schema]) => {
    const doc = words[name];
    if (doc === undefined) throw new Error(`${routeId}: describe the query parameter ${name}`);
    if (typeof schema !== "object") throw new Error(`${routeId}: query parameter ${name} has a boolean schema`);
    return { name, in: "query", required: required.has(name), ...doc, schema };
  });
}

function headerParameters(route: RouteEntry): { $ref: string }[] {
  const ref = (name: string) => ({ $ref: `#/components/parameters/${name}` });
  return [
    ...(route.auth.kind === "user" ? [ref("OrganizationId")] : []),
    ...(route.auth.kind === "user" && route.environmentHeader === true ? [ref("UserEnvironment")] : []),
    ...(route.auth.kind === "apiKeyOrUser" ? [ref("TenantOrganizationId"), ref("Environment")] : []),
    ...(takesIdempotencyKey(route) ? [ref("IdempotencyKey")] : []),
  ];
}

const HEADER_REFS = {
  401: { "WWW-Authenticate": { $ref: "#/components/headers/WWWAuthenticate" } },
  429: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
  503: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
} as const;

const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": { $ref: "#/components/headers/RateLimitLimit" },
  "RateLimit-Remaining": { $ref: "#/components/headers/RateLimitRemaining" },
  "RateLimit-Reset": { $ref: "#/components/headers/RateLimitReset" },
} as const;

function errorResponses(route: RouteEntry): Record<string, Record<string, unknown>> {
  const responses: Record<string, Record<string, unknown>> = {};
  for (const [status, cases] of errorCases(route)) {
    const [only] = cases;
    const examples =
      cases.length === 1 && only !== undefined
        ? { example: only.example }
        : { examples: Object.fromEntries(cases.map((c) => [c.name, { summary: c.reason, value: c.example }])) };
    const headers = {
      ...(HEADER_REFS as Partial<Record<number, Record<string, unknown>>>)[status],
      ...(status === 429 && isRateLimited(route) ? RATE_LIMIT_HEADERS : {}),
    };
    responses[String(status)] = {
      description: cases.map((c) => c.reason).join(" "),
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      content: { [JSON_MEDIA_TYPE]: { schema: { $ref: "#/components/schemas/Error" }, ...examples } },
    };
  }
  return responses;
}

function security(route: RouteEntry): Pick<Operation, "security" | "x-required-scope" | "x-required-role"> {
  switch (route.auth.kind) {
    case "apiKey":
      return {
        security: route.auth.basic === true ? [{ apiKey: [] }, { langfuseBasic: [] }] : [{ apiKey: [] }],
        "x-required-scope": route.auth.scope,
      };
    case "user":
      return { security: [{ userToken: [] }], "x-required-role": route.auth.role };
    case "apiKeyOrUser":
      return {
        security: [{ apiKey: [] }, { userToken: [] }],
        "x-required-scope": route.auth.scope,
        "x-required-role": route.auth.role,
      };
    case "signedIn":
      return { security: [{ userToken: [] }] };
    case "feedbackToken":
      return { security: [{ feedbackToken: [] }] };
    case "public":
      return { security: [] };
  }
}

function accessNote(route: RouteEntry): string {
  switch (route.auth.kind) {
    case "apiKey":
      return route.auth.basic === true
        ? `Requires an API key with the \`${route.auth.scope}\` scope, as a bearer token or as the password of Basic ` +
            "credentials (Langfuse's exporter; any user name)."
        : `Requires an API key with the \`${route.auth.scope}\` scope.`;
    case "user":
      return route.auth.role === "owner"
        ? "Requires a signed-in user who is an `owner` of the organisation."
        : `Requires a signed-in user whose role in the organisation is \`${route.auth.role}\` or above.`;
    case "apiKeyOrUser":
      return (
        `Requires an API key with the \`${route.auth.scope}\` scope, or (the console) a signed-in user's access ` +
        `token with \`X-Organization-Id\` (role \`${route.auth.role}\` or above) and \`X-Environment\`, acting ` +
        "as a key of that organisation and environment would."
      );
    case "signedIn":
      return "Requires a signed-in user's access token (no organisation).";
    case "feedbackToken":
      return "Requires a feedback token (`atsf_…`, POST /api/sdk/feedback-tokens); API keys are refused.";
    case "public":
      return "Public.";
  }
}

/** A message of a protocol's binary encoding (protobuf): the same message as its JSON schema, encoded. */
function binaryContent(mediaType: string, schemaName: string): Record<string, unknown> {
  return {
    [mediaType]: {
      schema: {
        description: `The message of \`${schemaName}\` in the protocol's binary encoding (${mediaType}).`,
        contentMediaType: mediaType,
      },
    },
  };
}

function requestBody(routeId: RouteId): Pick<Operation, "requestBody"> {
  const contract = contractOf(routeId);
  const name = requestBodyName(routeId);
  if (name === undefined) return {};
  const example = (requestExamples as Partial<Record<RouteId, unknown>>)[routeId];
  const json = { [JSON_MEDIA_TYPE]: { schema: { $ref: SCHEMA_URI(name) }, example } };
  const binary = contract.protocolBody === undefined ? {} : binaryContent(contract.protocolBody.binaryMediaType, name);
  return { requestBody: { required: contract.body?.optional !== true, content: { ...binary, ...json } } };
}

function successResponse(route: RouteEntry): Record<string, unknown> {
  const id = route.id as RouteId;
  const contract = contractOf(id);
  const words: { readonly success: string; readonly media?: Partial<Record<string, string>> } = OPERATION_PROSE[id];
  const name = responseBodyName(id);
  const example = (responseExamples as Partial<Record<RouteId, unknown>>)[id];
  if (name !== undefined && example === undefined) throw new Error(`${id}: give a response example`);
  const raw = Object.fromEntries(
    (contract.success.raw ?? []).map((media) => [
      media,
      { schema: { ...(media === "text/plain" ? { type: "string" } : {}), description: words.media?.[media] } },
    ]),
  );
  const json =
    name === undefined
      ? {}
      : {
          [JSON_MEDIA_TYPE]: { schema: { $ref: SCHEMA_URI(name) }, example },
          ...(contract.protocolBody === undefined ? {} : binaryContent(contract.protocolBody.binaryMediaType, name)),
        };
  const content = { ...raw, ...json };
  const headers = {
    ...(isRateLimited(route) ? RATE_LIMIT_HEADERS : {}),
    ...(takesIdempotencyKey(route)
      ? { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } }
      : {}),
  };
  return {
    description: words.success,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(Object.keys(content).length === 0 ? {} : { content }),
  };
}

function operation(route: RouteEntry): Operation {
  const id = route.id as RouteId;
  const words: { summary: string; description: string; tag: string; query?: { rules?: string } } = OPERATION_PROSE[id];
  const parameters = [...pathParameters(route), ...queryParameters(id), ...headerParameters(route)];
  return {
    operationId: route.id,
    summary: words.summary,
    description: [words.description, words.query?.rules, accessNote(route)].filter(Boolean).join(" "),
    tags: [words.tag],
    ...security(route),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...requestBody(id),
    responses: { [String(contractOf(id).success.status)]: successResponse(route), ...errorResponses(route) },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The document.

const SECURITY_SCHEMES = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "ats_live_… / ats_test_… API key",
    description:
      "An API key: `Authorization: Bearer ats_<environment>_<38 characters>`. Each key belongs to one " +
      "organisation and environment and holds scopes (`sessions:write`, `events:write`, `read`, `delete`).",
  },
  langfuseBasic: {
    type: "http",
    scheme: "basic",
    description:
      "Langfuse's exporter credentials, on the Langfuse trace path only: `Authorization: Basic " +
      "base64(<public key>:<API key>)`, an ats API key as the password; the user name is ignored.",
  },
  userToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A signed-in user's access token (a Cognito user-pool access token on AWS, the local issuer's locally). " +
      "Roles: `owner`, `admin`, `member`.",
  },
  feedbackToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "atsf_… feedback token",
    description:
      "An end user's feedback token, minted by your backend (POST /api/sdk/feedback-tokens) and sent by the browser: " +
      "`Authorization: Bearer atsf_…`. It allows one thing: a score on the session (and event) it is bound to, until it expires.",
  },
};

const HEADERS = {
  WWWAuthenticate: {
    description:
      'Sent with every 401: `Bearer`; on the Langfuse trace path, which also takes Basic credentials, `Bearer, Basic realm="ats", charset="UTF-8"`.',
    schema: { type: "string", enum: ["Bearer", 'Bearer, Basic realm="ats", charset="UTF-8"'] },
  },
  RetryAfter: {
    description: "Sent with every 429 and 503: seconds to wait before retrying.",
    schema: { type: "integer", minimum: 1 },
  },
  RateLimitLimit: {
    description: "On every answer to an authenticated request of the API-key routes: the requests allowed per minute.",
    schema: { type: "integer", minimum: 0 },
  },
  RateLimitRemaining: {
    description: "The requests left in the current minute.",
    schema: { type: "integer", minimum: 0 },
  },
  RateLimitReset: {
    description: "Seconds until the current minute's budget is renewed.",
    schema: { type: "integer", minimum: 0 },
  },
  IdempotentReplayed: {
    description:
      "`true` when the answer is the stored answer to an earlier request with the same `Idempotency-Key` " +
      "(nothing was written again).",
    schema: { type: "string", const: "true" },
  },
};

const HEADER_PARAMETERS: Record<string, Parameter> = {
  OrganizationId: {
    name: "X-Organization-Id",
    in: "header",
    required: false,
    description: "The organisation to act for; required (400 without it) when the user belongs to several.",
    schema: { type: "string", minLength: 1 },
    example: "acme",
  },
  TenantOrganizationId: {
    name: "X-Organization-Id",
    in: "header",
    required: false,
    description:
      "With an access token (required then, 400 without it): the organisation whose data to read; the user " +
      "must be a member of it (403). Ignored with an API key (the key names its organisation).",
    schema: { type: "string", minLength: 1 },
    example: "acme",
  },
  Environment: {
    name: "X-Environment",
    in: "header",
    required: false,
    description:
      "With an access token: the environment whose data to read, `live` (default) or `test` (anything else " +
      "is 400). Ignored with an API key (the key names its environment).",
    schema: { type: "string", enum: ["live", "test"], default: "live" },
    example: "live",
  },
  UserEnvironment: {
    name: "X-Environment",
    in: "header",
    required: false,
    description:
      "The environment whose monitors to read or change, `live` (default) or `test` (anything else is 400): " +
      "an organisation's environments have monitors of their own.",
    schema: { type: "string", enum: ["live", "test"], default: "live" },
    example: "live",
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "Makes a retry safe: the first request with a key is processed and its answer stored; a retry with the " +
      "same key and request within 24 hours gets that answer again (`Idempotent-Replayed: true`) and writes " +
      "nothing; the same key with another request is 422, and while the first is still processed 409. Keys " +
      "are scoped to the organisation and environment.",
    schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
    example: "4f7d2c1e-8a9b-4c3d-9e2f-1a2b3c4d5e6f",
  },
};

function buildDocument(): OpenApiDocument {
  const paths: Record<string, Partial<Record<Lowercase<HttpMethod>, Operation>>> = {};
  for (const route of routeTable) {
    const methods = paths[route.path] ?? {};
    methods[route.method.toLowerCase() as Lowercase<HttpMethod>] = operation(route);
    paths[route.path] = methods;
  }
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: {
      title: "Agent Tracking Service",
      version: packageJson.version,
      description:
        "Record what software agents do (runs, tool calls, decisions, costs, tokens) over a small JSON HTTP API, " +
        "and read it back. SDK routes take an API key, key- and member-management routes a signed-in user's access " +
        "token, and the read routes either (the console reads with a user's token). " +
        "Every error is JSON `{ error, message }`, and a 400 adds `issues` naming every bad field. Generated from " +
        "the route table, the route contracts and the zod schemas the handlers validate with.",
    },
    servers: [{ url: "/", description: "The API itself (the `ApiUrl` stack output; http://127.0.0.1:3000 locally)" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      headers: HEADERS,
      parameters: HEADER_PARAMETERS,
      schemas: schemaComponents(),
    },
  };
  // Plain, frozen JSON from here on: what `JSON.stringify` writes is exactly what callers compare, and the
  // memoised document cannot be changed by one of them (copy it first: `structuredClone`).
  return deepFreeze(JSON.parse(JSON.stringify(document)) as OpenApiDocument);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

let memoised: OpenApiDocument | undefined;

/** The OpenAPI 3.1 document of this API, built on first call and memoised. */
export function openApiDocument(): OpenApiDocument {
  memoised ??= buildDocument();
  return memoised;
}
