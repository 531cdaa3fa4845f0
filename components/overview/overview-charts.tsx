"use client";

import { STAGE_LABEL } from "@/components/ui/labels";
import { moneyText } from "@/components/ui/money";
import { formatMicros, MICROS_PER_UNIT, totalAsNumber } from "@/lib/domain/money";
import { AGE_BUCKETS } from "@/lib/domain/overview-age-buckets";
import type { Stage } from "@/lib/domain/stages";
import type { OverviewStats } from "@/lib/services/overview/overview-stats";
import {
  Axes,
  type ChartPoint,
  ChartTooltip,
  HEIGHT,
  Legend,
  PLOT,
  PLOT_HEIGHT,
  PLOT_WIDTH,
  ticks,
  usePointNavigation,
  WIDTH,
} from "./chart-parts";

// Two small charts drawn as plain SVG: a charting library cost the overview more browser
// JavaScript than everything else on the page (docs/performance.md, section 6; decision 024).
// Series differ in colour and also in opacity or dash pattern, with a legend, so they can be told
// apart without colour; every mark names its series, time and value in a tooltip on hover and on
// keyboard focus; the numbers are also in a table for screen readers.
const STAGE_STYLE: Record<string, { className: string; opacity: number }> = {
  submission_uncertain: { className: "fill-red-700", opacity: 1 },
  polling: { className: "fill-brand", opacity: 0.85 },
  delivery: { className: "fill-amber-700", opacity: 0.7 },
  generation_failed: { className: "fill-slate-700", opacity: 0.55 },
};
const OTHER_STAGE = { className: "fill-slate-500", opacity: 1 };
const DASHES = [undefined, "6 3", "2 3", "10 4 2 4"];
const MARK = "cursor-default";

const stageName = (stage: string) => STAGE_LABEL[stage as Stage]?.label ?? stage;
const DAY = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
const dayName = (day: string) => DAY.format(new Date(`${day}T00:00:00Z`));

