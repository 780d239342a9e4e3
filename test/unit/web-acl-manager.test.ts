/**
 * How the `Custom::EdgeWebAcl` function carries out a plan
 * (functions/deploy/web-acl-manager.ts) when requests repeat or race: against
 * an in-memory stand-in for the WAF API with WAF's lock tokens and exception
 * names (WAF has no local edition; the SDK calls themselves are a thin adapter
 * in web-acl-resource.ts).
 */
import { describe, expect, it } from "vitest";
import type { WebAclDefinition } from "../../functions/deploy/web-acl-definition.js";
import { applyWebAclPlan, type RetryClock, type WebAclApi } from "../../functions/deploy/web-acl-manager.js";
import type { WebAclRef } from "../../functions/deploy/web-acl-plan.js";
import { routes } from "../../functions/routes.js";
import { edgeWebAclDefinition } from "../../lib/constructs/edge-rate-rules.js";
import { DEFAULT_EDGE_LIMITS } from "../../lib/constructs/edge-settings.js";

const DEFINITION = edgeWebAclDefinition(routes, DEFAULT_EDGE_LIMITS);
const NEWER = edgeWebAclDefinition(routes, { ...DEFAULT_EDGE_LIMITS, management: 20 });

function wafError(name: string): Error {
  const error = new Error(`${name} from the stand-in`);
  error.name = name;
  return error;
}

interface StoredAcl {
  ref: WebAclRef;
  definition: WebAclDefinition;
  lockToken: string;
}

/** WAF's CloudFront web ACLs, in memory: names unique, every write checks and renews the lock token. */
class FakeWaf implements WebAclApi {
  readonly acls = new Map<string, StoredAcl>();
  /** Writes refused as if another writer had just changed the web ACL. */
  lostRaces = 0;
  /** Deletes refused because CloudFront still holds the web ACL. */
  stillAssociated = 0;
  readonly calls: string[] = [];
  private nextId = 1;

  async create(name: string, definition: WebAclDefinition): Promise<WebAclRef> {
    this.calls.push("create");
    if ([...this.acls.values()].some((acl) => acl.ref.name === name)) throw wafError("WAFDuplicateItemException");
    const id = `id-${this.nextId++}`;
    const ref = { name, id, arn: `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/${id}` };
    this.acls.set(id, { ref, definition, lockToken: "token-0" });
    return ref;
  }

  async find(name: string): Promise<WebAclRef | undefined> {
    this.calls.push("find");
    return [...this.acls.values()].find((acl) => acl.ref.name === name)?.ref;
  }

  async lockToken(target: WebAclRef): Promise<string> {
    this.calls.push("lockToken");
    return this.stored(target).lockToken;
  }

  async update(target: WebAclRef, definition: WebAclDefinition, lockToken: string): Promise<void> {
    this.calls.push("update");
    const acl = this.checked(target, lockToken);
    acl.definition = definition;
    acl.lockToken = `${acl.lockToken}+`;
  }

  async delete(target: WebAclRef, lockToken: string): Promise<void> {
    this.calls.push("delete");
    this.checked(target, lockToken);
    if (this.stillAssociated > 0) {
      this.stillAssociated -= 1;
      throw wafError("WAFAssociatedItemException");
    }
    this.acls.delete(target.id);
  }

  private stored(target: WebAclRef): StoredAcl {
    const acl = this.acls.get(target.id);
    if (acl === undefined || acl.ref.name !== target.name) throw wafError("WAFNonexistentItemException");
    return acl;
  }

  private checked(target: WebAclRef, lockToken: string): StoredAcl {
    const acl = this.stored(target);
    if (this.lostRaces > 0) {
      this.lostRaces -= 1;
      acl.lockToken = `${acl.lockToken}*`;
      throw wafError("WAFOptimisticLockException");
    }
    if (lockToken !== acl.lockToken) throw wafError("WAFOptimisticLockException");
    return acl;
  }
}

/** A clock with `attempts` retries left, that does not wait. */
function clockWith(attempts: number): RetryClock & { pauses: number } {
  const clock = {
    pauses: 0,
    timeLeft: () => clock.pauses < attempts,
    pause: async () => {
      clock.pauses += 1;
    },
  };
  return clock;
}

