/** JSON values as clients send them. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Structural equality of two JSON values (object key order ignored). */
export function jsonEqual(left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  if (left === right) return true;
  if (left === null || right === null || left === undefined || right === undefined) return false;
  if (typeof left !== "object" || typeof right !== "object") return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index]));
  }
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}

/** Depth of nested objects/arrays, measured without recursion (bodies can nest deeply). */
export function nestingDepth(root: unknown, limit: number): number {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  let deepest = 0;
  while (pending.length > 0) {
    const next = pending.pop();
    if (!next || typeof next.value !== "object" || next.value === null) continue;
    deepest = Math.max(deepest, next.depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(next.value)) pending.push({ value: child, depth: next.depth + 1 });
  }
  return deepest;
}
