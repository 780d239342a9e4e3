/**
 * The DynamoDB document client and table name, built once per container.
 * `DYNAMODB_ENDPOINT` points it at DynamoDB Local; on AWS it is unset.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { optionalEnv, requireEnv } from "../../runtime/env.js";

export const tableName = requireEnv("TABLE_NAME");

const endpoint = optionalEnv("DYNAMODB_ENDPOINT");

export const documentClient = DynamoDBDocumentClient.from(
  new DynamoDBClient(endpoint === undefined ? {} : { endpoint }),
  { marshallOptions: { removeUndefinedValues: true } },
);
