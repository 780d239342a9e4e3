/**
 * Which email addresses the service accepts for members and invitations, and how they are stored.
 *
 * An address names a person another person chose to let into an organisation, so it must read the same
 * to everyone: the service accepts plain ASCII addresses only. Control characters (NUL and the rest of
 * C0 and C1) are refused, and so is every non-ASCII character: full-width letters and signs
 * (`ｇｒａｃｅ@example.com`, which NFKC folds to `grace@example.com`) and letters of other scripts that look
 * Latin (a Cyrillic `а`, which no normalisation folds). An internationalised domain is accepted in its
 * ASCII (`xn--…`) form. Accepted addresses are stored in lower case (Cognito compares them
 * case-insensitively).
 */

/** RFC 5321: at most 64 characters before the `@`. */
export const MAX_LOCAL_PART_LENGTH = 64;

/** C0 controls (NUL…US), DEL and C1 controls: Unicode's `Cc`. */
const CONTROL_CHARACTER = /\p{Cc}/u;
const NON_ASCII = /\P{ASCII}/u;
/** RFC 5322 `atext`: the characters of an unquoted local part, in dot-separated runs. */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** A DNS label: letters, digits and inner hyphens, 1 to 63 characters. */
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** A top-level domain: letters, or an internationalised one in its `xn--` form. */
const TOP_LEVEL_DOMAIN = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

export const EMAIL_MESSAGES = {
  format: "Must be an email address",
  control: "Must not contain control characters",
  nonAscii:
    "Must be plain ASCII: letters of other scripts and full-width forms are refused; write an internationalised domain in its xn-- form",
  lookAlike: (meant: string) =>
    `Must be plain ASCII: it contains full-width or other look-alike characters (did you mean ${meant}?)`,
} as const;

function isEmailShape(value: string): boolean {
  const at = value.lastIndexOf("@");
  if (at <= 0 || at === value.length - 1) return false;
  const localPart = value.slice(0, at);
  const labels = value.slice(at + 1).split(".");
  const topLevel = labels.at(-1) ?? "";
  return (
    localPart.length <= MAX_LOCAL_PART_LENGTH &&
    LOCAL_PART.test(localPart) &&
    labels.length >= 2 &&
    labels.every((label) => DOMAIN_LABEL.test(label)) &&
    TOP_LEVEL_DOMAIN.test(topLevel)
  );
}

/** Why `value` is not an acceptable email address (the message of its 400), or undefined when it is one. */
export function emailAddressProblem(value: string): string | undefined {
  if (CONTROL_CHARACTER.test(value)) return EMAIL_MESSAGES.control;
  if (NON_ASCII.test(value)) {
    const folded = value.normalize("NFKC");
    return !NON_ASCII.test(folded) && !CONTROL_CHARACTER.test(folded) && isEmailShape(folded)
      ? EMAIL_MESSAGES.lookAlike(folded.toLowerCase())
      : EMAIL_MESSAGES.nonAscii;
  }
  return isEmailShape(value) ? undefined : EMAIL_MESSAGES.format;
}

/** How an accepted address is stored and compared: in lower case. */
export function normaliseEmailAddress(value: string): string {
  return value.toLowerCase();
}
