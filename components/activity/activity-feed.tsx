import Link from "next/link";
import { Cell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { ACTIVITY_GROUP_NAMES, ACTIVITY_GROUP_WORDS, type ActivityGroup } from "@/lib/domain/activity-kinds";
import type { ActivityPage } from "@/lib/services/admin/list-activity";

const href = (group: ActivityGroup | null, before?: string) => {
  const params = new URLSearchParams();
  if (group) params.set("kind", group);
  if (before) params.set("before", before);
  const query = params.toString();
  return query ? `/activity?${query}` : "/activity";
};

/** The activity feed: a filter by kind, the changes newest first, and a link to older ones. */
export function ActivityFeed({
  page,
  group,
  older,
}: {
  page: ActivityPage;
  group: ActivityGroup | null;
  older: boolean;
}) {
  const filters: Array<{ value: ActivityGroup | null; label: string }> = [
    { value: null, label: "Everything" },
    ...ACTIVITY_GROUP_NAMES.map((value) => ({ value, label: ACTIVITY_GROUP_WORDS[value] })),
  ];
  return (
    <section aria-labelledby="activity-heading" className="space-y-4">
      <div>
        <h1 id="activity-heading" className="text-2xl font-semibold">
          Activity
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Changes to people, access tokens, producer scopes, settings, alerts, retention and spend limits, newest first,
          as the audit log recorded them.
        </p>
      </div>
      <nav aria-label="Kinds of change">
        <ul className="flex flex-wrap gap-2 text-sm">
          {filters.map((filter) => {
            const current = filter.value === group;
            return (
              <li key={filter.label}>
                <Link
                  href={href(filter.value)}
                  aria-current={current ? "page" : undefined}
                  className={`inline-block rounded border px-3 py-1 ${
                    current ? "border-brand bg-brand text-white" : "border-slate-400 bg-white text-slate-900"
                  }`}
                >
                  {filter.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      {page.items.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
          {older ? "No older changes." : "No changes of this kind have been recorded."}
        </p>
      ) : (
        <Table caption="Changes, newest first" data-testid="activity-feed">
          <TableHead columns={[{ label: "When", sort: "descending" }, "Change", "About", "By"]} />
          <tbody>
            {page.items.map((item) => (
              <Row key={item.id}>
                <Cell className="whitespace-nowrap">
                  <Time at={item.at} />
                </Cell>
                <RowHeader>{item.sentence}</RowHeader>
                <Cell>{item.subject ?? "—"}</Cell>
                <Cell className="break-all">{item.actor}</Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages" className="flex gap-4 text-sm">
        {older ? (
          <Link href={href(group)} className="text-brand underline">
            Newest changes
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link href={href(group, page.nextCursor)} className="text-brand underline">
            Older changes
          </Link>
        ) : null}
      </nav>
    </section>
  );
}
