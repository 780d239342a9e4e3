/** How a refusal names the role a route needs (issue 21, item 9: never "owner or owner"). */
import { expect, it } from "vitest";
import { roleRequirement } from "../../functions/domain/membership.js";

it("names the top role alone and the others 'or above'", () => {
  expect(roleRequirement("owner")).toBe("owner");
  expect(roleRequirement("admin")).toBe("admin or above");
  expect(roleRequirement("member")).toBe("member or above");
});
