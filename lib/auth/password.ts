import { randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import { processShared } from "@/lib/process-shared";

// algorithm 2 is Argon2id (the library exports it only as a const enum).
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Checked against when the account does not exist, so timing does not reveal which emails exist. */
export function decoyHash(): Promise<string> {
  return processShared("decoy-password-hash", () => hashPassword(randomBytes(16).toString("hex")));
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
