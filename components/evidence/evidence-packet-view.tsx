import type { ReactNode } from "react";
import { JsonText } from "@/components/case/case-sections";
import { Badge } from "@/components/ui/badge";
import {
  ACTION_KIND_WORDS,
  ACTION_OUTCOME_WORDS,
  ACTION_STATUS_WORDS,
  ATTEMPT_KIND_WORDS,
  CASE_OUTCOME_WORDS,
  DECISION_KIND_WORDS,
  HOLD_STATUS_WORDS,
  inWords,
  LEDGER_WORDS,
  OBSERVATION_WORDS,
} from "@/components/ui/code-words";
import { formatBytes } from "@/components/ui/format";
import { stageLabel, stateLabel } from "@/components/ui/labels";
import { Money } from "@/components/ui/money";
import { Cell, NumCell, Row, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { describeEvent } from "@/lib/domain/timeline-words";
import type { CaseEvidence, Money as PacketMoney } from "@/lib/evidence/packet";
import type { EvidenceReading } from "@/lib/services/evidence/preview-evidence";

/**
 * What an evidence packet holds, for people and for paper, and the key its signed JSON is checked
 * with. Showing it is not an export (decision 057): nothing is signed or recorded until the JSON is
 * downloaded, from the API route, which issues and audits the packet. Server-rendered, no script;
 * the console's navigation is left off the printout (print: classes).
 */
export function EvidencePacketView({ reading }: { reading: EvidenceReading }) {
  const { signer, scope } = reading;
  return (
    <article className="space-y-6 bg-white p-4 text-sm print:p-0" data-testid="evidence-packet">
      <header className="space-y-2">
        <h1 className="text-xl font-semibold">Evidence packet</h1>
        {reading.demo || signer.demo ? (
          <p>
            <Badge tone="warn">Demo</Badge> Sample data, signed with a key derived in demo mode: not evidence of
            anything.
          </p>
        ) : null}
        <Facts
          rows={[
            ["Read", <Time key="at" at={reading.readAt} />],
            ["Read by", reading.readBy],
            [
              "Scope",
              scope.kind === "case"
                ? "one case"
                : `a queue filter, oldest first, at most ${scope.cap} cases${scope.truncated ? " (more matched)" : ""}`,
            ],
            ...(scope.kind === "filter"
              ? ([["Filter", <Mono key="filter">{filterText(scope.filter)}</Mono>]] as [string, ReactNode][])
              : []),
            ["Cases", String(reading.cases.length)],
          ]}
        />
      </header>

      <Section title="Signature" testId="evidence-signature">
        <p>
          This page is a reading, not the packet: the signed JSON file is made when it is downloaded, with its own
          packet id, time and SHA-256, and that download is recorded on each case&apos;s timeline.
        </p>
        <Facts
          rows={[
            ["Algorithm", "Ed25519"],
            ["Key id", <Mono key="key">{signer.keyId}</Mono>],
          ]}
        />
        <h3 className="mt-3 font-medium">Public key</h3>
        <pre className="whitespace-pre-wrap break-all font-mono text-xs">{signer.publicKey}</pre>
        <p className="mt-2 text-slate-700">
          Check the JSON file with <Mono>npm run evidence:verify -- file.json --key public-key.pem</Mono>, or with any
          Ed25519 tool over the file's <Mono>format</Mono> and <Mono>packet</Mono> in canonical JSON.
        </p>
      </Section>

      {reading.cases.map((item) => (
        <CaseEvidenceView key={item.case.id} item={item} />
      ))}
    </article>
  );
}

function CaseEvidenceView({ item }: { item: CaseEvidence }) {
  const c = item.case;
  return (
    <section aria-label={`Case ${c.operationId}`} className="space-y-4 break-before-page">
      <h2 className="text-lg font-semibold">
        Operation <Mono>{c.operationId}</Mono>
      </h2>
      <Facts
        rows={[
          ["Case", <Mono key="id">{c.id}</Mono>],
          ["Producer", c.producer],
          ["Provider / model", `${c.provider} / ${c.model}`],
          ["Provider job", c.providerJobId ? <Mono key="job">{c.providerJobId}</Mono> : "none"],
          [
            "Stage / state",
            `${stageLabel(c.stage)} / ${stateLabel(c.state)}${c.outcome ? ` (${inWords(CASE_OUTCOME_WORDS, c.outcome)})` : ""}`,
          ],
          ["Episode", String(c.episode)],
          ["Held now", <PacketAmount key="held" money={c.held} />],
          ["Opened", <Time key="opened" at={c.openedAt} />],
          ["Resolved", <Time key="resolved" at={c.resolvedAt} fallback="not resolved" />],
          ["Request fingerprint", <Mono key="fp">{c.requestFingerprint}</Mono>],
          [
            "Customer text",
            c.redactedAt ? (
              <span key="redacted">
                removed by the retention policy <Time at={c.redactedAt} /> (marked redacted below)
              </span>
            ) : (
              "kept"
            ),
          ],
        ]}
      />

      <Section title="Attempts">
        <Table caption="Attempts">
          <TableHead columns={["Attempt", "Kind", "Replaces", "Provider job", "Created"]} />
          <tbody>
            {item.attempts.map((a) => (
              <Row key={a.attemptId}>
                <Cell className="font-mono">{a.attemptId}</Cell>
                <Cell>{inWords(ATTEMPT_KIND_WORDS, a.kind)}</Cell>
                <Cell className="font-mono">{a.replacesAttemptId ?? "—"}</Cell>
                <Cell className="font-mono">{a.providerJobId ?? "—"}</Cell>
                <Cell>
                  <Time at={a.createdAt} />
                </Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Holds">
        <Table caption="Holds">
          <TableHead
            columns={[
              "Hold",
              "Attempt",
              "Status",
              { label: "Held", align: "right" },
              { label: "Settled", align: "right" },
              { label: "Released", align: "right" },
              "Decision note",
            ]}
          />
          <tbody>
            {item.holds.map((h) => (
              <Row key={h.id}>
                <Cell className="font-mono">{h.holdId}</Cell>
                <Cell className="font-mono">{h.attemptId}</Cell>
                <Cell>{inWords(HOLD_STATUS_WORDS, h.status)}</Cell>
                <NumCell>
                  <PacketAmount money={h.amount} />
                </NumCell>
                <NumCell>
                  <PacketAmount money={h.settled} />
                </NumCell>
                <NumCell>
                  <PacketAmount money={h.released} />
                </NumCell>
                <Cell>{h.decisionNote ?? "—"}</Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Ledger" testId="evidence-ledger">
        <Table caption="Ledger entries">
          <TableHead columns={["When", "Hold", "Entry", { label: "Amount", align: "right" }, "By", "Note"]} />
          <tbody>
            {item.ledger.map((e) => (
              <Row key={e.id}>
                <Cell>
                  <Time at={e.at} />
                </Cell>
                <Cell className="font-mono">{e.holdId}</Cell>
                <Cell>
                  {inWords(LEDGER_WORDS, e.kind)}
                  {e.flagged ? (
                    <>
                      {" "}
                      <Badge tone="danger">flagged</Badge>
                    </>
                  ) : null}
                </Cell>
                <NumCell>
                  <PacketAmount money={e.amount} />
                </NumCell>
                <Cell>{e.actor}</Cell>
                <Cell>{e.note ?? "—"}</Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Decisions">
        <Table caption="Decisions">
          <TableHead columns={["When", "Episode", "Decision", "Action", "Reviewer", "Evidence"]} />
          <tbody>
            {item.decisions.map((d) => (
              <Row key={d.id}>
                <Cell>
                  <Time at={d.at} />
                </Cell>
                <NumCell>{d.episode}</NumCell>
                <Cell>{inWords(DECISION_KIND_WORDS, d.kind)}</Cell>
                <Cell>{d.actionKind ? inWords(ACTION_KIND_WORDS, d.actionKind) : "—"}</Cell>
                <Cell>{d.reviewer}</Cell>
                <Cell className="whitespace-pre-wrap">{d.evidence}</Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Recovery actions">
        <Table caption="Recovery actions">
          <TableHead columns={["Created", "Episode", "Action", "Status", "Outcome", "Fencing token", "Finished"]} />
          <tbody>
            {item.recoveryActions.map((a) => (
              <Row key={a.id}>
                <Cell>
                  <Time at={a.createdAt} />
                </Cell>
                <NumCell>{a.episode}</NumCell>
                <Cell>{inWords(ACTION_KIND_WORDS, a.kind)}</Cell>
                <Cell>{inWords(ACTION_STATUS_WORDS, a.status)}</Cell>
                <Cell>{a.outcome ? inWords(ACTION_OUTCOME_WORDS, a.outcome) : "—"}</Cell>
                <NumCell>{a.fencingToken}</NumCell>
                <Cell>
                  <Time at={a.finishedAt} fallback="—" />
                </Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Provider observations">
        <Table caption="Provider observations">
          <TableHead columns={["Seen", "Attempt", "Result", "Provider status", "Outputs"]} />
          <tbody>
            {item.observations.map((o) => (
              <Row key={o.id}>
                <Cell>
                  <Time at={o.at} />
                </Cell>
                <Cell className="font-mono">{o.attemptId ?? "—"}</Cell>
                <Cell>{inWords(OBSERVATION_WORDS, o.kind)}</Cell>
                <Cell>{o.providerStatus ?? "—"}</Cell>
                <Cell>
                  <JsonText value={o.outputs} />
                </Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Delivered files">
        <Table caption="Delivered files and their SHA-256">
          <TableHead
            columns={["Output", "Stored as", "SHA-256", { label: "Size", align: "right" }, "Published", "File deleted"]}
          />
          <tbody>
            {item.assets.map((a) => (
              <Row key={a.storageKey}>
                <NumCell>{a.outputIndex}</NumCell>
                <Cell className="font-mono break-all">{a.storageKey}</Cell>
                <Cell className="font-mono break-all">{a.sha256 ?? "—"}</Cell>
                <NumCell>
                  {a.sizeBytes === null ? (
                    "—"
                  ) : (
                    <span title={`${a.sizeBytes} bytes`}>{formatBytes(Number(a.sizeBytes))}</span>
                  )}
                </NumCell>
                <Cell>
                  <Time at={a.publishedAt} fallback="—" />
                </Cell>
                <Cell>
                  <Time at={a.deletedAt} fallback="—" />
                </Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>

      <Section title="Audit timeline" testId="evidence-timeline">
        <p className="text-slate-700">
          {item.timeline.complete
            ? "The case's whole audit chain,"
            : "The newest events of the case's audit chain (the packet's cap),"}{" "}
          each event naming its predecessor's hash; the last is the chain's head when the packet was read
          {item.timeline.head ? (
            <>
              {" "}
              (seq {item.timeline.head.seq}, <Mono>{item.timeline.head.hash}</Mono>)
            </>
          ) : null}
          .
        </p>
        <Table caption="Audit timeline with chain hashes">
          <TableHead columns={["Seq", "When", "Episode", "Actor", "Event", "Hash"]} />
          <tbody>
            {item.timeline.events.map((e) => (
              <Row key={e.id}>
                <NumCell>{e.seq}</NumCell>
                <Cell>
                  <Time at={e.at} />
                </Cell>
                <NumCell>{e.episode ?? "—"}</NumCell>
                <Cell>{e.actorLabel}</Cell>
                <Cell>
                  <span title={`stored as ${e.kind}`}>{describeEvent(e).sentence}</span>
                </Cell>
                <Cell className="font-mono text-xs break-all">{e.hash}</Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      </Section>
    </section>
  );
}

function Section({ title, testId, children }: { title: string; testId?: string; children: ReactNode }) {
  return (
    <section aria-label={title} data-testid={testId} className="break-inside-avoid-page">
      <h2 className="mb-2 font-semibold">{title}</h2>
      {children}
    </section>
  );
}

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-700">{label}</dt>
          <dd className="break-all">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The queue filter in the API's words (`stage=polling, producer=shop-app`); none is every open case. */
function filterText(filter: Record<string, unknown>): string {
  const parts = Object.entries(filter).map(([key, value]) => `${key}=${String(value)}`);
  return parts.length ? parts.join(", ") : "none (every open case)";
}

function Mono({ children }: { children: ReactNode }) {
  return <span className="font-mono break-all">{children}</span>;
}

/** Integer micro-units as a decimal string in the packet; formatted here exactly (bigint, no float). */
function PacketAmount({ money }: { money: PacketMoney }) {
  return <Money micros={BigInt(money.micros)} currency={money.currency} />;
}
