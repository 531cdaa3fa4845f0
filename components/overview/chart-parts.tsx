"use client";

import { type KeyboardEvent, type ReactNode, useRef, useState } from "react";

// The pieces both overview charts are drawn from. Plain SVG coloured by Tailwind classes, so the
// palette variables of app/globals.css colour them in either scheme (decision 024 says why no
// chart library).
export const WIDTH = 560;
export const HEIGHT = 260;
export const PLOT = { left: 84, right: 16, top: 16, bottom: 48 };
export const PLOT_HEIGHT = HEIGHT - PLOT.top - PLOT.bottom;
export const PLOT_WIDTH = WIDTH - PLOT.left - PLOT.right;

/** Round numbers for an axis from 0 to at least `max`. */
export function ticks(max: number, count = 4): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}

/** Grid lines with their values, and the titles of both axes (what is counted, in what unit). */
export function Axes({
  values,
  top,
  label,
  yTitle,
  xTitle,
}: {
  values: number[];
  top: number;
  label: (value: number) => string;
  yTitle: string;
  xTitle: string;
}) {
  const y = (value: number) => PLOT.top + PLOT_HEIGHT * (1 - value / top);
  return (
    <g className="fill-slate-700 text-[11px]">
      {values.map((value) => (
        <g key={value}>
          <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(value)} y2={y(value)} className="stroke-slate-200" />
          <text x={PLOT.left - 4} y={y(value) + 3} textAnchor="end">
            {label(value)}
          </text>
        </g>
      ))}
      <text
        data-testid="y-axis-title"
        transform={`translate(16 ${PLOT.top + PLOT_HEIGHT / 2}) rotate(-90)`}
        textAnchor="middle"
        className="text-xs font-semibold"
      >
        {yTitle}
      </text>
      <text
        data-testid="x-axis-title"
        x={PLOT.left + PLOT_WIDTH / 2}
        y={HEIGHT - 6}
        textAnchor="middle"
        className="text-xs font-semibold"
      >
        {xTitle}
      </text>
    </g>
  );
}

export function Legend({ items }: { items: { name: string; swatch: ReactNode }[] }) {
  return (
    <ul className="mt-1 flex flex-wrap gap-4 text-xs" aria-label="Legend">
      {items.map((item) => (
        <li key={item.name} className="flex items-center gap-1">
          <svg width="18" height="10" aria-hidden="true">
            {item.swatch}
          </svg>
          {item.name}
        </li>
      ))}
    </ul>
  );
}

/** What one mark of a chart says: its series, its time (or bucket) and its value. */
export type ChartPoint = { series: string; time: string; value: string; x: number; y: number };

/**
 * A box next to the active mark naming its series, time and value. Drawn inside the SVG, placed by
 * attributes, so it needs no inline style (the Content-Security-Policy allows none) and scales with
 * the chart. Hidden from screen readers: the focused mark's own name already says the same.
 */
export function ChartTooltip({ point }: { point: ChartPoint | null }) {
  if (!point) return null;
  const lines = [point.series, `${point.time}: ${point.value}`];
  const width = Math.max(...lines.map((line) => line.length)) * 6.2 + 16;
  const height = 38;
  const x = Math.min(Math.max(point.x - width / 2, 2), WIDTH - width - 2);
  const above = point.y - height - 10;
  const y = above >= 2 ? above : point.y + 12;
  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a <g> without tabIndex is not focusable
    <g data-testid="chart-tooltip" aria-hidden="true" transform={`translate(${x} ${y})`} pointerEvents="none">
      <rect width={width} height={height} rx="4" className="fill-white stroke-slate-400" />
      <text x="8" y="15" className="fill-slate-900 text-[11px] font-semibold">
        {lines[0]}
      </text>
      <text x="8" y="30" className="fill-slate-900 text-[11px]">
        {lines[1]}
      </text>
    </g>
  );
}

/**
 * Hover and keyboard for a chart's marks. One mark at a time is in the tab order (the last, until
 * another is chosen); the arrow keys, Home and End move between marks, Escape hides the tooltip.
 * The active mark (hovered or focused) is the one the tooltip describes.
 */
export function usePointNavigation(count: number) {
  const [active, setActive] = useState<number | null>(null);
  const [current, setCurrent] = useState<number | null>(null);
  const marks = useRef<(SVGElement | null)[]>([]);
  const focusable = Math.min(current ?? count - 1, count - 1);
  const move = (event: KeyboardEvent, index: number) => {
    const next = {
      ArrowRight: index + 1,
      ArrowDown: index + 1,
      ArrowLeft: index - 1,
      ArrowUp: index - 1,
      Home: 0,
      End: count - 1,
    }[event.key];
    if (event.key === "Escape") setActive(null);
    if (next === undefined) return;
    event.preventDefault();
    const target = Math.min(Math.max(next, 0), count - 1);
    setCurrent(target);
    marks.current[target]?.focus();
  };
  return {
    active,
    markProps: (index: number) => ({
      ref: (element: SVGElement | null) => {
        marks.current[index] = element;
      },
      tabIndex: index === focusable ? 0 : -1,
      onFocus: () => {
        setCurrent(index);
        setActive(index);
      },
      onBlur: () => setActive(null),
      onMouseEnter: () => setActive(index),
      // A mark that has the keyboard's focus keeps its tooltip when the pointer passes over it.
      onMouseLeave: () => {
        if (document.activeElement !== marks.current[index]) setActive(null);
      },
      onKeyDown: (event: KeyboardEvent) => move(event, index),
    }),
  };
}
