import type { ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react";

/**
 * The console's table kit: one look for every table (white, small text, a rule under each row),
 * a caption for screen readers, header cells that say how the rows are ordered (aria-sort, with a
 * visible arrow), and numeric cells aligned for comparing figures.
 */

const CELL = "px-3 py-2";

export function Table({
  caption,
  children,
  className = "",
  ...table
}: { caption: string; children: ReactNode; className?: string } & Omit<
  React.TableHTMLAttributes<HTMLTableElement>,
  "children"
>) {
  return (
    <ScrollRegion label={caption}>
      <table className={`w-full border-collapse bg-white text-left text-sm ${className}`} {...table}>
        <caption className="sr-only">{caption}</caption>
        {children}
      </table>
    </ScrollRegion>
  );
}

/**
 * What may scroll sideways on a narrow screen (a wide table), so the page itself never does. It is
 * a named group and a Tab stop, so a keyboard can scroll it and a screen reader can say what it is.
 */
export function ScrollRegion({
  label,
  className = "",
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    // Positioned, so what is positioned inside (screen-reader-only text) scrolls with the content
    // instead of widening the page.
    // A named group rather than a landmark: pages already name their sections, and a table is part of one.
    // biome-ignore lint/a11y/useSemanticElements: a fieldset is for form controls, this holds a table.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1).
    <div role="group" aria-label={label} tabIndex={0} className={`relative overflow-x-auto ${className}`}>
      {children}
    </div>
  );
}

export type Sort = "ascending" | "descending";
/** A header that sorts by following a link (the order lives in the URL); `next` says what a click does. */
export type SortLink = { href: string; direction: Sort | "none"; next: string };
export type Column =
  | string
  | { label: string; align?: "right"; hidden?: boolean; sort?: Sort; sortLink?: SortLink; className?: string };

/** The header row; `hidden` labels stay readable to screen readers, `sort` marks the rows' order. */
export function TableHead({ columns, cell = CELL }: { columns: Column[]; cell?: string }) {
  return (
    <thead>
      <tr className="border-b border-slate-300">
        {columns.map((column) => {
          const {
            label,
            align,
            hidden,
            sort,
            sortLink,
            className = "",
          } = typeof column === "string" ? { label: column } : column;
          const direction = sortLink?.direction ?? sort;
          const arrow = direction ? (
            <span aria-hidden="true" className="ml-1 text-slate-600">
              {direction === "ascending" ? "↑" : direction === "descending" ? "↓" : "↕"}
            </span>
          ) : null;
          return (
            <th
              key={label}
              scope="col"
              aria-sort={direction}
              className={`${cell} font-medium ${align === "right" ? "text-right" : ""} ${className}`}
            >
              {sortLink ? (
                <a href={sortLink.href} title={sortLink.next} className="whitespace-nowrap underline decoration-dotted">
                  {label}
                  {arrow}
                  <span className="sr-only">, {sortLink.next}</span>
                </a>
              ) : (
                <>
                  {hidden ? <span className="sr-only">{label}</span> : label}
                  {arrow}
                </>
              )}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** A body row with the shared rule; extra classes for a highlighted or flagged row. */
export function Row({ className = "", ...row }: React.HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={`border-b border-slate-200 align-top ${className}`} {...row} />;
}

/** The cell that names its row (an email, a producer, an operation), announced as the row header. */
export function RowHeader({ className = "font-medium", ...cell }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope="row" className={`${CELL} text-left ${className}`} {...cell} />;
}

export function Cell({ className = "", ...cell }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={`${CELL} ${className}`} {...cell} />;
}

/** Figures: right-aligned with digits of equal width, so columns of amounts compare at a glance. */
export function NumCell({ className = "", ...cell }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={`${CELL} text-right tabular-nums ${className}`} {...cell} />;
}
