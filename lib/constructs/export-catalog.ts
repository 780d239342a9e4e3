import { Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { CfnWorkGroup } from "aws-cdk-lib/aws-athena";
import { CfnDatabase, CfnTable } from "aws-cdk-lib/aws-glue";
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import {
  EXPORT_PARTITION_KEYS,
  EXPORT_TABLE_NAMES,
  EXPORT_TABLES,
  type ExportColumnType,
  type ExportTableName,
} from "../../functions/export/export-tables.js";

/** Glue (Hive) type of each exported column type: Parquet INT64 → bigint, INT64 TIMESTAMP(MILLIS, UTC) → timestamp. */
export const GLUE_COLUMN_TYPES: Readonly<Record<ExportColumnType, string>> = {
  string: "string",
  bigint: "bigint",
  double: "double",
  boolean: "boolean",
  timestamp: "timestamp",
};

/** The Parquet SerDe and formats of every export table. */
export const PARQUET_FORMAT = {
  inputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
  outputFormat: "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
  serializationLibrary: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
} as const;

/** How long Athena's query results are kept in the results bucket. */
export const ATHENA_RESULTS_RETENTION = Duration.days(30);

/** Why the Athena results bucket has no server access logs (AwsSolutions-S1); exported for the test. */
export const RESULTS_ACCESS_LOGS_REASON =
  "Server access logging is off by decision: the bucket holds only Athena's query results of the export workgroup (written by Athena on behalf of whoever ran the query, expired after 30 days), and every query is already recorded by Athena's own query history and CloudTrail (who ran which SQL, when, bytes scanned). Access logs would add a second bucket and one object per result read while recording nothing more.";

/**
 * Partition projection (docs/export.md, "On AWS"): Athena computes the partitions from the query instead of a
 * crawler or `MSCK REPAIR`. `org` is injected (organisation ids are not known at deploy time, so every query
 * names `org = '…'`), `env` an enum, `day` a date from 2020-01-01 to today.
 */
export function projectionParameters(bucketName: string, table: ExportTableName): Record<string, string> {
  return {
    "projection.enabled": "true",
    "projection.org.type": "injected",
    "projection.env.type": "enum",
    "projection.env.values": "live,test",
    "projection.day.type": "date",
    "projection.day.format": "yyyy-MM-dd",
    "projection.day.range": "2020-01-01,NOW",
    "projection.day.interval": "1",
    "projection.day.interval.unit": "DAYS",
    "storage.location.template": `s3://${bucketName}/table=${table}/org=\${org}/env=\${env}/day=\${day}/`,
  };
}

/** Properties of {@link ExportCatalog}. */
export interface ExportCatalogProps {
  /** The export bucket the tables read (only its name is needed). */
  readonly exportBucket: Pick<IBucket, "bucketName">;
  readonly databaseName: string;
  readonly bytesScannedCutoffPerQuery: number;
}

/**
 * What Athena needs to query the export: a Glue database with one table per exported table (the columns of
 * functions/export/export-tables.ts, Parquet, partitioned `org`/`env`/`day` with projection, no crawler), and a
 * workgroup (engine v3, its settings enforced on every query, results SSE-S3 in a bucket of its own that expires
 * them, and a bytes-scanned cutoff per query).
 */
export class ExportCatalog extends Construct {
  readonly database: CfnDatabase;
  readonly tables: ReadonlyMap<ExportTableName, CfnTable>;
  readonly resultsBucket: Bucket;
  readonly workGroup: CfnWorkGroup;

  constructor(scope: Construct, id: string, props: ExportCatalogProps) {
    super(scope, id);
    const account = Stack.of(this).account;
    const bucketName = props.exportBucket.bucketName;

    this.database = new CfnDatabase(this, "Database", {
      catalogId: account,
      databaseInput: {
        name: props.databaseName,
        description: "The Agent Tracking Service's export: sessions, events, scores and conversations (docs/export.md)",
      },
    });

    const tables = new Map<ExportTableName, CfnTable>();
    for (const table of EXPORT_TABLE_NAMES) {
      const cfnTable = new CfnTable(this, `Table-${table}`, {
        catalogId: account,
        databaseName: props.databaseName,
        tableInput: {
          name: table,
          description: `The export's ${table} (docs/export.md)`,
          tableType: "EXTERNAL_TABLE",
          parameters: {
            classification: "parquet",
            EXTERNAL: "TRUE",
            "parquet.compression": "ZSTD",
            ...projectionParameters(bucketName, table),
          },
          partitionKeys: EXPORT_PARTITION_KEYS.map((name) => ({ name, type: "string" })),
          storageDescriptor: {
            location: `s3://${bucketName}/table=${table}/`,
            inputFormat: PARQUET_FORMAT.inputFormat,
            outputFormat: PARQUET_FORMAT.outputFormat,
            serdeInfo: {
              serializationLibrary: PARQUET_FORMAT.serializationLibrary,
              parameters: { "serialization.format": "1" },
            },
            columns: EXPORT_TABLES[table].map((column) => ({
              name: column.name,
              type: GLUE_COLUMN_TYPES[column.type],
              comment: column.description.slice(0, 255),
            })),
          },
        },
      });
      cfnTable.node.addDependency(this.database);
      tables.set(table, cfnTable);
    }
    this.tables = tables;

    this.resultsBucket = new Bucket(this, "AthenaResults", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [
        {
          id: "ExpireQueryResults",
          expiration: ATHENA_RESULTS_RETENTION,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Results are disposable, but a bucket with objects cannot be deleted with the stack: kept, and emptied by
      // its lifecycle within 30 days.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.resultsBucket).acknowledge({ id: "AwsSolutions-S1", reason: RESULTS_ACCESS_LOGS_REASON });

    this.workGroup = new CfnWorkGroup(this, "WorkGroup", {
      // Unique per stack (two stages in one account do not clash); the Glue database name is a setting.
      name: `${Stack.of(this).stackName}-export`,
      description: "Queries of the Agent Tracking Service's export (docs/export.md, docs/sql.md)",
      state: "ENABLED",
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        engineVersion: { selectedEngineVersion: "Athena engine version 3" },
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery,
        publishCloudWatchMetricsEnabled: true,
        resultConfiguration: {
          outputLocation: `s3://${this.resultsBucket.bucketName}/results/`,
          encryptionConfiguration: { encryptionOption: "SSE_S3" },
        },
      },
    });
  }
}
