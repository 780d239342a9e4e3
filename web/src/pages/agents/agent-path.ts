/**
 * An agent name as a path segment, its dots encoded too: CloudFront's routing rule (and npm start's) takes a last
 * segment with a dot for a file (`gpt-4.1-bot`), while `%2E` reaches the console's router, which decodes it.
 */
export function agentPathSegment(agentName: string): string {
  return encodeURIComponent(agentName).replaceAll(".", "%2E");
}
