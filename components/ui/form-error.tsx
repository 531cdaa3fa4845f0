import Link from "next/link";
import type { ReactNode } from "react";
import type { ActionResult } from "@/lib/actions/safe-action";

const LOST_RACE = new Set(["lost_race", "illegal_transition", "conflict", "hold_already_resolved"]);

/**
 * The console's one error box: announced, and focusable so a failed submit can move focus to it
 * (useServerAction does, through data-error-summary).
 */
export function ErrorBox({ children }: { children: ReactNode }) {
  return (
    <div
      role="alert"
      tabIndex={-1}
      data-error-summary
      className="mt-3 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900"
    >
      {children}
    </div>
  );
}

/**
 * Explains a refused action in words; a lost race says so rather than looking like a crash. In a
 * form the server's field issues are shown at their fields; where there are no fields (a button, a
 * confirmation) `listIssues` lists them here instead, so none is lost.
 */
export function FormError({
  result,
  listIssues = false,
}: {
  result: ActionResult<unknown> | null;
  listIssues?: boolean;
}) {
  if (!result || result.ok) return null;
  const { code, message, issues } = result.error;
  return (
    <ErrorBox>
      {LOST_RACE.has(code) ? <p className="font-medium">Someone else acted on this first.</p> : null}
      <p>{withCaseLinks(message)}</p>
      {listIssues && issues?.length ? (
        <ul className="mt-1 list-disc pl-5">
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {issue.path}: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </ErrorBox>
  );
}

const CASE_PATH = /(\/cases\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

/** A refusal that names another case (a job it owns) links to it; the service decides who may see it. */
function withCaseLinks(message: string) {
  return message.split(CASE_PATH).map((part, index) =>
    index % 2 === 1 ? (
      <Link key={part} href={part} className="underline">
        {part}
      </Link>
    ) : (
      part
    ),
  );
}
