/** The machine a benchmark ran on, for the results file. */
import { cpus, totalmem } from "node:os";

export function machineInfo() {
  return {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    totalMemoryMb: totalmem() / 2 ** 20,
  };
}
