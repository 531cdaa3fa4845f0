import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../../lib/db/embedded";
import { migrate } from "../../lib/db/migrate";
import { provisionRoles, throwawayRoles } from "../../lib/db/role-setup";

/**
 * An embedded PostgreSQL in a temporary directory with one migrated database, set up as in
 * production: `url` is the app's role (owns nothing), `ownerUrl` the owner that migrated it.
 * `restart` stops the server and starts it again on the same data and the same port, so clients
 * keep their URL.
 */
export class ThrowawayDatabase {
  private constructor(
    readonly dir: string,
    private server: EmbeddedDatabase,
    readonly url: string,
    readonly ownerUrl: string,
  ) {}

  static async create(name: string, preferredPort: number): Promise<ThrowawayDatabase> {
    const dir = await mkdtemp(path.join(os.tmpdir(), `${name}-`));
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, "pg"), preferredPort });
    const database = name.replace(/\W/g, "_");
    const roles = await provisionRoles(server.url, database, throwawayRoles(database));
    await migrate(roles.ownerUrl, { appRole: roles.appRole });
    return new ThrowawayDatabase(dir, server, roles.url, roles.ownerUrl);
  }

  get port(): number {
    return this.server.port;
  }

  async restart(): Promise<void> {
    const port = this.server.port;
    await this.server.stop();
    this.server = await startEmbeddedPostgres({ dataDir: path.join(this.dir, "pg"), preferredPort: port });
    if (this.server.port !== port) throw new Error(`PostgreSQL came back on port ${this.server.port}, not ${port}`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }

  async remove(): Promise<void> {
    await this.server.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
