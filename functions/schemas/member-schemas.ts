/** Request schemas of the members routes. */
import * as z from "zod/mini";
import { ROLES } from "../domain/membership.js";
import { enumeration, strictObject, text } from "./fields.js";

/** An email address: `local@domain.tld`, no spaces, at most 254 characters. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const addMemberBody = strictObject({
  email: text(254).check(z.refine((value) => EMAIL_PATTERN.test(value), { error: "Must be an email address" })),
  role: enumeration(ROLES),
});
export type AddMemberBody = z.output<typeof addMemberBody>;

export const updateMemberBody = strictObject({ role: enumeration(ROLES) });
export type UpdateMemberBody = z.output<typeof updateMemberBody>;
