/**
 * Carries out a {@link WebAclPlan} against AWS WAF, safely when CloudFormation
 * or Lambda repeats a request:
 * - create: a name already taken (a repeated Create whose first run created
 *   the web ACL) is adopted and brought up to date instead of failing;
 * - update and delete: each write carries the lock token just read, and a
 *   concurrent change (WAFOptimisticLockException) re-reads and retries;
 * - update of a web ACL deleted by hand creates it again;
 * - delete of a web ACL that is gone succeeds; one still associated with the
 *   distribution (CloudFront takes minutes to let go of it) is retried until
 *   the deadline.
 *
 * WAF is reached through {@link WebAclApi}, so the rules above are tested
 * without AWS (test/unit/web-acl-manager.test.ts); web-acl-resource.ts
 * implements it with the SDK.
 */
import type { WebAclDefinition } from "./web-acl-definition.js";
import type { WebAclPlan, WebAclRef } from "./web-acl-plan.js";

/** The WAF operations the manager needs, for CloudFront web ACLs. Errors keep WAF's exception names. */
export interface WebAclApi {
  /** CreateWebACL. */
  create(name: string, definition: WebAclDefinition): Promise<WebAclRef>;
  /** ListWebACLs, every page: the web ACL of that name, if any. */
  find(name: string): Promise<WebAclRef | undefined>;
  /** GetWebACL: its current lock token. */
  lockToken(target: WebAclRef): Promise<string>;
  /** UpdateWebACL (the whole configuration). */
  update(target: WebAclRef, definition: WebAclDefinition, lockToken: string): Promise<void>;
  /** DeleteWebACL. */
  delete(target: WebAclRef, lockToken: string): Promise<void>;
}

/** When to try again, and for how long. */
export interface RetryClock {
  /** Whether there is time left for another attempt. */
  timeLeft(): boolean;
  /** Waits before attempt `attempt` (1 for the first retry). */
  pause(attempt: number): Promise<void>;
}

/** Retries of a write that lost a race for the lock token. */
const LOCK_ATTEMPTS = 5;

/** Whether `error` is the WAF exception called `name`. */
function isWafError(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

async function updateWithFreshLock(api: WebAclApi, target: WebAclRef, definition: WebAclDefinition): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const token = await api.lockToken(target);
    try {
      await api.update(target, definition, token);
      return;
    } catch (error) {
      if (!isWafError(error, "WAFOptimisticLockException") || attempt >= LOCK_ATTEMPTS) throw error;
    }
  }
}

async function createOrAdopt(api: WebAclApi, name: string, definition: WebAclDefinition): Promise<WebAclRef> {
  try {
    return await api.create(name, definition);
  } catch (error) {
    if (!isWafError(error, "WAFDuplicateItemException")) throw error;
    const existing = await api.find(name);
    if (existing === undefined) throw error;
    await updateWithFreshLock(api, existing, definition);
    return existing;
  }
}

async function deleteWhenReleased(api: WebAclApi, target: WebAclRef, clock: RetryClock): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await api.delete(target, await api.lockToken(target));
      return;
    } catch (error) {
      if (isWafError(error, "WAFNonexistentItemException")) return;
      const retryable =
        isWafError(error, "WAFOptimisticLockException") ||
        isWafError(error, "WAFAssociatedItemException") ||
        isWafError(error, "WAFUnavailableEntityException");
      if (!retryable || !clock.timeLeft()) throw error;
      await clock.pause(attempt);
    }
  }
}

/**
 * Applies the plan; the web ACL it leaves in place (the resource's new
 * physical id and attributes), or `undefined` after a delete.
 */
export async function applyWebAclPlan(
  api: WebAclApi,
  plan: WebAclPlan,
  definition: WebAclDefinition | undefined,
  clock: RetryClock,
): Promise<WebAclRef | undefined> {
  switch (plan.kind) {
    case "nothing":
      return undefined;
    case "delete":
      await deleteWhenReleased(api, plan.target, clock);
      return undefined;
    case "create":
      if (definition === undefined) throw new Error("A create needs the web ACL's definition");
      return createOrAdopt(api, plan.name, definition);
    case "update":
      if (definition === undefined) throw new Error("An update needs the web ACL's definition");
      try {
        await updateWithFreshLock(api, plan.target, definition);
        return plan.target;
      } catch (error) {
        if (!isWafError(error, "WAFNonexistentItemException")) throw error;
        return createOrAdopt(api, plan.target.name, definition);
      }
  }
}
