const FORMAT = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});

/**
 * A moment, always labelled with its zone (UTC, so that the server's page and the browser's
 * refresh read the same), with the exact instant on hover.
 */
export function Time({ at }: { at: string }) {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return <span>{at}</span>;
  return (
    <time dateTime={at} title={at}>
      {FORMAT.format(date)}
    </time>
  );
}
