import type { ManagedProcess } from "../shared/managed-process";
import type { ThrowawayDatabase } from "../shared/throwaway-database";
import type { ChaosEvent } from "./plan";

/**
 * Carries out the plan: SIGKILL a random worker (restarted after a short random pause) or the app
 * server (restarted at once, after counting the actions it left claimed), or stop and start
 * PostgreSQL. Any process that exits without being killed is counted (the app must survive a
 * database restart by itself) and started again.
 */
export class Killer {
  readonly done = { worker: 0, server: 0, postgres: 0 };
  /** Actions left claimed by killed servers, summed over the kills. */
  claimedAtServerKills = 0;
  unexpectedExits = 0;
  postgresDownMs = 0;
  private readonly intentionallyDown = new Set<ManagedProcess>();
  private stopping = false;

  constructor(
    private readonly workers: ManagedProcess[],
    private readonly server: ManagedProcess,
    private readonly database: ThrowawayDatabase,
    private readonly claimedActions: () => Promise<number>,
    private readonly random: () => number,
    private readonly log: (line: string) => void,
  ) {}

  async strike(event: ChaosEvent): Promise<void> {
    if (event.target === "server") {
      await this.server.kill();
      // With the server down nothing can finish them: each must later be rescued when its lease expires.
      this.claimedAtServerKills += await this.claimedActions().catch(() => 0);
      this.server.start();
      this.done.server += 1;
      this.log(`SIGKILL app server (kill ${this.done.server}), restarted`);
      return;
    }
    if (event.target === "postgres") {
      const started = Date.now();
      await this.database.restart();
      this.postgresDownMs = Date.now() - started;
      this.done.postgres += 1;
      this.log(`PostgreSQL stopped and started again (${this.postgresDownMs} ms)`);
      return;
    }
    const candidates = this.workers.filter((w) => w.running && !this.intentionallyDown.has(w));
    const victim = candidates[Math.floor(this.random() * candidates.length)];
    if (!victim) return;
    this.intentionallyDown.add(victim);
    await victim.kill();
    this.done.worker += 1;
    setTimeout(
      () => {
        this.intentionallyDown.delete(victim);
        if (!this.stopping) victim.start();
      },
      300 + this.random() * 2_700,
    );
  }

  /** Called between strikes: a process that died on its own is a finding, not part of the plan. */
  reviveUnexpectedExits(): void {
    for (const proc of [this.server, ...this.workers]) {
      if (proc.running || this.intentionallyDown.has(proc) || this.stopping) continue;
      this.unexpectedExits += 1;
      this.log(`${proc.name} exited without being killed; starting it again`);
      proc.start();
    }
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers.map((w) => w.stop()));
    await this.server.stop();
  }
}