describe("applyWebAclPlan", () => {
  it("creates the web ACL with its definition", async () => {
    const waf = new FakeWaf();

    const created = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, DEFINITION, clockWith(0));

    expect(created?.name).toBe("Stack-edge-1");
    expect([...waf.acls.values()].map((acl) => acl.definition)).toEqual([DEFINITION]);
  });

  it("adopts and updates the web ACL a repeated Create finds already made, instead of failing", async () => {
    // Prepare: the first run of the Create made it, then died before answering.
    const waf = new FakeWaf();
    const first = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, DEFINITION, clockWith(0));

    // Act
    const second = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, NEWER, clockWith(0));

    // Assess
    expect(second).toEqual(first);
    expect(waf.acls.size).toBe(1);
    expect([...waf.acls.values()][0]?.definition).toEqual(NEWER);
  });

  it("updates in place with a fresh lock token, re-reading it after a lost race", async () => {
    const waf = new FakeWaf();
    const ref = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, DEFINITION, clockWith(0));
    if (ref === undefined) throw new Error("not created");
    waf.lostRaces = 2;
    waf.calls.length = 0;

    const updated = await applyWebAclPlan(waf, { kind: "update", target: ref }, NEWER, clockWith(0));

    expect(updated).toEqual(ref);
    expect(waf.acls.get(ref.id)?.definition).toEqual(NEWER);
    expect(waf.calls).toEqual(["lockToken", "update", "lockToken", "update", "lockToken", "update"]);
  });

  it("gives up an update that keeps losing the race, with WAF's error", async () => {
    const waf = new FakeWaf();
    const ref = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, DEFINITION, clockWith(0));
    if (ref === undefined) throw new Error("not created");
    waf.lostRaces = 100;

    await expect(applyWebAclPlan(waf, { kind: "update", target: ref }, NEWER, clockWith(0))).rejects.toThrow(
      expect.objectContaining({ name: "WAFOptimisticLockException" }),
    );
  });

  it("creates the web ACL again when an update finds it deleted by hand", async () => {
    const waf = new FakeWaf();
    const gone = {
      name: "Stack-edge-1",
      id: "id-99",
      arn: "arn:aws:wafv2:us-east-1:123456789012:global/webacl/Stack-edge-1/id-99",
    };

    const recreated = await applyWebAclPlan(waf, { kind: "update", target: gone }, NEWER, clockWith(0));

    expect(recreated?.name).toBe("Stack-edge-1");
    expect(recreated?.id).not.toBe("id-99");
    expect(waf.acls.get(recreated?.id ?? "")?.definition).toEqual(NEWER);
  });

  it("deletes the web ACL, waiting while CloudFront still holds it", async () => {
    const waf = new FakeWaf();
    const ref = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, DEFINITION, clockWith(0));
    if (ref === undefined) throw new Error("not created");
    waf.stillAssociated = 3;
    const clock = clockWith(10);

    const result = await applyWebAclPlan(waf, { kind: "delete", target: ref }, undefined, clock);

    expect(result).toBeUndefined();
    expect(waf.acls.size).toBe(0);
    expect(clock.pauses).toBe(3);
  });

  it("fails a delete the distribution still holds when the time is up, with WAF's error", async () => {
    const waf = new FakeWaf();
    const ref = await applyWebAclPlan(waf, { kind: "create", name: "Stack-edge-1" }, DEFINITION, clockWith(0));
    if (ref === undefined) throw new Error("not created");
    waf.stillAssociated = 100;

    await expect(applyWebAclPlan(waf, { kind: "delete", target: ref }, undefined, clockWith(2))).rejects.toThrow(
      expect.objectContaining({ name: "WAFAssociatedItemException" }),
    );
    expect(waf.acls.size).toBe(1);
  });

  it("succeeds deleting a web ACL that is already gone (a repeated Delete)", async () => {
    const waf = new FakeWaf();
    const gone = {
      name: "Stack-edge-1",
      id: "id-99",
      arn: "arn:aws:wafv2:us-east-1:123456789012:global/webacl/Stack-edge-1/id-99",
    };

    await expect(
      applyWebAclPlan(waf, { kind: "delete", target: gone }, undefined, clockWith(0)),
    ).resolves.toBeUndefined();
  });

  it("calls nothing for a plan with nothing to do", async () => {
    const waf = new FakeWaf();

    await applyWebAclPlan(waf, { kind: "nothing" }, undefined, clockWith(0));

    expect(waf.calls).toEqual([]);
  });

  it("refuses a create or update without a definition", async () => {
    const waf = new FakeWaf();
    await expect(applyWebAclPlan(waf, { kind: "create", name: "x" }, undefined, clockWith(0))).rejects.toThrow(
      /definition/,
    );
  });
});
