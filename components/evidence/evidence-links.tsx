/**
 * Links to an evidence packet: the printable page, and the signed JSON file (served by the API with
 * the console's session). Plain links: nothing runs in the browser.
 */
export function EvidenceLinks({
  pageHref,
  fileHref,
  label = "Evidence packet",
}: {
  /** The printable page; none on that page itself. */
  pageHref?: string;
  fileHref: string;
  label?: string;
}) {
  return (
    <span className="flex flex-wrap gap-4">
      {pageHref ? (
        <a href={pageHref} className="text-brand underline">
          {label}
        </a>
      ) : null}
      <a href={fileHref} download className="text-brand underline">
        Download signed JSON
      </a>
    </span>
  );
}

export const caseEvidenceHrefs = (caseId: string) => ({
  pageHref: `/cases/${caseId}/evidence`,
  fileHref: `/api/v1/cases/${caseId}/evidence`,
});
