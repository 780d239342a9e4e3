/** Which email addresses invitations accept (domain/email-address.ts): plain ASCII only, no controls, no look-alikes. */
import { describe, expect, it } from "vitest";
import { EMAIL_MESSAGES, emailAddressProblem, normaliseEmailAddress } from "../../functions/domain/email-address.js";

describe("emailAddressProblem", () => {
  it.each([
    "grace@example.com",
    "Grace.Hopper@Example.COM",
    "o'brien+ats@mail.example.org",
    "a@b.co",
    "x_y-z@sub-domain.example.io",
    "grace@xn--bcher-kva.example",
    "grace@example.xn--p1ai",
    `${"g".repeat(64)}@example.com`,
  ])("accepts %s", (address) => {
    expect(emailAddressProblem(address)).toBeUndefined();
  });

  it.each([
    ["NUL", "grace\u0000@example.com"],
    ["NUL in the domain", "grace@exa\u0000mple.com"],
    ["tab", "grace\t@example.com"],
    ["carriage return", "grace@example.com\r"],
    ["DEL", "grace\u007f@example.com"],
    ["C1 next line", "grace\u0085@example.com"],
  ])("refuses a control character (%s)", (_name, address) => {
    expect(emailAddressProblem(address)).toBe(EMAIL_MESSAGES.control);
  });

  it.each([
    ["full-width local part", "\uff47\uff52\uff41\uff43\uff45@example.com", "grace@example.com"],
    ["full-width at sign", "grace\uff20example.com", "grace@example.com"],
    ["full-width full stop", "grace@example\uff0ecom", "grace@example.com"],
    ["full-width capitals, folded to lower case", "\uff27RACE@example.com", "grace@example.com"],
    ["mathematical bold letters", "\u{1d420}race@example.com", "grace@example.com"],
  ])("names the address a look-alike means (%s)", (_name, address, meant) => {
    expect(emailAddressProblem(address)).toBe(EMAIL_MESSAGES.lookAlike(meant));
  });

  it.each([
    ["Cyrillic а (NFKC keeps it)", "gr\u0430ce@example.com"],
    ["Greek ο in the domain", "grace@ex\u03bfmple.com"],
    ["accented letter", "jos\u00e9@example.com"],
    ["Unicode domain", "grace@b\u00fccher.example"],
    ["zero-width space", "gra\u200bce@example.com"],
    ["right-to-left override", "grace\u202e@example.com"],
    ["full-width form that folds to no address", "\uff47\uff52\uff41\uff43\uff45"],
  ])("refuses other non-ASCII text (%s)", (_name, address) => {
    expect(emailAddressProblem(address)).toBe(EMAIL_MESSAGES.nonAscii);
  });

  it.each([
    "",
    "grace",
    "grace@",
    "@example.com",
    "grace@localhost",
    "grace@@example.com",
    "grace hopper@example.com",
    ".grace@example.com",
    "grace.@example.com",
    "grace..hopper@example.com",
    '"grace"@example.com',
    "grace@-example.com",
    "grace@example-.com",
    "grace@example..com",
    "grace@example.c",
    "grace@example.123",
    "grace@[127.0.0.1]",
    `${"g".repeat(65)}@example.com`,
    `grace@${"a".repeat(64)}.com`,
  ])("refuses %j as no email address", (address) => {
    expect(emailAddressProblem(address)).toBe(EMAIL_MESSAGES.format);
  });
});

it("stores addresses in lower case", () => {
  expect(normaliseEmailAddress("Grace.Hopper@Example.COM")).toBe("grace.hopper@example.com");
});
