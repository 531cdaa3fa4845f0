import path from "node:path";
import type { Env } from "@/lib/env";
import { localStorage } from "./local-storage";
import type { AssetStorage } from "./types";

/** Where delivered videos live for this deployment: the worker writes there, the console reads. */
export function assetStorageOf(env: Pick<Env, "ASSET_DIR" | "DATA_DIR">): AssetStorage {
  return localStorage(env.ASSET_DIR ?? path.join(env.DATA_DIR, "assets"));
}
