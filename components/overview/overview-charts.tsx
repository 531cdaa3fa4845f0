"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { formatMicros } from "@/lib/domain/money";
import { AGE_BUCKETS, type OverviewStats } from "@/lib/services/overview-stats";

// Distinct colours plus distinct dash/opacity patterns and a legend with names, so stages can be
// told apart without colour; the numbers are also in the table next to each chart.
const STAGE_STYLE: Record<string, { fill: string; opacity: number }> = {
  submission_uncertain: { fill: "#b91c1c", opacity: 1 },
  polling: { fill: "#1d4ed8", opacity: 0.85 },
  delivery: { fill: "#b45309", opacity: 0.7 },
  generation_failed: { fill: "#334155", opacity: 0.55 },
};

export function AgeBucketChart({ stats }: { stats: OverviewStats }) {
  const stages = [...new Set(stats.ageBuckets.map((b) => b.stage))];
  const data = AGE_BUCKETS.map((bucket) => ({
    bucket,
    ...Object.fromEntries(
      stages.map((stage) => [
        stage,
        stats.ageBuckets.find((b) => b.bucket === bucket && b.stage === stage)?.count ?? 0,
      ]),
    ),
  }));
  return (
    <figure aria-label="Open cases by age and stage">
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="bucket" />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          {stages.map((stage) => (
            <Bar
              key={stage}
              dataKey={stage}
              stackId="age"
              fill={STAGE_STYLE[stage]?.fill}
              fillOpacity={STAGE_STYLE[stage]?.opacity}
              label={{ position: "inside", fill: "#fff", fontSize: 11 }}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

export function HeldOverTimeChart({ stats }: { stats: OverviewStats }) {
  const currencies = [...new Set(stats.heldOverTime.map((p) => p.currency))];
  const days = [...new Set(stats.heldOverTime.map((p) => p.day))];
  const data = days.map((day) => ({
    day: day.slice(5),
    ...Object.fromEntries(
      currencies.map((c) => [c, stats.heldOverTime.find((p) => p.day === day && p.currency === c)?.micros ?? 0]),
    ),
  }));
  return (
    <figure aria-label="Money on hold over the last 14 days">
      <ResponsiveContainer width="100%" height={240}>
        <LineChart data={data}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="day" />
          <YAxis width={80} tickFormatter={(micros: number) => formatMicros(micros, currencies[0] ?? "USD")} />
          <Tooltip formatter={(micros, currency) => formatMicros(Number(micros), String(currency))} />
          <Legend />
          {currencies.map((currency, i) => (
            <Line
              key={currency}
              dataKey={currency}
              strokeDasharray={i === 0 ? undefined : "6 3"}
              stroke="#1d4ed8"
              dot
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
