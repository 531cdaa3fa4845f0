/**
 * Links to a case's evidence packet: the printable page, and the signed JSON file (served by the
 * API with the console's session). Plain links: nothing runs in the browser.
 */
export function EvidenceLinks({ caseId, printable = true }: { caseId: string; printable?: boolean }) {
  return (
    <span className="flex gap-4">
      {printable ? (
        <a href={`/cases/${caseId}/evidence`} className="text-brand underline">
          Evidence packet
        </a>
      ) : null}
      <a href={`/api/v1/cases/${caseId}/evidence`} download className="text-brand underline">
        Download signed JSON
      </a>
    </span>
  );
}
