import type { ServerAction } from "@/components/ui/form";
import { TableHead } from "@/components/ui/table-head";
import type { TokenListItem } from "@/lib/services/access/list-access-tokens";
import { formatWhen, tokenStatus } from "./format";
import { RevokeTokenButton } from "./revoke-token-button";

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
    <div className="overflow-x-auto">
      <table className="w-full border-collapse bg-white text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <TableHead
          columns={[
            nameLabel,
            "Prefix",
            "Created",
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
              <tr key={token.id} className="border-b border-slate-200 align-top" data-testid={`token-${token.id}`}>
                <th scope="row" className="px-3 py-2 font-medium">
                  {token.name}
                </th>
                <td className="px-3 py-2">
                  <code>{token.prefix}…</code>
                </td>
                <td className="px-3 py-2">{formatWhen(token.createdAt)}</td>
                <td className="px-3 py-2">{formatWhen(token.lastUsedAt)}</td>
                {showExpiry ? <td className="px-3 py-2">{formatWhen(token.expiresAt, "no expiry")}</td> : null}
                <td className="px-3 py-2">
                  <span className={`rounded px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[status]}`}>{status}</span>
                  {token.revokedAt ? (
                    <span className="block text-xs text-slate-600">{formatWhen(token.revokedAt)}</span>
                  ) : null}
                </td>
                <td className="px-3 py-2">
                  {status === "active" ? (
                    <RevokeTokenButton tokenId={token.id} tokenName={token.name} action={revokeAction} />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
