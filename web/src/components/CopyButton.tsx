/** Copies a text to the clipboard and says so (to screen readers too); the note clears itself. */
import { useTransient } from "../lib/use-transient";

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useTransient<"copied" | "failed">();
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
  }
  return (
    <span className="copy">
      <button type="button" className="button" onClick={copy}>
        {label}
      </button>
      <span className="copy__status" role="status">
        {state === "copied"
          ? "Copied to the clipboard"
          : state === "failed"
            ? "Copy failed: select the text and copy it"
            : ""}
      </span>
    </span>
  );
}
