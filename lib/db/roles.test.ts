import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { appRoleFor, DATA_PRIVILEGES, RESTRICTED_TABLES } from "./roles";

describe("the runtime role", () => {
  it("is DATABASE_URL's user when migrations run as another user, and nobody in a single-role deployment", () => {
    const owner = "postgresql://recovery_owner:o@db:5432/video_recovery";
    expect(appRoleFor("postgresql://recovery_app:a@db:5432/video_recovery", owner)).toBe("recovery_app");
    expect(appRoleFor("postgresql://app%2Dx:a@db/video_recovery", owner)).toBe("app-x");
    expect(appRoleFor(owner, owner)).toBeNull();
    expect(appRoleFor(undefined, owner)).toBeNull();
  });

  it("may only read and append history and money, and never truncate anything", () => {
    expect(RESTRICTED_TABLES.audit_events).toEqual(["SELECT", "INSERT"]);
    expect(RESTRICTED_TABLES.ledger_entries).toEqual(["SELECT", "INSERT"]);
    expect(RESTRICTED_TABLES.audit_chain_heads).toEqual(["SELECT"]);
    const every = [...DATA_PRIVILEGES, ...Object.values(RESTRICTED_TABLES).flat()];
    expect(every).not.toContain("TRUNCATE");
  });

  it("reads MIGRATION_DATABASE_URL as a URL, empty meaning unset", () => {
    expect(parseEnv({ MIGRATION_DATABASE_URL: "postgresql://o@db/x" }).MIGRATION_DATABASE_URL).toBe(
      "postgresql://o@db/x",
    );
    expect(parseEnv({ MIGRATION_DATABASE_URL: "" }).MIGRATION_DATABASE_URL).toBeUndefined();
    expect(() => parseEnv({ MIGRATION_DATABASE_URL: "not a url" })).toThrow(/MIGRATION_DATABASE_URL/);
  });
});
