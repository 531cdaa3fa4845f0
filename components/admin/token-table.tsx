import type { ServerAction } from "@/components/ui/form";
import { Cell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { TokenListItem } from "@/lib/services/access/list-access-tokens";
import { RevokeTokenButton } from "./revoke-token-button";
import { tokenStatus } from "./token-status";

const STATUS_STYLE = {
  active: "bg-green-100 text-green-900",
  revoked: "bg-slate-200 text-slate-800",
  expired: "bg-amber-100 text-amber-900",
} as const;

/** Issued tokens by prefix only: the secret itself was shown once, when it was created. */
export function TokenTable({
  tokens,
  caption,
  nameLabel,
  emptyText,
  showExpiry = false,
  revokeAction,
}: {
  tokens: TokenListItem[];
  caption: string;
  nameLabel: string;
  emptyText: string;
  showExpiry?: boolean;
  revokeAction: ServerAction<unknown>;
}) {
  if (tokens.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">{emptyText}</p>
    );
  }
  const now = new Date();
  return (
    <Table caption={caption}>
      <TableHead
        columns={[
          nameLabel,
          "Prefix",
          { label: "Created", sort: "descending" },
          "Last used",
          ...(showExpiry ? ["Expires"] : []),
          "Status",
          { label: "Actions", hidden: true },
        ]}
      />
      <tbody>
        {tokens.map((token) => {
          const status = tokenStatus(token, now);
          return (
            <Row key={token.id} data-testid={`token-${token.id}`}>
              <RowHeader>{token.name}</RowHeader>
              <Cell>
                <code data-technical>{token.prefix}…</code>
              </Cell>
              <Cell>
                <Time at={token.createdAt} />
              </Cell>
              <Cell>
                <Time at={token.lastUsedAt} fallback="never" />
              </Cell>
              {showExpiry ? (
                <Cell>
                  <Time at={token.expiresAt} fallback="no expiry" />
                </Cell>
              ) : null}
              <Cell>
                <span className={`rounded px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[status]}`}>{status}</span>
                {token.revokedAt ? (
                  <span className="block text-xs text-slate-600">
                    <Time at={token.revokedAt} />
                  </span>
                ) : null}
              </Cell>
              <Cell>
                {status === "active" ? (
                  <RevokeTokenButton tokenId={token.id} tokenName={token.name} action={revokeAction} />
                ) : null}
              </Cell>
            </Row>
          );
        })}
      </tbody>
    </Table>
  );
}
