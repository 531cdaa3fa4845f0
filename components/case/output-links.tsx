import type { CaseDetail } from "@/lib/services/case/get-case";

type Asset = CaseDetail["assets"][number];

/** Play and download a delivered output, for people allowed to see the producer's videos (decision 067). */
export function OutputLinks({ asset }: { asset: Asset }) {
  if (asset.deleted) return <> · deleted under the retention policy</>;
  if (!asset.href) return null;
  // An earlier attempt's links say so, so no two links on the page read the same (decision 071).
  const which = asset.current ? `output ${asset.outputIndex}` : `earlier attempt's output ${asset.outputIndex}`;
  return (
    <>
      {" · "}
      <a className="text-brand underline" href={asset.href} target="_blank" rel="noopener">
        Play {which}
      </a>
      {" · "}
      <a className="text-brand underline" href={`${asset.href}?download=1`} download>
        Download {which}
      </a>
    </>
  );
}
