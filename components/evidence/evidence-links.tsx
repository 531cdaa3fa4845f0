const linkClass = "text-brand underline";

/**
 * Links to an evidence packet: the printable page, and the signed JSON file (served by the API with
 * the console's session). Plain links: nothing runs in the browser. Each issues its own packet.
 */
export function EvidenceLinks({
  pageHref,
  fileHref,
  label = "Evidence packet",
}: {
  pageHref: string;
  fileHref: string;
  label?: string;
}) {
  return (
    <span className="flex flex-wrap gap-4">
      <a href={pageHref} className={linkClass}>
        {label}
      </a>
      <a href={fileHref} download className={linkClass}>
        Download signed JSON
      </a>
    </span>
  );
}

export const caseEvidenceHrefs = (caseId: string) => ({
  pageHref: `/cases/${caseId}/evidence`,
  fileHref: `/api/v1/cases/${caseId}/evidence`,
});
