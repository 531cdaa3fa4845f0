import { seedApproved } from "./queue-seed";

export const DRAIN_HOLD_MICROS = 250_000;

/**
 * `count` polling cases approved for `resume_poll`, each with its held budget (hold and reserve
 * entry): the rows parking and approval leave behind. Returns their provider job ids, which the
 * simulator is then seeded with as finished jobs, so one status request settles each hold and one
 * download delivers each video.
 */
export async function seedDrain(url: string, input: { count: number; tag: string }): Promise<string[]> {
  const rows = await seedApproved(url, {
    ...input,
    producer: "drain-shop",
    model: "minimax/video-01",
    action: "resume_poll",
    holdMicros: DRAIN_HOLD_MICROS,
    submittedSecondsAgo: 3600,
    evidence: { summary: "status checks exhausted", approval: "resume the status checks" },
  });
  return rows.map((row) => row.providerJobId);
}