export function AgeBucketChart({ stats }: { stats: OverviewStats }) {
  const stages = [...new Set(stats.ageBuckets.map((b) => b.stage))];
  const count = (bucket: string, stage: string) =>
    stats.ageBuckets.find((b) => b.bucket === bucket && b.stage === stage)?.count ?? 0;
  const totals = AGE_BUCKETS.map((bucket) => stages.reduce((sum, stage) => sum + count(bucket, stage), 0));
  const axis = ticks(Math.max(1, ...totals));
  const top = axis.at(-1) ?? 1;
  const slot = PLOT_WIDTH / AGE_BUCKETS.length;
  const bars = AGE_BUCKETS.flatMap((bucket, i) => {
    let base = 0;
    return stages.flatMap((stage) => {
      const n = count(bucket, stage);
      if (n === 0) return [];
      const height = (n / top) * PLOT_HEIGHT;
      base += height;
      const x = PLOT.left + i * slot + slot * 0.2;
      const y = PLOT.top + PLOT_HEIGHT - base;
      const point: ChartPoint = {
        series: stageName(stage),
        time: `${bucket} old`,
        value: `${n.toLocaleString("en-US")} ${n === 1 ? "case" : "cases"}`,
        x: x + slot * 0.3,
        y,
      };
      return [{ key: `${bucket}-${stage}`, stage, x, y, height, point }];
    });
  });
  const { active, markProps } = usePointNavigation(bars.length);
  return (
    <figure aria-label="Open cases by age and stage">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-64 w-full"
        aria-label="Stacked bars of open cases per age bucket; arrow keys move between bars"
      >
        <Axes
          values={axis}
          top={top}
          label={(value) => value.toLocaleString("en-US")}
          yTitle="Open cases"
          xTitle="Age (time since the case opened)"
        />
        {AGE_BUCKETS.map((bucket, i) => (
          <text
            key={bucket}
            x={PLOT.left + i * slot + slot * 0.5}
            y={HEIGHT - 26}
            textAnchor="middle"
            className="fill-slate-700 text-[11px]"
          >
            {bucket}
          </text>
        ))}
        {bars.map((bar, index) => {
          const style = STAGE_STYLE[bar.stage] ?? OTHER_STAGE;
          return (
            // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a chart mark takes focus to show its value (WAI-ARIA Graphics)
            <g
              key={bar.key}
              {...markProps(index)}
              role="graphics-symbol"
              aria-label={`${bar.point.series}, ${bar.point.time}: ${bar.point.value}`}
              className={MARK}
            >
              <rect
                x={bar.x}
                y={bar.y}
                width={slot * 0.6}
                height={bar.height}
                fillOpacity={style.opacity}
                strokeWidth={active === index ? 2 : 0}
                className={`${style.className} stroke-slate-900`}
              />
            </g>
          );
        })}
        <ChartTooltip point={active === null ? null : (bars[active]?.point ?? null)} />
      </svg>
      <Legend
        items={stages.map((stage) => {
          const style = STAGE_STYLE[stage] ?? OTHER_STAGE;
          return {
            name: stageName(stage),
            swatch: <rect width="18" height="10" className={style.className} fillOpacity={style.opacity} />,
          };
        })}
      />
      {/* A table is never narrower than its content: hidden in a div, it cannot widen a phone's page. */}
      <div className="sr-only">
        <table>
          <caption>Open cases by age (rows) and stage (columns)</caption>
          <thead>
            <tr>
              <th scope="col">Age</th>
              {stages.map((stage) => (
                <th key={stage} scope="col">
                  {stageName(stage)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {AGE_BUCKETS.map((bucket) => (
              <tr key={bucket}>
                <th scope="row">{bucket}</th>
                {stages.map((stage) => (
                  <td key={stage}>{count(bucket, stage)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

export function HeldOverTimeChart({ stats }: { stats: OverviewStats }) {
  const currencies = [...new Set(stats.heldOverTime.map((p) => p.currency))];
  const days = [...new Set(stats.heldOverTime.map((p) => p.day))];
  // The exact total, for words and the table; a number only for the drawing, where a total past
  // the safe range is left off the scale (its table cell still says what it is: decision 051).
  const total = (day: string, currency: string) =>
    stats.heldOverTime.find((p) => p.day === day && p.currency === currency)?.micros ?? "0";
  const micros = (day: string, currency: string) => totalAsNumber(total(day, currency)) ?? 0;
  const axis = ticks(Math.max(1, ...stats.heldOverTime.map((p) => totalAsNumber(p.micros) ?? 0)));
  const top = axis.at(-1) ?? 1;
  const step = PLOT_WIDTH / Math.max(1, days.length - 1);
  const x = (i: number) => PLOT.left + i * step;
  const y = (value: number) => PLOT.top + PLOT_HEIGHT * (1 - value / top);
  // One currency: the axis reads in it. Several share the axis as plain amounts of each.
  const only = currencies.length === 1 ? currencies[0] : undefined;
  const axisLabel = (value: number) =>
    only ? formatMicros(value, only) : (value / MICROS_PER_UNIT).toLocaleString("en-US");
  const last = days.length - 1;
  const points = currencies.flatMap((currency) =>
    days.map(
      (day, i): ChartPoint => ({
        series: `On hold in ${currency}`,
        time: i === last ? `now (${dayName(day)})` : `end of ${dayName(day)}`,
        value: moneyText(total(day, currency), currency),
        x: x(i),
        y: y(micros(day, currency)),
      }),
    ),
  );
  const { active, markProps } = usePointNavigation(points.length);
  return (
    <figure aria-label="Money on hold over the last 14 days">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-64 w-full"
        aria-label="Lines of money on hold per currency and day; arrow keys move between points"
      >
        <Axes
          values={axis}
          top={top}
          label={axisLabel}
          yTitle={`Money on hold (${currencies.join(", ") || "none"})`}
          xTitle="Day (UTC)"
        />
        {days.map((day, i) =>
          (last - i) % 2 === 0 ? (
            <text
              key={day}
              x={x(i)}
              y={HEIGHT - 26}
              textAnchor={i === last ? "end" : "middle"}
              className={`fill-slate-700 text-[11px] ${i === last ? "font-semibold" : ""}`}
            >
              {dayName(day)}
            </text>
          ) : null,
        )}
        {currencies.map((currency, c) => (
          <g key={currency}>
            <polyline
              points={days.map((day, i) => `${x(i)},${y(micros(day, currency))}`).join(" ")}
              fill="none"
              className="stroke-brand"
              strokeWidth="2"
              strokeDasharray={DASHES[c % DASHES.length]}
            />
            {days.length > 0 && (
              <text
                data-testid="last-point-label"
                x={x(last) - 6}
                y={Math.max(10, y(micros(days[last] ?? "", currency)) - 8 - c * 12)}
                textAnchor="end"
                className="fill-slate-900 text-[11px] font-semibold"
              >
                {`${dayName(days[last] ?? "")}: ${moneyText(total(days[last] ?? "", currency), currency)}`}
              </text>
            )}
          </g>
        ))}
        {points.map((point, index) => (
          // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a chart mark takes focus to show its value (WAI-ARIA Graphics)
          <g
            key={`${point.series}-${point.time}`}
            {...markProps(index)}
            role="graphics-symbol"
            aria-label={`${point.series}, ${point.time}: ${point.value}`}
            className={MARK}
          >
            {/* A wider, invisible target than the dot, so the pointer need not be exact. */}
            <circle cx={point.x} cy={point.y} r="9" className="fill-transparent" />
            <circle
              cx={point.x}
              cy={point.y}
              r={active === index ? 5 : 3}
              className="fill-brand stroke-slate-900"
              strokeWidth={active === index ? 2 : 0}
            />
          </g>
        ))}
        <ChartTooltip point={active === null ? null : (points[active] ?? null)} />
      </svg>
      <Legend
        items={currencies.map((currency, c) => ({
          name: `On hold in ${currency}`,
          swatch: (
            <line
              x1="0"
              x2="18"
              y1="5"
              y2="5"
              className="stroke-brand"
              strokeWidth="2"
              strokeDasharray={DASHES[c % DASHES.length]}
            />
          ),
        }))}
      />
      <div className="sr-only">
        <table>
          <caption>Money on hold at the end of each day (UTC), by currency</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {currencies.map((currency) => (
                <th key={currency} scope="col">
                  {currency}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day}>
                <th scope="row">{day}</th>
                {currencies.map((currency) => (
                  <td key={currency}>{moneyText(total(day, currency), currency)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
