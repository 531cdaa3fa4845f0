import type { JobSpec } from "../simulator";

/** The simulator's control plane (/__admin), which is not part of either provider's API. */
export async function seedSimulatorJob(simulatorUrl: string, spec: JobSpec): Promise<string> {
  const response = await fetch(`${simulatorUrl}/__admin/jobs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(spec),
  });
  const body = (await response.json()) as { id?: string; detail?: string };
  if (response.status !== 201 || !body.id) throw new Error(`seeding a job answered ${response.status} ${body.detail}`);
  return body.id;
}

export type SimulatorStats = { creates: { replicate: number; fal: number; total: number }; jobs: { total: number } };

export async function simulatorStats(simulatorUrl: string): Promise<SimulatorStats> {
  const response = await fetch(`${simulatorUrl}/__admin/stats`);
  if (!response.ok) throw new Error(`simulator stats answered ${response.status}`);
  return (await response.json()) as SimulatorStats;
}
