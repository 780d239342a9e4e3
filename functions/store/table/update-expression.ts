/**
 * Update expressions built from an allow-list: every attribute goes through
 * `ExpressionAttributeNames` (`#name`) and its value through
 * `ExpressionAttributeValues` (`:name`), and a name not on the allow-list is
 * refused, so a request's keys can never choose what an update writes. Pure:
 * no I/O, unit-tested (test/unit/update-expression.test.ts).
 */

/** What an update changes: attributes to SET, numbers to ADD, attributes to REMOVE. Undefined values are left out. */
export interface UpdateChanges {
  readonly set?: Readonly<Record<string, unknown>>;
  readonly add?: Readonly<Record<string, number>>;
  readonly remove?: readonly string[];
}

/** The parts of an UpdateItem request an update contributes (merged with the condition's). */
export interface UpdateExpressionParts {
  readonly UpdateExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** Attribute names usable as placeholders: ours are plain identifiers. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An attribute an update was asked to write that is not on its allow-list (a defect upstream). */
export class DisallowedAttributeError extends Error {
  constructor(readonly attribute: string) {
    super(`Attribute ${JSON.stringify(attribute)} is not updatable here`);
    this.name = "DisallowedAttributeError";
  }
}

function checked(name: string, allowed: ReadonlySet<string>): string {
  if (!allowed.has(name) || !PLAIN_NAME.test(name)) throw new DisallowedAttributeError(name);
  return name;
}

/**
 * `SET #a = :a, … ADD #n :n, … REMOVE #r, …` for the defined values of `changes`, every name checked against `allowed`.
 * Throws DisallowedAttributeError for a name outside it, and when nothing would change.
 */
export function buildUpdate(changes: UpdateChanges, allowed: readonly string[]): UpdateExpressionParts {
  const allowList = new Set(allowed);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const adds: string[] = [];
  for (const [name, value] of Object.entries(changes.set ?? {})) {
    if (value === undefined) continue;
    names[`#${checked(name, allowList)}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  for (const [name, value] of Object.entries(changes.add ?? {})) {
    if (value === undefined) continue;
    if (names[`#${name}`] !== undefined) throw new Error(`Attribute ${name} is both SET and ADDed`);
    names[`#${checked(name, allowList)}`] = name;
    values[`:${name}`] = value;
    adds.push(`#${name} :${name}`);
  }
  const removes: string[] = [];
  for (const name of changes.remove ?? []) {
    if (names[`#${name}`] !== undefined) throw new Error(`Attribute ${name} is both written and removed`);
    names[`#${checked(name, allowList)}`] = name;
    removes.push(`#${name}`);
  }
  if (sets.length + adds.length + removes.length === 0) {
    throw new Error("An update must change at least one attribute");
  }
  const clauses = [
    ...(sets.length === 0 ? [] : [`SET ${sets.join(", ")}`]),
    ...(adds.length === 0 ? [] : [`ADD ${adds.join(", ")}`]),
    ...(removes.length === 0 ? [] : [`REMOVE ${removes.join(", ")}`]),
  ];
  return { UpdateExpression: clauses.join(" "), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}
