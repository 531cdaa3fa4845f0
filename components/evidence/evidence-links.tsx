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

/**
 * The printable page's download: the very bytes the page was rendered from, carried in the link as
 * a data URL, so the file saved from the page has the SHA-256 and signature printed on it and no
 * second packet is issued (or audited). No script needed: the browser saves the link's content.
 */
export function PacketDownloadLink({ text, filename }: { text: string; filename: string }) {
  const href = `data:application/json;base64,${Buffer.from(text, "utf8").toString("base64")}`;
  return (
    <a href={href} download={filename} className={linkClass}>
      Download signed JSON
    </a>
  );
}

export const caseEvidenceHrefs = (caseId: string) => ({
  pageHref: `/cases/${caseId}/evidence`,
  fileHref: `/api/v1/cases/${caseId}/evidence`,
});
