/**
 * Which slots of a chart's axis carry a label (a per-day chart's days), so that labels never overlap: chosen from
 * the axis's width, the number of slots and the labels' width. Pure.
 */

/** The space kept between two labels, in pixels. */
export const LABEL_GAP_PX = 8;

/**
 * A label's width in pixels, estimated from its length: 0.68 em a character holds the console's fonts' digits and
 * letters, bold included (DejaVu Sans Bold's "26 Nov" is 3.9 em), so an estimate errs wide, never narrow.
 */
export function estimatedLabelWidth(text: string, fontPx: number): number {
  return text.length * fontPx * 0.68;
}

/**
 * The indices of `count` evenly spaced slots to label: the first and the last always, and as many between as keep
 * labels `gap` apart when neighbouring slots' labels are `pitch` pixels apart (centre to centre for centred labels):
 * N the fewest slots between two labels that fit, the labels are spread evenly from the first to the last, at
 * least N apart (every Nth, or a slot more here and there, so the last is not squeezed against the one before it).
 * When even the first and the last would overlap, only the first is labelled.
 */
export function labelledIndices(count: number, pitch: number, labelWidth: number, gap = LABEL_GAP_PX): number[] {
  if (count <= 0) return [];
  if (count === 1) return [0];
  const step = pitch > 0 ? Math.max(1, Math.ceil((labelWidth + gap) / pitch)) : Number.POSITIVE_INFINITY;
  const last = count - 1;
  if (step > last) return [0];
  const intervals = Math.floor(last / step);
  return Array.from({ length: intervals + 1 }, (_, interval) => Math.round((interval * last) / intervals));
}

/**
 * The labels of a row of `count` slots filling `width` pixels, each label placed proportionally to its position
 * (`left: x %; translateX(−x %)`: the first flush left, the last flush right, none past the axis's ends). Such a
 * label's left edge is at x × (width − labelWidth), so neighbouring labels are (width − labelWidth) / count apart.
 * Without a width (not measured yet), the first and the last.
 */
export function proportionalLabels(count: number, width: number | undefined, labelWidth: number): number[] {
  if (width === undefined) return count <= 1 ? labelledIndices(count, 0, 0) : [0, count - 1];
  return labelledIndices(count, (width - labelWidth) / count, labelWidth);
}
