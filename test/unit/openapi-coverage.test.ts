/**
 * The OpenAPI document leaves nothing out: for every route of the route table, its operation with its
 * method, path parameters, every key of its query schema, every field of its body schema, its success
 * response and its security; and every field (nested ones too) of every response schema and request
 * body. Read from the route table, the contracts and the zod schemas themselves, not from the generator.
 */
import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { type JsonSchema, type Operation, openApiDocument } from "../../functions/openapi/openapi-document.js";
import { type RouteEntry, type RouteId, routeTable } from "../../functions/route-table.js";
import { protocolComponents } from "../../functions/schemas/otlp-schemas.js";
import { responseComponents } from "../../functions/schemas/response-schemas.js";
import { contractOf } from "../../functions/schemas/route-contracts.js";

const document = openApiDocument();
const routes: readonly RouteEntry[] = routeTable;

function operationOf(route: RouteEntry): Operation | undefined {
  return document.paths[route.path]?.[route.method.toLowerCase() as Lowercase<RouteEntry["method"]>];
}

/** The component a `$ref` names, or the schema itself. */
function resolved(schema: JsonSchema | undefined): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (ref === undefined) return schema;
  const name = ref.replace("#/components/schemas/", "");
  return resolved(document.components.schemas[name]);
}

/** The non-null branch of `anyOf: [X, {type: "null"}]` (an optional or nullable field), or the schema. */
function nonNull(schema: JsonSchema | undefined): JsonSchema | undefined {
  const branches = resolved(schema)?.anyOf?.filter(
    (branch): branch is JsonSchema => typeof branch === "object" && branch.type !== "null",
  );
  return branches?.length === 1 ? resolved(branches[0]) : resolved(schema);
}

type ZodDef = {
  readonly type: string;
  readonly shape?: Record<string, z.core.$ZodType>;
  readonly element?: z.core.$ZodType;
  readonly innerType?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
  readonly out?: z.core.$ZodType;
};

/**
 * Every field of `schema` (walked into objects, arrays, optional, nullable and pipes) that `json` does not
 * have, as dotted paths.
 */
function missingFields(
  schema: z.core.$ZodType,
  json: JsonSchema | undefined,
  io: "input" | "output",
  path = "",
  seen = new Set<z.core.$ZodType>(),
): string[] {
  if (seen.has(schema)) return [];
  const def = schema._zod.def as ZodDef;
  const target = nonNull(json);
  const next = new Set([...seen, schema]);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "readonly":
      return def.innerType === undefined ? [] : missingFields(def.innerType, target, io, path, seen);
    case "pipe": {
      const side = io === "input" ? def.in : def.out;
      return side === undefined ? [] : missingFields(side, target, io, path, seen);
    }
    case "array": {
      const items = target?.items;
      const itemSchema = typeof items === "object" && !Array.isArray(items) ? items : undefined;
      return def.element === undefined ? [] : missingFields(def.element, itemSchema, io, `${path}[]`, next);
    }
    case "object":
      return Object.entries(def.shape ?? {}).flatMap(([name, field]) => {
        const property = target?.properties?.[name];
        const fieldPath = path === "" ? name : `${path}.${name}`;
        if (property === undefined) return [fieldPath];
        return missingFields(field, typeof property === "object" ? property : undefined, io, fieldPath, next);
      });
    default:
      return [];
  }
}

/** The top-level keys of an object schema (a query schema, a body schema). */
function keysOf(schema: z.core.$ZodType): string[] {
  return Object.keys((schema._zod.def as ZodDef).shape ?? {});
}

function jsonSchemaOf(holder: Record<string, unknown> | undefined): JsonSchema | undefined {
  const content = holder?.content as Record<string, { schema?: JsonSchema }> | undefined;
  return content?.["application/json"]?.schema;
}

