import type { Db } from "@/lib/db/client";

/**
 * Ends open episodes without a "resolved" message (nothing cleared): of one rule that was disabled
 * or now means something else (another kind, another destination), or of every rule sent to a
 * destination that was disabled. What was ended starts afresh once judged again. The rules are
 * locked first, so an evaluation of one of them finishes before (and its episode is ended here)
 * or waits and sees the change. On the database's clock, as the rounds.
 */
export async function endOpenEpisodes(tx: Db, of: { ruleId: string } | { destinationId: string }): Promise<number> {
  const rules =
    "ruleId" in of
      ? await tx.$queryRaw<{ id: string }[]>`SELECT id FROM alert_rules WHERE id = ${of.ruleId}::uuid FOR UPDATE`
      : await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM alert_rules WHERE destination_id = ${of.destinationId}::uuid ORDER BY id FOR UPDATE`;
  if (rules.length === 0) return 0;
  return tx.$executeRaw`
    UPDATE alert_firings SET resolved_at = now()
     WHERE resolved_at IS NULL AND rule_id = ANY(${rules.map((r) => r.id)}::uuid[])`;
}
