/**
 * Issue 35, the export on AWS: the export bucket, the Glue database and tables generated from EXPORT_TABLES with
 * partition projection, the Athena workgroup and its results bucket, the export function and its schedule. A
 * small stack with only these (one function bundled, the stub or the lead's handler); the whole stack's wiring
 * (grants from functions/routes.ts, outputs, the resource count, cdk-nag) is in service-stack.test.ts.
 */
import * as path from "node:path";
import { App, Duration, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { type CfnRole, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { CfnBucket } from "aws-cdk-lib/aws-s3";
import { beforeAll, describe, expect, it } from "vitest";
import {
  EXPORT_PARTITION_KEYS,
  EXPORT_TABLE_NAMES,
  EXPORT_TABLES,
  type ExportColumnType,
} from "../../functions/export/export-tables.js";
import { exportJob } from "../../functions/routes.js";
import { ExportBucket } from "../../lib/constructs/export-bucket.js";
import { ExportCatalog, PARQUET_FORMAT } from "../../lib/constructs/export-catalog.js";
import { ExportJob } from "../../lib/constructs/export-job.js";
import { DEFAULT_EXPORT_SETTINGS, exportSettings } from "../../lib/constructs/export-settings.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { awsSolutionsFindings } from "./nag-findings.js";

const SYNTH_TIMEOUT_MS = 120_000;

let stack: Stack;
let template: Template;
let exportBucket: ExportBucket;
let reader: Role;

interface GlueTableResource {
  readonly Properties: {
    readonly DatabaseName: string;
    readonly TableInput: {
      readonly Name: string;
      readonly TableType: string;
      readonly Parameters: Record<string, unknown>;
      readonly PartitionKeys: readonly { Name: string; Type: string }[];
      readonly StorageDescriptor: {
        readonly Columns: readonly { Name: string; Type: string; Comment: string }[];
        readonly InputFormat: string;
        readonly OutputFormat: string;
        readonly Location: unknown;
        readonly SerdeInfo: { SerializationLibrary: string };
      };
    };
  };
}
interface PolicyResource {
  readonly Properties: {
    readonly Roles: readonly unknown[];
    readonly PolicyDocument: { readonly Statement: readonly Record<string, unknown>[] };
  };
}

function bucketId(): string {
  const child = exportBucket.bucket.node.defaultChild;
  if (!(child instanceof CfnBucket)) throw new Error("no CfnBucket");
  return stack.getLogicalId(child);
}

function glueTables(): Record<string, GlueTableResource> {
  return template.findResources("AWS::Glue::Table") as Record<string, GlueTableResource>;
}

/** The statements of the policies attached to a role. */
function statementsOf(role: Role): readonly Record<string, unknown>[] {
  const roleId = stack.getLogicalId(role.node.defaultChild as CfnRole);
  return Object.values(template.findResources("AWS::IAM::Policy") as Record<string, PolicyResource>)
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

function objectArn(prefix: string) {
  return { "Fn::Join": ["", [{ "Fn::GetAtt": [bucketId(), "Arn"] }, `/${prefix}*`]] };
}

beforeAll(() => {
  stack = new Stack(new App(), "ExportProbe");
  exportBucket = new ExportBucket(stack, "Export");
  new ExportCatalog(stack, "Catalog", {
    exportBucket: exportBucket.bucket,
    databaseName: DEFAULT_EXPORT_SETTINGS.databaseName,
    bytesScannedCutoffPerQuery: DEFAULT_EXPORT_SETTINGS.bytesScannedCutoffPerQuery,
  });
  const job = new ExportJob(stack, "Job", {
    entry: exportJob.entry,
    projectRoot: REPOSITORY_ROOT,
    environment: { TABLE_NAME: "ats-table", EXPORT_BUCKET: exportBucket.bucket.bucketName },
    schedule: DEFAULT_EXPORT_SETTINGS.schedule,
    reservedConcurrency: DEFAULT_EXPORT_SETTINGS.reservedConcurrency,
  });
  exportBucket.grantExportWrite(job.handler.function);
  // On demand only, without reserved concurrency (an account at Lambda's default quota).
  new ExportJob(stack, "OnDemandJob", {
    entry: exportJob.entry,
    projectRoot: REPOSITORY_ROOT,
    environment: { TABLE_NAME: "ats-table-on-demand", EXPORT_BUCKET: exportBucket.bucket.bucketName },
    schedule: false,
    reservedConcurrency: false,
  });
  reader = new Role(stack, "Reader", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  exportBucket.grantExportRead(reader);
  template = Template.fromStack(stack);
}, SYNTH_TIMEOUT_MS);

describe("Glue catalog", () => {
  const glueType: Record<ExportColumnType, string> = {
    string: "string",
    bigint: "bigint",
    double: "double",
    boolean: "boolean",
    timestamp: "timestamp",
  };

  it("creates the database named by the setting (default ats_export)", () => {
    template.hasResourceProperties("AWS::Glue::Database", { DatabaseInput: { Name: "ats_export" } });
  });

  it("has one table per exported table, whose columns are EXPORT_TABLES' in order with their Glue types", () => {
    const tables = Object.values(glueTables());

    expect(tables.map((table) => table.Properties.TableInput.Name).sort()).toEqual([...EXPORT_TABLE_NAMES].sort());
    for (const name of EXPORT_TABLE_NAMES) {
      const table = tables.find((candidate) => candidate.Properties.TableInput.Name === name);
      expect(table?.Properties.DatabaseName).toBe("ats_export");
      expect(table?.Properties.TableInput.StorageDescriptor.Columns).toEqual(
        EXPORT_TABLES[name].map((column) => ({
          Name: column.name,
          Type: glueType[column.type],
          Comment: column.description,
        })),
      );
      expect(table?.Properties.TableInput.PartitionKeys).toEqual(
        EXPORT_PARTITION_KEYS.map((key) => ({ Name: key, Type: "string" })),
      );
    }
  });

  it("creates each table after the database", () => {
    const [databaseId] = Object.keys(template.findResources("AWS::Glue::Database"));
    const tables = template.findResources("AWS::Glue::Table") as Record<string, { DependsOn?: string[] }>;

    for (const table of Object.values(tables)) expect(table.DependsOn).toContain(databaseId);
  });

  it("reads Parquet (ZSTD) as external tables", () => {
    for (const table of Object.values(glueTables())) {
      const input = table.Properties.TableInput;
      expect(input.TableType).toBe("EXTERNAL_TABLE");
      expect(input.Parameters).toMatchObject({ classification: "parquet", "parquet.compression": "ZSTD" });
      expect(input.StorageDescriptor).toMatchObject({
        InputFormat: PARQUET_FORMAT.inputFormat,
        OutputFormat: PARQUET_FORMAT.outputFormat,
        SerdeInfo: { SerializationLibrary: PARQUET_FORMAT.serializationLibrary },
      });
    }
  });

  it("projects the partitions: org injected, env live or test, day a date since 2020, at the layout's paths", () => {
    for (const table of Object.values(glueTables())) {
      const input = table.Properties.TableInput;
      expect(input.Parameters).toMatchObject({
        "projection.enabled": "true",
        "projection.org.type": "injected",
        "projection.env.type": "enum",
        "projection.env.values": "live,test",
        "projection.day.type": "date",
        "projection.day.format": "yyyy-MM-dd",
        "projection.day.range": "2020-01-01,NOW",
      });
      expect(input.Parameters["storage.location.template"]).toEqual({
        "Fn::Join": ["", ["s3://", { Ref: bucketId() }, `/table=${input.Name}/org=\${org}/env=\${env}/day=\${day}/`]],
      });
      expect(input.StorageDescriptor.Location).toEqual({
        "Fn::Join": ["", ["s3://", { Ref: bucketId() }, `/table=${input.Name}/`]],
      });
    }
  });
});

describe("Athena workgroup", () => {
  it("enforces engine v3, a 10 GiB scan cutoff per query and SSE-S3 results in its own bucket", () => {
    template.hasResourceProperties("AWS::Athena::WorkGroup", {
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        EngineVersion: { SelectedEngineVersion: "Athena engine version 3" },
        BytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        ResultConfiguration: {
          EncryptionConfiguration: { EncryptionOption: "SSE_S3" },
          OutputLocation: Match.objectLike({ "Fn::Join": Match.anyValue() }),
        },
      },
    });
  });

  it("expires query results after 30 days", () => {
    template.hasResourceProperties("AWS::S3::Bucket", {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Id: "ExpireQueryResults", ExpirationInDays: 30 })]),
      },
    });
  });
});

