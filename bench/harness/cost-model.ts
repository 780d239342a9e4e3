/**
 * AWS cost per million units of work (events, sessions) from what the bench
 * measured: DynamoDB write/read request units, Lambda billed duration at the
 * functions' memory size, and the request counts each unit causes.
 */

/**
 * us-east-1 list prices. Taken from the AWS pricing pages as known at the date
 * below; the bench has no network access to re-check them.
 */
export const PRICES = {
  region: "us-east-1",
  asOf: "2026-11",
  source:
    "list prices as of 2026-11 (unchanged since the 2024-11-01 DynamoDB on-demand reduction), from the AWS pricing pages as known at that date; not re-verified online by this run. " +
    "DynamoDB Streams: GetRecords calls made by AWS Lambda triggers are free (DynamoDB pricing page, on-demand, 'Change data capture: DynamoDB Streams'), so the stream consumer pays Lambda and the DynamoDB reads/writes it makes, not its stream reads. " +
    "Transactions: TransactWriteItems bills 2 WCU per item per started KB (DynamoDB developer guide, 'Capacity unit consumption for transactions')",
  /** HTTP API, first 300 million requests a month; each request metered in 512 KB increments. */
  apiGatewayHttpPerMillionRequests: 1.0,
  /** Lambda arm64 duration, first 7.5 billion GB-s a month. */
  lambdaArm64PerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** DynamoDB on-demand, standard table class. */
  dynamoDbPerMillionWriteRequestUnits: 0.625,
  dynamoDbPerMillionReadRequestUnits: 0.125,
  /** DynamoDB Streams read request units when the reader is a Lambda trigger (event source mapping): free. */
  dynamoDbStreamsReadsByLambda: 0,
  /** S3 Standard PUT: only for event payloads offloaded to the payload bucket (none in a typical event). */
  s3PutPerThousandRequests: 0.005,
} as const;

/** What one unit of work (one event, one session) costs in requests, duration and capacity. */
export interface UnitWork {
  readonly apiRequests: number;
  readonly lambdaInvocations: number;
  /** Billed Lambda milliseconds (each invocation rounded up to 1 ms), summed over the unit's invocations. */
  readonly lambdaBilledMs: number;
  readonly writeRequestUnits: number;
  readonly readRequestUnits: number;
  readonly s3Puts: number;
}

/** US dollars per million units. */
export interface CostBreakdown {
  readonly apiGateway: number;
  readonly lambdaRequests: number;
  readonly lambdaDuration: number;
  readonly dynamoDbWrites: number;
  readonly dynamoDbReads: number;
  readonly s3Puts: number;
  readonly total: number;
}

const MILLION = 1_000_000;

function lambdaDurationPerMillion(billedMs: number, memoryMb: number): number {
  return (billedMs / 1000) * (memoryMb / 1024) * PRICES.lambdaArm64PerGbSecond * MILLION;
}

/** The sum of several units of work (e.g. the request path and the stream consumer's share of one event). */
export function addWork(...parts: readonly UnitWork[]): UnitWork {
  const sum = (pick: (work: UnitWork) => number) => parts.reduce((total, part) => total + pick(part), 0);
  return {
    apiRequests: sum((work) => work.apiRequests),
    lambdaInvocations: sum((work) => work.lambdaInvocations),
    lambdaBilledMs: sum((work) => work.lambdaBilledMs),
    writeRequestUnits: sum((work) => work.writeRequestUnits),
    readRequestUnits: sum((work) => work.readRequestUnits),
    s3Puts: sum((work) => work.s3Puts),
  };
}

export function costPerMillion(work: UnitWork, memoryMb: number): CostBreakdown {
  const parts = {
    apiGateway: work.apiRequests * PRICES.apiGatewayHttpPerMillionRequests,
    lambdaRequests: work.lambdaInvocations * PRICES.lambdaPerMillionRequests,
    lambdaDuration: lambdaDurationPerMillion(work.lambdaBilledMs, memoryMb),
    dynamoDbWrites: work.writeRequestUnits * PRICES.dynamoDbPerMillionWriteRequestUnits,
    dynamoDbReads: work.readRequestUnits * PRICES.dynamoDbPerMillionReadRequestUnits,
    s3Puts: work.s3Puts * (PRICES.s3PutPerThousandRequests / 1000) * MILLION,
  };
  const total = Object.values(parts).reduce((sum, value) => sum + value, 0);
  return { ...parts, total };
}

/**
 * Billed Lambda milliseconds per unit at which the cost reaches `targetPerMillion`,
 * everything else unchanged (negative: the target is missed even at 0 ms).
 */
export function lambdaMsBudget(work: UnitWork, memoryMb: number, targetPerMillion: number): number {
  const withoutDuration = costPerMillion({ ...work, lambdaBilledMs: 0 }, memoryMb).total;
  const perMs = lambdaDurationPerMillion(1, memoryMb);
  return (targetPerMillion - withoutDuration) / perMs;
}

/** One candidate memory size, as the bench models it. */
export interface MemoryOption {
  readonly memoryMb: number;
  /** Mean modelled single-event handler duration at this size (CPU scaled to the vCPU share). */
  readonly singleEventMs: number;
  /** That duration ÷ the same at a full vCPU. */
  readonly slowdown: number;
  readonly singleEventCostPerMillion: number;
  readonly batchedEventCostPerMillion: number;
  /** Median cold import of the functions if it ran at this size's vCPU share (an upper bound). */
  readonly coldImportMs: number;
}

/**
 * Lambda memory size from measured duration × price: every size costs about
 * the same per million events (Lambda duration is cents of the dollars; CPU
 * time × memory is constant while CPU-bound), so the smallest size whose
 * CPU share keeps the single-event handler within `maxSlowdown` × its
 * full-vCPU duration wins; below it, latency grows much faster than the
 * saving.
 */
export function chooseMemory(options: readonly MemoryOption[], maxSlowdown: number): MemoryOption | undefined {
  return [...options].sort((a, b) => a.memoryMb - b.memoryMb).find((option) => option.slowdown <= maxSlowdown);
}
