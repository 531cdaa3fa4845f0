import type { Readable, Writable } from "node:stream";

export type StoredObject = { key: string; size: number };

/**
 * Durable storage for delivered videos. A write goes to a private staging place and becomes
 * visible under its key only on `commit`, so a crashed or stale worker never leaves a partial or
 * unverified file where a reader could find it. `commit` never replaces what is already under the
 * key (exclusive create). An S3-compatible bucket fits the same shape (multipart upload, then a
 * conditional complete with `If-None-Match: *`).
 */
export interface AssetStorage {
  begin(key: string): Promise<PendingWrite>;
  exists(key: string): Promise<boolean>;
  size(key: string): Promise<number | null>;
  /** The published file under the key to read, with its size; null when nothing is there. */
  open(key: string): Promise<OpenedFile | null>;
  /** Deletes what is under the key (retention, decision 033); a key already gone is no error. */
  remove(key: string): Promise<void>;
  /**
   * Keys of the files last written before `cutoff`, by what is on disk (DESIGN rule 20: an orphan
   * no row names is found this way), at most `limit`, in key order (segment by segment) and only
   * those after `after`, so a caller pages through a store larger than one listing. Never follows a
   * link, so never leaves the store.
   */
  listOlderThan(cutoff: Date, limit: number, after?: string): Promise<string[]>;
}

/**
 * A published file held open: its size, then its bytes (all of them, or one inclusive range, read
 * from the store as they are sent, never whole into memory) or a close when nothing is read.
 */
export interface OpenedFile {
  size: number;
  /** The bytes; the file is closed when the stream ends or is destroyed. Called at most once. */
  stream(range?: { start: number; end: number }): Readable;
  /** Closes the file without reading it (a range it cannot satisfy). */
  close(): Promise<void>;
}

export interface PendingWrite {
  sink: Writable;
  commit(): Promise<StoredObject>;
  abort(): Promise<void>;
}

export type StorageRefusalReason = "unsafe_key" | "key_taken" | "refused";

/**
 * A refusal that the same write would meet again on every retry (a key the store will not take,
 * a file already under the key, no permission or no space): the caller ends the action with this
 * as evidence instead of letting its lease run out and trying again.
 */
export class StorageRefusal extends Error {
  constructor(
    readonly reason: StorageRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = "StorageRefusal";
  }
}

/** Error codes of the file system that no retry of the same write can cure. */
const LASTING_CODES = new Set(["EACCES", "EPERM", "ENOSPC", "EDQUOT", "EROFS", "ENOTDIR", "EISDIR", "ENAMETOOLONG"]);

export function asStorageRefusal(error: unknown): StorageRefusal | null {
  if (error instanceof StorageRefusal) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && LASTING_CODES.has(code)) {
    return new StorageRefusal("refused", `the store refused the write (${code})`);
  }
  return null;
}