describe("Export bucket", () => {
  it("is private, SSE-S3 encrypted, and refuses requests without TLS", () => {
    template.hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });

  it("lets the export function list it and read, write and delete only table=* and manifests/* objects", () => {
    const role = template.findResources("AWS::IAM::Role");
    const functionRole = Object.keys(role).find((id) => id.startsWith("JobFunctionRole"));
    const statements = Object.values(template.findResources("AWS::IAM::Policy") as Record<string, PolicyResource>)
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(String(functionRole)))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes("s3:"));

    expect(statements).toEqual([
      { Effect: "Allow", Action: "s3:ListBucket", Resource: { "Fn::GetAtt": [bucketId(), "Arn"] } },
      {
        Effect: "Allow",
        Action: ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"],
        Resource: [objectArn("table="), objectArn("manifests/")],
      },
    ]);
  });

  it("lets a reader (GET /api/exports) list only manifests/ and read only table=* and manifests/* objects", () => {
    expect(statementsOf(reader)).toEqual([
      {
        Effect: "Allow",
        Action: "s3:ListBucket",
        Resource: { "Fn::GetAtt": [bucketId(), "Arn"] },
        Condition: { StringLike: { "s3:prefix": ["manifests/*"] } },
      },
      { Effect: "Allow", Action: "s3:GetObject", Resource: [objectArn("table="), objectArn("manifests/")] },
    ]);
  });
});

