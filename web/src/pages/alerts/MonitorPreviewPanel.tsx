/** The form's live preview: the figure of what is filled in so far, asked for once typing pauses. */
import { useMemo } from "react";
import type { MonitorDefinition } from "../../api/alert-types";
import { useMonitorPreview } from "../../api/alerts";
import { InlineError } from "../../components/ErrorState";
import { useEnvironment } from "../../lib/environment";
import { useDebounced } from "../../lib/use-debounced";
import { PreviewChart } from "./PreviewChart";

/** How long the form must rest before its preview is asked for. */
export const PREVIEW_DEBOUNCE_MS = 400;

export function MonitorPreviewPanel({ definition }: { definition: MonitorDefinition | null }) {
  const [environment] = useEnvironment();
  // Debounced as text: a new object each render would restart the wait for ever.
  const settledText = useDebounced(definition === null ? null : JSON.stringify(definition), PREVIEW_DEBOUNCE_MS);
  const settled = useMemo(
    () => (settledText === null ? null : (JSON.parse(settledText) as MonitorDefinition)),
    [settledText],
  );
  const preview = useMonitorPreview(environment, settled);
  return (
    <section className="monitor-form__preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      {definition === null ? (
        <p className="muted">Fill in the metric, its filters, the window and the thresholds to see the figure.</p>
      ) : null}
      {definition !== null && preview.isError ? <InlineError error={preview.error} /> : null}
      {definition !== null && preview.isPending ? (
        <p className="muted" role="status">
          Reading the last 72 hours…
        </p>
      ) : null}
      {definition !== null && settled !== null && preview.data !== undefined ? (
        <div className={preview.isFetching ? "monitor-form__chart--stale" : undefined}>
          <PreviewChart definition={settled} preview={preview.data} />
        </div>
      ) : null}
    </section>
  );
}
