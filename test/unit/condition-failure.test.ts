import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { describe, expect, it } from "vitest";
import { conditionFailureItem, isConditionFailure } from "../../functions/store/table/condition-failure.js";

const metadata = { $metadata: {} };

function cancelled(...codes: string[]) {
  return new TransactionCanceledException({
    message: "cancelled",
    ...metadata,
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

describe("isConditionFailure", () => {
  it("tells a failed condition of a single write or of a transaction's item from anything else", () => {
    const single = new ConditionalCheckFailedException({ message: "failed", ...metadata });

    expect(isConditionFailure(single)).toBe(true);
    expect(isConditionFailure(cancelled("None", "ConditionalCheckFailed"))).toBe(true);
    expect(isConditionFailure(cancelled("TransactionConflict"))).toBe(false);
    expect(isConditionFailure(new Error("ConditionalCheckFailed"))).toBe(false);
  });

  it("with an index, asks about that item of a transaction only", () => {
    const error = cancelled("None", "ConditionalCheckFailed");

    expect(isConditionFailure(error, 1)).toBe(true);
    expect(isConditionFailure(error, 0)).toBe(false);
    expect(isConditionFailure(new ConditionalCheckFailedException({ message: "failed", ...metadata }), 0)).toBe(false);
  });
});

describe("conditionFailureItem", () => {
  it("unmarshalls the item a failed condition returned, and is undefined otherwise", () => {
    const error = new ConditionalCheckFailedException({
      message: "failed",
      ...metadata,
      Item: marshall({ PK: "A", used: 3 }),
    });

    expect(conditionFailureItem(error)).toEqual({ PK: "A", used: 3 });
    expect(
      conditionFailureItem(new ConditionalCheckFailedException({ message: "failed", ...metadata })),
    ).toBeUndefined();
    expect(conditionFailureItem(new Error("other"))).toBeUndefined();
  });
});
