import Link from "next/link";
import type { ActionResult } from "@/lib/actions/safe-action";

const LOST_RACE = new Set(["lost_race", "illegal_transition", "conflict", "hold_already_resolved"]);

/** Explains a refused action in words; a lost race says so rather than looking like a crash. */
export function ActionError({ result }: { result: ActionResult<unknown> | null }) {
  if (!result || result.ok) return null;
  const { code, message, issues } = result.error;
  return (
    <div role="alert" className="mt-2 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
      {LOST_RACE.has(code) ? <p className="font-medium">Someone else acted on this first.</p> : null}
      <p>{withCaseLinks(message)}</p>
      {issues?.length ? (
        <ul className="mt-1 list-disc pl-5">
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {issue.path}: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
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
