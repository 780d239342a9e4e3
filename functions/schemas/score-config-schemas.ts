/** Request schemas of the score configuration routes (issue 33). */
import * as z from "zod/mini";
import { LIMITS } from "../domain/limits.js";
import { SCORE_VALUE_KINDS } from "../domain/score.js";
import { SCORE_CONFIG_LIMITS } from "../domain/score-config.js";
import { boundedNumber, enumeration, optional, strictObject, text } from "./fields.js";

const bound = () => optional(boundedNumber(-LIMITS.maxScoreMagnitude, LIMITS.maxScoreMagnitude));

const labels = z.array(text(LIMITS.scoreLabelLength), { error: "Must be an array of labels" }).check(
  z.minLength(1, { error: "Must hold at least one label" }),
  z.maxLength(SCORE_CONFIG_LIMITS.labels, { error: `Must hold at most ${SCORE_CONFIG_LIMITS.labels} labels` }),
  z.refine((values) => new Set(values).size === values.length, { error: "Must not repeat a label" }),
);

/** PUT /api/sdk/score-configs/{name}: the kind of the name's values, and its range or labels. */
export const putScoreConfigBody = strictObject({
  dataType: enumeration(SCORE_VALUE_KINDS),
  min: bound(),
  max: bound(),
  labels: optional(labels),
  description: optional(text(SCORE_CONFIG_LIMITS.descriptionLength)),
}).check(
  z.superRefine((config, context) => {
    if (config.dataType !== "numeric") {
      for (const field of ["min", "max"] as const) {
        if (config[field] !== undefined) {
          context.addIssue({ code: "custom", path: [field], message: "Only a numeric score has a range" });
        }
      }
    } else if (config.min !== undefined && config.max !== undefined && config.min > config.max) {
      context.addIssue({ code: "custom", path: ["max"], message: "Must be at least min" });
    }
    if (config.dataType !== "categorical" && config.labels !== undefined) {
      context.addIssue({ code: "custom", path: ["labels"], message: "Only a categorical score has labels" });
    }
  }),
);
export type PutScoreConfigBody = z.output<typeof putScoreConfigBody>;