describe.each(routes.map((route) => [route.id, route] as const))("the document's %s", (id, route) => {
  const contract = contractOf(id as RouteId);
  const operation = operationOf(route);
  const parameters = (operation?.parameters ?? []).flatMap((parameter) => ("in" in parameter ? [parameter] : []));

  it("is an operation at its method and path", () => {
    expect(operation, `${route.method} ${route.path} is missing from the document`).toBeDefined();
    expect(operation?.operationId).toBe(id);
  });

  it("has every path parameter, in order", () => {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    const documented = parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
    expect(documented).toEqual(names);
  });

  it("has every key of its query schema as a query parameter", () => {
    const documented = parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
    expect(documented.sort()).toEqual(contract.query === undefined ? [] : keysOf(contract.query).sort());
  });

  it("has a request body with every field of its schema", () => {
    const body = contract.body?.schema ?? contract.protocolBody?.schema;
    const documented = resolved(jsonSchemaOf(operation?.requestBody));
    if (body === undefined) {
      expect(operation?.requestBody).toBeUndefined();
      return;
    }
    expect(documented, "no JSON request body").toBeDefined();
    expect(operation?.requestBody?.required).toBe(contract.body?.optional !== true);
    expect(missingFields(body, documented, "input")).toEqual([]);
  });

  it("has its success response with every field of its schema", () => {
    const success = operation?.responses[String(contract.success.status)];
    const statuses = Object.keys(operation?.responses ?? {}).filter((status) => status.startsWith("2"));
    expect(statuses).toEqual([String(contract.success.status)]);
    const body = contract.success.body;
    const mediaTypes = Object.keys((success?.content ?? {}) as Record<string, unknown>);
    if (contract.success.raw !== undefined) {
      expect(mediaTypes.sort()).toEqual([...contract.success.raw].sort());
      return;
    }
    if (body === undefined) {
      expect(mediaTypes).toEqual([]);
      return;
    }
    const documented = resolved(jsonSchemaOf(success));
    expect(documented, "no JSON success body").toBeDefined();
    expect(missingFields(body, documented, "output")).toEqual([]);
  });

  it("has the security of its route table entry", () => {
    const auth = route.auth;
    const schemes = operation?.security.flatMap((requirement) => Object.keys(requirement)) ?? [];
    expect(schemes).toEqual(
      auth.kind === "apiKey"
        ? auth.basic === true
          ? ["apiKey", "langfuseBasic"]
          : ["apiKey"]
        : auth.kind === "apiKeyOrUser"
          ? ["apiKey", "userToken"]
          : auth.kind === "public"
            ? []
            : auth.kind === "feedbackToken"
              ? ["feedbackToken"]
              : ["userToken"],
    );
    expect(operation?.["x-required-scope"]).toBe("scope" in auth ? auth.scope : undefined);
    expect(operation?.["x-required-role"]).toBe("role" in auth ? auth.role : undefined);
    const errors = Object.keys(operation?.responses ?? {});
    if (auth.kind !== "public") expect(errors).toContain("401");
    if (auth.kind === "apiKey" || auth.kind === "apiKeyOrUser" || auth.kind === "user") expect(errors).toContain("403");
    expect(errors).toContain("500");
  });
});

describe("the document's components", () => {
  it.each([...responseComponents._idmap].map(([name, schema]) => [name, schema] as const))(
    "has the response schema %s with every field",
    (name, schema) => {
      const documented = document.components.schemas[name];

      expect(documented, `${name} is missing from components.schemas`).toBeDefined();
      expect(missingFields(schema, documented, "output")).toEqual([]);
    },
  );

  it.each([...protocolComponents._idmap].map(([name, schema]) => [name, schema] as const))(
    "has the protocol schema %s with every field",
    (name, schema) => {
      const documented = document.components.schemas[name];

      expect(documented, `${name} is missing from components.schemas`).toBeDefined();
      expect(missingFields(schema, documented, "input")).toEqual([]);
    },
  );

  it("names no schema that is not generated", () => {
    const refs = JSON.stringify(document).match(/#\/components\/schemas\/[\w]+/g) ?? [];
    const names = new Set(refs.map((ref) => ref.replace("#/components/schemas/", "")));
    expect([...names].filter((name) => document.components.schemas[name] === undefined)).toEqual([]);
  });
});
