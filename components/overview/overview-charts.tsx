"use client";

import type { ReactNode } from "react";
import { formatMicros } from "@/lib/domain/money";
import { AGE_BUCKETS } from "@/lib/domain/overview-age-buckets";
import type { OverviewStats } from "@/lib/services/overview/overview-stats";

// Two small charts drawn as plain SVG: a charting library cost the overview more browser
// JavaScript than everything else on the page (docs/performance.md, section 6). Distinct colours
// plus distinct opacity and dash patterns and a legend with names, so series can be told apart
// without colour; every bar and point names its value on hover, and the numbers are also in the
// table above the charts.
const STAGE_STYLE: Record<string, { fill: string; opacity: number }> = {
  submission_uncertain: { fill: "#b91c1c", opacity: 1 },
  polling: { fill: "#1d4ed8", opacity: 0.85 },
  delivery: { fill: "#b45309", opacity: 0.7 },
  generation_failed: { fill: "#334155", opacity: 0.55 },
};
const DASHES = [undefined, "6 3", "2 3", "10 4 2 4"];
const WIDTH = 560;
const HEIGHT = 240;
const PLOT = { left: 84, right: 12, top: 12, bottom: 28 };

/** Round numbers for an axis from 0 to at least `max`. */
function ticks(max: number, count = 4): number[] {
  if (max <= 0) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}

function Legend({ items }: { items: { name: string; swatch: ReactNode }[] }) {
  return (
    <ul className="mt-1 flex flex-wrap gap-4 text-xs">
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

function Axis({ values, top, label }: { values: number[]; top: number; label: (value: number) => string }) {
  const y = (value: number) => PLOT.top + (HEIGHT - PLOT.top - PLOT.bottom) * (1 - value / top);
  return (
    <g className="text-[10px]" fill="#334155">
      {values.map((value) => (
        <g key={value}>
          <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(value)} y2={y(value)} stroke="#e2e8f0" />
          <text x={PLOT.left - 4} y={y(value) + 3} textAnchor="end">
            {label(value)}
          </text>
        </g>
      ))}
    </g>
  );
}

export function AgeBucketChart({ stats }: { stats: OverviewStats }) {
  const stages = [...new Set(stats.ageBuckets.map((b) => b.stage))];
  const count = (bucket: string, stage: string) =>
    stats.ageBuckets.find((b) => b.bucket === bucket && b.stage === stage)?.count ?? 0;
  const totals = AGE_BUCKETS.map((bucket) => stages.reduce((sum, stage) => sum + count(bucket, stage), 0));
  const axis = ticks(Math.max(1, ...totals));
  const top = axis.at(-1) ?? 1;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = (WIDTH - PLOT.left - PLOT.right) / AGE_BUCKETS.length;
  return (
    <figure aria-label="Open cases by age and stage">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-60 w-full" role="img" aria-label="Stacked bars">
        <Axis values={axis} top={top} label={(value) => value.toLocaleString("en-US")} />
        {AGE_BUCKETS.map((bucket, i) => {
          let base = 0;
          const x = PLOT.left + i * slot + slot * 0.2;
          return (
            <g key={bucket}>
              {stages.map((stage) => {
                const n = count(bucket, stage);
                const height = (n / top) * plotHeight;
                base += height;
                const style = STAGE_STYLE[stage];
                return n > 0 ? (
                  <rect
                    key={stage}
                    x={x}
                    y={PLOT.top + plotHeight - base}
                    width={slot * 0.6}
                    height={height}
                    fill={style?.fill ?? "#64748b"}
                    fillOpacity={style?.opacity ?? 1}
                  >
                    <title>{`${bucket}, ${stage}: ${n.toLocaleString("en-US")}`}</title>
                  </rect>
                ) : null;
              })}
              <text x={x + slot * 0.3} y={HEIGHT - 10} textAnchor="middle" className="text-[11px]" fill="#334155">
                {bucket}
              </text>
            </g>
          );
        })}
      </svg>
      <Legend
        items={stages.map((stage) => ({
          name: stage,
          swatch: (
            <rect
              width="18"
              height="10"
              fill={STAGE_STYLE[stage]?.fill ?? "#64748b"}
              fillOpacity={STAGE_STYLE[stage]?.opacity ?? 1}
            />
          ),
        }))}
      />
    </figure>
  );
}

export function HeldOverTimeChart({ stats }: { stats: OverviewStats }) {
  const currencies = [...new Set(stats.heldOverTime.map((p) => p.currency))];
  const days = [...new Set(stats.heldOverTime.map((p) => p.day))];
  const micros = (day: string, currency: string) =>
    stats.heldOverTime.find((p) => p.day === day && p.currency === currency)?.micros ?? 0;
  const axis = ticks(Math.max(1, ...stats.heldOverTime.map((p) => p.micros)));
  const top = axis.at(-1) ?? 1;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const step = (WIDTH - PLOT.left - PLOT.right) / Math.max(1, days.length - 1);
  const x = (i: number) => PLOT.left + i * step;
  const y = (value: number) => PLOT.top + plotHeight * (1 - value / top);
  return (
    <figure aria-label="Money on hold over the last 14 days">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-60 w-full" role="img" aria-label="Lines per currency">
        <Axis values={axis} top={top} label={(value) => formatMicros(value, currencies[0] ?? "USD")} />
        {days.map((day, i) =>
          i % 2 === 0 ? (
            <text key={day} x={x(i)} y={HEIGHT - 10} textAnchor="middle" className="text-[10px]" fill="#334155">
              {day.slice(5)}
            </text>
          ) : null,
        )}
        {currencies.map((currency, c) => (
          <g key={currency}>
            <polyline
              points={days.map((day, i) => `${x(i)},${y(micros(day, currency))}`).join(" ")}
              fill="none"
              stroke="#1d4ed8"
              strokeWidth="2"
              strokeDasharray={DASHES[c % DASHES.length]}
            />
            {days.map((day, i) => (
              <circle key={day} cx={x(i)} cy={y(micros(day, currency))} r="3" fill="#1d4ed8">
                <title>{`${day}: ${formatMicros(micros(day, currency), currency)}`}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <Legend
        items={currencies.map((currency, c) => ({
          name: currency,
          swatch: (
            <line
              x1="0"
              x2="18"
              y1="5"
              y2="5"
              stroke="#1d4ed8"
              strokeWidth="2"
              strokeDasharray={DASHES[c % DASHES.length]}
            />
          ),
        }))}
      />
    </figure>
  );
}
