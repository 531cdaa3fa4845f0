import type { CaseDetail } from "@/lib/services/case/get-case";

type Asset = CaseDetail["assets"][number];

/** Play and download a delivered output, for people allowed to see the producer's videos (decision 067). */
export function OutputLinks({ asset }: { asset: Asset }) {
  if (asset.deleted) return <> · deleted under the retention policy</>;
  if (!asset.href) return null;
  return (
    <>
      {" · "}
      <a className="text-brand underline" href={asset.href} target="_blank" rel="noopener">
        Play output {asset.outputIndex}
      </a>
      {" · "}
      <a className="text-brand underline" href={`${asset.href}?download=1`} download>
        Download output {asset.outputIndex}
      </a>
    </>
  );
}
