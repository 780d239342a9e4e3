/** The `{monitorId}` of `/api/alerts/monitors/{monitorId}…`: not of a monitor id's shape is simply not found. */
import { NotFoundError } from "../domain/errors.js";
import { isId } from "../domain/ids.js";

export function monitorIdParameter(parameters: Readonly<Record<string, string | undefined>>): string {
  const monitorId = parameters.monitorId ?? "";
  if (!isId("monitor", monitorId))
    throw new NotFoundError(`No monitor ${monitorId.slice(0, 64)} in this organisation and environment`);
  return monitorId;
}
