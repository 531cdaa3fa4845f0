import type { ReactNode } from "react";

/** A titled block of the Finance page; `empty` replaces the content with an honest sentence. */
export function FinanceSection({
  id,
  title,
  description,
  empty,
  children,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  empty?: string | null;
  children?: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-heading`} id={id} className="mt-8 scroll-mt-4">
      <h2 id={`${id}-heading`} className="text-lg font-semibold">
        {title}
      </h2>
      {description ? <p className="mt-1 text-sm text-slate-700">{description}</p> : null}
      {empty ? (
        <p className="mt-3 rounded border border-dashed border-slate-400 bg-white px-4 py-3 text-sm text-slate-700">
          {empty}
        </p>
      ) : (
        // Tables scroll inside their own labelled region (components/ui/table.tsx), not here.
        <div className="mt-3 min-w-0">{children}</div>
      )}
    </section>
  );
}
