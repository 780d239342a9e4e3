import type { ReactNode } from "react";

/** Nothing to show yet, and what to do about it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state--empty">
      <p className="state__title">{title}</p>
      {children === undefined ? null : <div className="state__body">{children}</div>}
    </div>
  );
}
