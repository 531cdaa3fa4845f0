"use client";

import { Axes, HEIGHT, Legend, PLOT, PLOT_HEIGHT, PLOT_WIDTH, ticks, WIDTH } from "@/components/overview/chart-parts";
import { NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { HISTORY_DAYS, HISTORY_SERIES, HISTORY_SERIES_WORDS, type HistoryHour } from "@/lib/domain/case-history";

// One SVG with a title and a description, three lines told apart by colour and dash pattern (with
// a legend), and the same figures as a table one click away (decision 066; decision 024 says why
// no chart library).
const STYLE = {
  opened: { className: "stroke-brand", dash: undefined },
  resolved: { className: "stroke-slate-700", dash: "6 3" },
  parked: { className: "stroke-amber-700", dash: "2 3" },
} as const;
const DAY = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

export function HistoryChart({ hours, scope }: { hours: HistoryHour[]; scope: string }) {
  const max = Math.max(1, ...hours.flatMap((h) => HISTORY_SERIES.map((s) => h[s])));
  const axis = ticks(max);
  const top = axis.at(-1) ?? 1;
  const step = PLOT_WIDTH / Math.max(1, hours.length - 1);
  const x = (i: number) => PLOT.left + i * step;
  const y = (n: number) => PLOT.top + PLOT_HEIGHT * (1 - n / top);
  const totals = Object.fromEntries(HISTORY_SERIES.map((s) => [s, hours.reduce((sum, h) => sum + h[s], 0)])) as Record<
    (typeof HISTORY_SERIES)[number],
    number
  >;
  const busy = hours.filter((h) => HISTORY_SERIES.some((s) => h[s] > 0));
  const days = hours.flatMap((h, i) => (i % 48 === 0 ? [{ i, label: DAY.format(new Date(h.hour)) }] : []));
  const summary = HISTORY_SERIES.map(
    (s) => `${totals[s].toLocaleString("en-US")} ${HISTORY_SERIES_WORDS[s].toLowerCase()}`,
  ).join(", ");
  return (
    <figure className="rounded border border-slate-300 bg-white p-4">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-64 w-full"
        role="img"
        aria-labelledby="history-chart-title history-chart-desc"
        data-testid="history-chart"
      >
        <title id="history-chart-title">{`Cases per hour over the last ${HISTORY_DAYS} days, ${scope}`}</title>
        <desc id="history-chart-desc">{`In all: ${summary}. The same figures are in the table below the chart.`}</desc>
        <Axes
          values={axis}
          top={top}
          label={(value) => value.toLocaleString("en-US")}
          yTitle="Cases per hour"
          xTitle="Day (UTC)"
        />
        {days.map((day) => (
          <text key={day.i} x={x(day.i)} y={HEIGHT - 26} textAnchor="middle" className="fill-slate-700 text-[11px]">
            {day.label}
          </text>
        ))}
        {HISTORY_SERIES.map((series) => (
          <polyline
            key={series}
            fill="none"
            strokeWidth={1.5}
            strokeDasharray={STYLE[series].dash}
            className={STYLE[series].className}
            points={hours.map((h, i) => `${x(i).toFixed(1)},${y(h[series]).toFixed(1)}`).join(" ")}
          />
        ))}
      </svg>
      <Legend
        items={HISTORY_SERIES.map((series) => ({
          name: `${HISTORY_SERIES_WORDS[series]} (${totals[series].toLocaleString("en-US")})`,
          swatch: (
            <line
              x1="0"
              x2="18"
              y1="5"
              y2="5"
              strokeWidth={2}
              strokeDasharray={STYLE[series].dash}
              className={STYLE[series].className}
            />
          ),
        }))}
      />
      <details className="mt-3 text-sm" data-testid="history-table">
        <summary className="cursor-pointer text-brand underline">Show the figures as a table</summary>
        <p className="mt-2 text-slate-700">Hours in which nothing happened are left out; every hour is in UTC.</p>
        {busy.length === 0 ? (
          <p className="mt-2">Nothing happened in these {HISTORY_DAYS} days.</p>
        ) : (
          <Table caption={`Cases per hour over the last ${HISTORY_DAYS} days, ${scope}`}>
            <TableHead
              columns={[
                { label: "Hour starting", sort: "ascending" },
                ...HISTORY_SERIES.map((s) => ({ label: HISTORY_SERIES_WORDS[s], align: "right" as const })),
              ]}
            />
            <tbody>
              {busy.map((h) => (
                <Row key={h.hour}>
                  <RowHeader className="font-normal">
                    <Time at={h.hour} />
                  </RowHeader>
                  {HISTORY_SERIES.map((s) => (
                    <NumCell key={s}>{h[s].toLocaleString("en-US")}</NumCell>
                  ))}
                </Row>
              ))}
              <Row>
                <RowHeader>In all</RowHeader>
                {HISTORY_SERIES.map((s) => (
                  <NumCell key={s}>{totals[s].toLocaleString("en-US")}</NumCell>
                ))}
              </Row>
            </tbody>
          </Table>
        )}
      </details>
    </figure>
  );
}
