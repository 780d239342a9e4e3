// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, test, vi } from "vitest";
import { DayBars } from "../../web/src/components/DayBars";
import { estimatedLabelWidth, labelledIndices, proportionalLabels } from "../../web/src/lib/axis-labels";
import { dailySeries } from "../../web/src/lib/stats-period";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A browser whose elements are all `width` pixels wide, as ResizeObserver reports them. */
function stubElementWidth(width: number) {
  vi.stubGlobal(
    "ResizeObserver",
    class {
      readonly #callback: ResizeObserverCallback;
      constructor(callback: ResizeObserverCallback) {
        this.#callback = callback;
      }
      observe(target: Element) {
        const entry = { target, contentRect: { width } } as unknown as ResizeObserverEntry;
        this.#callback([entry], this as unknown as ResizeObserver);
      }
      unobserve() {}
      disconnect() {}
    },
  );
}

const gaps = (indices: readonly number[]) => indices.slice(1).map((index, at) => index - (indices[at] ?? 0));

describe("which days of a chart carry a label", () => {
  test("30 days: the first, the last and evenly spread days between, never closer than the labels' width allows", () => {
    // 16 px between neighbouring days' labels, labels 40 px wide + 8 px apart: at least 3 days between labels.
    const indices = labelledIndices(30, 16, 40);
    expect(indices).toEqual([0, 3, 6, 10, 13, 16, 19, 23, 26, 29]);
    expect(Math.min(...gaps(indices))).toBeGreaterThanOrEqual(3);
    // Every day when they fit; the first and the last always.
    expect(labelledIndices(7, 60, 40)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(labelledIndices(366, 0.8, 60)).toEqual(expect.arrayContaining([0, 365]));
    expect(Math.min(...gaps(labelledIndices(366, 0.8, 60)))).toBeGreaterThanOrEqual(85);
  });

  test("one day is one label; when even the first and the last would overlap, only the first", () => {
    expect(labelledIndices(1, 10, 40)).toEqual([0]);
    expect(labelledIndices(0, 10, 40)).toEqual([]);
    expect(labelledIndices(3, 10, 40)).toEqual([0]);
    expect(labelledIndices(30, -5, 40)).toEqual([0]);
  });

  test("labels placed in proportion to their day share the width less one label; unmeasured, the first and the last", () => {
    expect(proportionalLabels(30, undefined, 40)).toEqual([0, 29]);
    // (520 − 40) / 30 = 16 px between neighbouring labels.
    expect(proportionalLabels(30, 520, 40)).toEqual(labelledIndices(30, 16, 40));
  });

  test("a label's width errs wide: 0.68 em a character", () => {
    expect(estimatedLabelWidth("26 Nov", 12)).toBeCloseTo(48.96);
  });
});

describe("DayBars", () => {
  const series = dailySeries({ from: "2026-10-28", to: "2026-11-26", days: [] });
  const labels = () => [...document.querySelectorAll(".daybars__tick")].map((tick) => tick.textContent);
  const renderBars = () =>
    render(
      <DayBars
        title="Sessions per day"
        series={series}
        value={(point) => point.sessions}
        format={String}
        describe={(point) => String(point.sessions)}
      />,
    );

  test("30 days at 1280 px (a plot 480 px wide): labels spread from the first day to the last, no two neighbours", () => {
    stubElementWidth(480);
    renderBars();
    expect(screen.getByText("Sessions per day")).toBeTruthy();
    // "28 Oct" is 6 characters at 11.2 px: 45.7 px + 8 px apart, (480 − 45.7) / 30 = 14.5 px a day: every 4th day.
    expect(labels()).toEqual(["28 Oct", "1 Nov", "5 Nov", "9 Nov", "14 Nov", "18 Nov", "22 Nov", "26 Nov"]);
  });

  test("30 days on a phone (a plot 290 px wide): fewer labels, still the first and the last", () => {
    stubElementWidth(290);
    renderBars();
    expect(labels()).toEqual(["28 Oct", "4 Nov", "12 Nov", "19 Nov", "26 Nov"]);
  });

  test("each label sits in proportion to its day: the first flush left, the last flush right", () => {
    stubElementWidth(480);
    renderBars();
    const ticks = [...document.querySelectorAll<HTMLElement>(".daybars__tick")];
    const first = ticks[0];
    const last = ticks.at(-1);
    expect([first?.style.left, first?.style.transform]).toEqual(["1.66667%", "translateX(-1.66667%)"]);
    expect([last?.style.left, last?.style.transform]).toEqual(["98.3333%", "translateX(-98.3333%)"]);
  });
});
