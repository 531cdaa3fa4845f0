import { Money } from "@/components/ui/money";
import { Cell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { UnexplainedChargesView } from "@/lib/services/usage/list-unexplained-charges";
import { casePlaceWords } from "./case-ref";
import { ChargeActions } from "./charge-actions";

const MATCH_WORDS: Record<string, string> = {
  client_reference: "client reference",
  fingerprint: "same request",
  model: "same model",
  submitted_within_60s: "sent within a minute",
};

/** Charges no operation explains (decision 074), with what may explain each and the two ways out. */
export function UnexplainedCharges({ charges }: { charges: UnexplainedChargesView["charges"] }) {
  return (
    <Table caption="Charges no operation explains, newest first">
      <TableHead
        columns={["Provider job", "Model", "Time", "Charged", "Operations that may have sent it", "Explain"]}
      />
      <tbody>
        {charges.map((charge) => (
          <Row
            key={`${charge.provider}:${charge.providerJobId ?? charge.usageLineId}`}
            data-charge={charge.providerJobId}
          >
            <RowHeader>
              <span className="block font-medium">{charge.provider}</span>
              <span className="block break-all">{charge.providerJobId ?? "a line that names no job"}</span>
              <span className="block text-xs text-slate-700">
                {charge.listed ? `in the provider's job list (${charge.providerStatus ?? "status unknown"})` : ""}
                {charge.listed && charge.lines > 0 ? "; " : ""}
                {charge.lines > 0 ? `${charge.lines} usage ${charge.lines === 1 ? "line" : "lines"}` : ""}
              </span>
            </RowHeader>
            <Cell>{charge.model ?? "not known"}</Cell>
            <Cell>
              <Time at={charge.at} />
            </Cell>
            <Cell>
              {charge.money.length === 0
                ? "no usage line yet"
                : charge.money.map((m) => (
                    <span key={m.currency} className="block">
                      <Money micros={m.micros} currency={m.currency} />
                    </span>
                  ))}
            </Cell>
            <Cell>
              {charge.candidates.length === 0 ? (
                "none found"
              ) : (
                <ol className="list-decimal pl-4">
                  {charge.candidates.map((c) => (
                    <li key={`${c.caseId}/${c.attemptId}`}>
                      <a className="text-brand underline" href={`/cases/${c.caseId}`}>
                        {c.operationId}
                      </a>{" "}
                      ({c.producer}): {c.matched.map((m) => MATCH_WORDS[m] ?? m).join(", ")}; {c.minutesApart} min apart
                      {c.uncertain ? "" : `; an earlier send, its case ${casePlaceWords(c)}`}
                    </li>
                  ))}
                </ol>
              )}
            </Cell>
            <Cell>
              <ChargeActions charge={charge} />
            </Cell>
          </Row>
        ))}
      </tbody>
    </Table>
  );
}
