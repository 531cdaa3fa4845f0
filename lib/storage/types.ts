import type { Writable } from "node:stream";

export type StoredObject = { key: string; size: number };

/**
 * Durable storage for delivered videos. A write goes to a private staging place and becomes
 * visible under its key only on `commit`, so a crashed or stale worker never leaves a partial or
 * unverified file where a reader could find it. An S3-compatible bucket fits the same shape
 * (multipart upload, then complete).
 */
export interface AssetStorage {
  begin(key: string): Promise<PendingWrite>;
  exists(key: string): Promise<boolean>;
  size(key: string): Promise<number | null>;
}

export interface PendingWrite {
  sink: Writable;
  commit(): Promise<StoredObject>;
  abort(): Promise<void>;
}
