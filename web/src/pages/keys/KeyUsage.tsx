/**
 * How to use a new key: the environment variables of the SDK and of an OpenTelemetry exporter, with this key and
 * this deployment's URL (the console and the API share an origin), ready to copy.
 */
import type { Scope } from "../../api/types";
import { CopyButton } from "../../components/CopyButton";

function Snippet({ title, lines, note }: { title: string; lines: string[]; note: string }) {
  const text = lines.join("\n");
  return (
    <div className="snippet">
      <div className="snippet__header">
        <h3 className="snippet__title">{title}</h3>
        <CopyButton text={text} label={`Copy ${title} variables`} />
      </div>
      {/* Long lines (a key in a header) wrap, each continuation indented under its line: nothing is cut off. */}
      <pre className="snippet__code">
        {lines.map((line, index) => (
          <span key={line} className="snippet__line">
            {index < lines.length - 1 ? `${line}\n` : line}
          </span>
        ))}
      </pre>
      <p className="muted snippet__note">{note}</p>
    </div>
  );
}

export function KeyUsage({
  apiKey,
  scopes,
  origin = window.location.origin,
}: {
  apiKey: string;
  scopes: readonly Scope[];
  origin?: string;
}) {
  const canRecord = scopes.includes("sessions:write") && scopes.includes("events:write");
  const canExport = scopes.includes("events:write");
  return (
    <section className="key-usage" aria-labelledby="key-usage-title">
      <h3 id="key-usage-title" className="key-usage__title">
        Use it
      </h3>
      <Snippet
        title="SDK"
        lines={[`export ATS_BASE_URL="${origin}"`, `export ATS_API_KEY="${apiKey}"`]}
        note={
          canRecord
            ? "The SDK reads these when it is created without options."
            : "This key lacks sessions:write or events:write: the SDK cannot record runs with it."
        }
      />
      <Snippet
        title="OpenTelemetry"
        lines={[
          `export OTEL_EXPORTER_OTLP_ENDPOINT="${origin}/api/otel"`,
          `export OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer%20${apiKey}"`,
          `export OTEL_EXPORTER_OTLP_PROTOCOL="http/protobuf"`,
        ]}
        note={
          canExport
            ? "For an OTLP/HTTP trace exporter (protobuf or JSON; gRPC is not served). The %20 is the space after Bearer."
            : "This key lacks events:write: trace exports with it are refused."
        }
      />
    </section>
  );
}
