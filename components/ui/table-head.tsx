export type Column = string | { label: string; align?: "right"; hidden?: boolean };

/** The header row every console table shares; `hidden` labels stay readable to screen readers. */
export function TableHead({ columns, cell = "px-3 py-2" }: { columns: Column[]; cell?: string }) {
  return (
    <thead>
      <tr className="border-b border-slate-300">
        {columns.map((column) => {
          const { label, align, hidden } = typeof column === "string" ? { label: column } : column;
          return (
            <th key={label} scope="col" className={align === "right" ? `${cell} text-right` : cell}>
              {hidden ? <span className="sr-only">{label}</span> : label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
