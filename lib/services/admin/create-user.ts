import { recordAudit } from "@/lib/audit/writer";
import { generatePassword, hashPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { CreateUserInput } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";

/**
 * An admin creates an account with a generated password, returned exactly once (only its argon2id
 * hash is stored). An existing email is refused rather than silently overwritten.
 */
export async function createUser(db: Db, actor: Principal, input: CreateUserInput) {
  const admin = requirePermission(actor, "admin:users");
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const name = input.name ?? input.email.split("@")[0] ?? input.email;
  try {
    const user = await inTransaction(db, async (tx) => {
      const created = await tx.user.create({
        data: { email: input.email, name, roles: input.roles, passwordHash },
        select: { id: true, email: true, name: true, roles: true },
      });
      await recordAudit(tx, { actor: admin, kind: "user_created", after: created });
      return created;
    });
    return { user, password };
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError("invalid_request", `An account for ${input.email} already exists.`, {
        issues: [{ path: "email", message: "an account with this email already exists" }],
      });
    throw error;
  }
}