describe("Export function and schedule", () => {
  it("runs the export handler on arm64 Node.js 24 with 2048 MB, 15 minutes, one at a time, told the table and bucket", () => {
    template.hasResourceProperties("AWS::Lambda::Function", {
      Architectures: ["arm64"],
      Runtime: "nodejs24.x",
      MemorySize: 2048,
      Timeout: 900,
      ReservedConcurrentExecutions: 1,
      Environment: { Variables: { TABLE_NAME: "ats-table", EXPORT_BUCKET: { Ref: bucketId() } } },
    });
    expect(path.basename(exportJob.entry)).toBe("export-handler.ts");
  });

  it("runs it every hour without retries (the next run picks up what a missed one would have)", () => {
    template.hasResourceProperties("AWS::Events::Rule", {
      ScheduleExpression: "rate(1 hour)",
      State: "ENABLED",
      Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 } })],
    });
  });

  it("creates the rule disabled when the schedule is off, and reserves no concurrency when told not to", () => {
    const functions = Object.values(
      template.findResources("AWS::Lambda::Function") as Record<
        string,
        { Properties: { Environment: { Variables: Record<string, unknown> }; ReservedConcurrentExecutions?: number } }
      >,
    );
    const onDemand = functions.find((fn) => fn.Properties.Environment.Variables.TABLE_NAME === "ats-table-on-demand");

    expect(onDemand?.Properties.ReservedConcurrentExecutions).toBeUndefined();
    template.hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "rate(1 hour)", State: "DISABLED" });
    template.resourceCountIs("AWS::Events::Rule", 2);
  });

  it("leaves no cdk-nag finding unacknowledged", () => {
    const findings = awsSolutionsFindings(stack);
    expect(findings.errors).toEqual([]);
    expect(findings.warnings).toEqual([]);
  });
});

describe("exportSettings", () => {
  const scope = (context: Record<string, unknown>) => new Stack(new App({ context }), "Settings");

  it("takes the props first, then the context, then the defaults", () => {
    expect(exportSettings(scope({}))).toEqual(DEFAULT_EXPORT_SETTINGS);
    const fromContext = exportSettings(
      scope({
        exportDatabase: "analytics",
        exportScheduleMinutes: "15",
        exportBytesScannedCutoffGb: "2",
        exportReservedConcurrency: "0",
      }),
    );
    expect(fromContext).toMatchObject({
      databaseName: "analytics",
      bytesScannedCutoffPerQuery: 2 * 1024 ** 3,
      reservedConcurrency: false,
    });
    expect(fromContext.schedule === false ? 0 : fromContext.schedule.toMinutes()).toBe(15);
    expect(exportSettings(scope({ exportScheduleMinutes: 0 })).schedule).toBe(false);
    expect(exportSettings(scope({ exportDatabase: "analytics" }), { databaseName: "mine" }).databaseName).toBe("mine");
    expect(exportSettings(scope({}), { schedule: Duration.minutes(30) }).schedule).toEqual(Duration.minutes(30));
  });

  it.each([
    [{ exportDatabase: "Ats-Export" }, "lower case letters, digits and underscores"],
    [{ exportBytesScannedCutoffGb: "0" }, "at least 10 MB"],
    [{ exportScheduleMinutes: "hourly" }, "Context exportScheduleMinutes must be a whole number"],
  ])("refuses %j", (context, message) => {
    expect(() => exportSettings(scope(context))).toThrow(message);
  });
});
