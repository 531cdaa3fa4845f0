import Link from "next/link";

/** The operation a hold belongs to: a link to its case, or plain text while a send permit has no case. */
export function OperationLink({ caseId, operationId }: { caseId: string | null; operationId: string }) {
  if (!caseId) return <span className="font-medium">{operationId}</span>;
  return (
    <Link href={`/cases/${caseId}`} className="font-medium text-brand underline">
      {operationId}
    </Link>
  );
}
