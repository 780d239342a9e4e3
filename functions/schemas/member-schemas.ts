/** Request schemas of the members and invitations routes. */
import * as z from "zod/mini";
import { emailAddressProblem } from "../domain/email-address.js";
import { ROLES } from "../domain/membership.js";
import { enumeration, strictObject, text } from "./fields.js";

/**
 * An email address as domain/email-address.ts accepts it: plain ASCII `local@domain.tld`, no control
 * characters, no look-alikes, at most 254 characters.
 */
function emailAddress() {
  return text(254).check(
    z.superRefine((value, context) => {
      const problem = emailAddressProblem(value);
      if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
    }),
  );
}

export const createInvitationBody = strictObject({ email: emailAddress(), role: enumeration(ROLES) });
export type CreateInvitationBody = z.output<typeof createInvitationBody>;

export const updateMemberBody = strictObject({ role: enumeration(ROLES) });
export type UpdateMemberBody = z.output<typeof updateMemberBody>;
