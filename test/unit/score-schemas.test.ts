/** The pure rules of scores (issue 33): the request schemas, value kinds, who gave a score, planned ids. */
import { describe, expect, it } from "vitest";
import { isId } from "../../functions/domain/ids.js";
import { authorOf, defaultSourceOf, plannedScoreId, valueKindOf } from "../../functions/domain/score.js";
import { createScoreBatchBody, createScoreBody, scoreValueProblem } from "../../functions/schemas/score-schemas.js";
import { principalFor } from "../support/seed.js";
import { issuesOf } from "./schema-issues.js";

const SESSION_ID = "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV";
const VALID = { sessionId: SESSION_ID, name: "helpfulness", value: 0.5 } as const;
const VALUE_MESSAGE = "Must be a finite number, true or false, or a label of 1 to 200 characters";

describe("createScoreBody", () => {
  it("accepts every field at once and passes the values on", () => {
    // Prepare
    const body = {
      id: "scr_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      sessionId: SESSION_ID,
      eventId: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      name: "__proto__",
      value: "friendly",
      dataType: "categorical",
      comment: "c".repeat(4000),
      source: "end_user",
    };

    // Act
    const result = createScoreBody.safeParse(body);

    // Assess
    expect(result.success).toBe(true);
    expect(result.data).toEqual(body);
  });

  it.each([
    [0, "numeric"],
    [-1e15, "numeric"],
    [1e-9, "numeric"],
    [true, "boolean"],
    [false, "boolean"],
    ["x", "categorical"],
    ["😀".repeat(200), "categorical"],
  ] as const)("accepts the value %s as %s", (value, kind) => {
    expect(issuesOf(createScoreBody, { ...VALID, value, dataType: kind })).toEqual([]);
    expect(valueKindOf(value)).toBe(kind);
  });

  it.each([
    [Number.NaN, VALUE_MESSAGE],
    [Number.POSITIVE_INFINITY, VALUE_MESSAGE],
    [1e16, "Must be a number from -1000000000000000 to 1000000000000000, 0 or at least 1e-9 in magnitude"],
    [1e-10, "Must be a number from -1000000000000000 to 1000000000000000, 0 or at least 1e-9 in magnitude"],
    ["", VALUE_MESSAGE],
    ["x".repeat(201), VALUE_MESSAGE],
    ["\ud800", VALUE_MESSAGE],
    [null, VALUE_MESSAGE],
    [[1], VALUE_MESSAGE],
    [{ value: 1 }, VALUE_MESSAGE],
  ])("refuses the value %s", (value, message) => {
    expect(scoreValueProblem(value)).toBe(message);
    expect(issuesOf(createScoreBody, { ...VALID, value })).toEqual([{ path: "value", message }]);
  });

  it("requires the value and names it", () => {
    expect(issuesOf(createScoreBody, { sessionId: SESSION_ID, name: "n" })).toEqual([
      { path: "value", message: "Required" },
    ]);
  });

  it("refuses a value of another kind than dataType, naming the kind", () => {
    expect(issuesOf(createScoreBody, { ...VALID, dataType: "boolean" })).toEqual([
      { path: "value", message: "Must be true or false (dataType is boolean)" },
    ]);
    expect(issuesOf(createScoreBody, { ...VALID, value: "0.5", dataType: "numeric" })).toEqual([
      { path: "value", message: "Must be a number (dataType is numeric)" },
    ]);
  });

  it("names each bad field", () => {
    expect(
      issuesOf(createScoreBody, {
        ...VALID,
        name: "",
        comment: "c".repeat(4001),
        source: "robot",
        id: "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV",
        dataType: "label",
      }),
    ).toEqual([
      { path: "comment", message: "Must be at most 4000 characters" },
      { path: "dataType", message: "Must be one of: numeric, boolean, categorical" },
      {
        path: "id",
        message: 'Must be "scr_" followed by a ULID (26 characters of Crockford base32, upper case)',
      },
      { path: "name", message: "Must not be empty" },
      { path: "source", message: "Must be one of: api, sdk, console, end_user, evaluator" },
    ]);
  });

  it("treats null optional fields as not sent", () => {
    const result = createScoreBody.safeParse({ ...VALID, comment: null, eventId: null, source: null, id: null });

    expect(result.success).toBe(true);
    expect(result.data).toEqual(VALID);
  });
});

describe("createScoreBatchBody", () => {
  it("takes 1 to 100 scores, each checked later on its own", () => {
    expect(issuesOf(createScoreBatchBody, { scores: ["anything"] })).toEqual([]);
    expect(issuesOf(createScoreBatchBody, { scores: [] })).toEqual([
      { path: "scores", message: "Must hold at least one score" },
    ]);
    expect(issuesOf(createScoreBatchBody, { scores: Array.from({ length: 101 }, () => VALID) })).toEqual([
      { path: "scores", message: "Must hold at most 100 scores" },
    ]);
  });
});

describe("who gives a score, and its id", () => {
  it("is the key for an API key and the user for a signed-in user, with their default sources", () => {
    const key = principalFor("org-scores");
    const user = { ...key, signedInUserId: "user-7" };

    expect(authorOf(key)).toEqual({ kind: "apiKey", id: key.keyId });
    expect(defaultSourceOf(key)).toBe("api");
    expect(authorOf(user)).toEqual({ kind: "user", id: "user-7" });
    expect(defaultSourceOf(user)).toBe("console");
  });

  it("derives the same id for the same Idempotency-Key and position, another for another position", () => {
    const planned = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

    const first = plannedScoreId(planned, 0, Date.now());

    expect(isId("score", first)).toBe(true);
    expect(plannedScoreId(planned, 0, Date.now() + 60_000)).toBe(first);
    expect(plannedScoreId(planned, 1, Date.now())).not.toBe(first);
    expect(isId("score", plannedScoreId(undefined, 0, Date.now()))).toBe(true);
  });
});
