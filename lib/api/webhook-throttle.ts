import { isIP } from "node:net";
import { clientAddress, SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { AppError } from "@/lib/errors";
import { processShared } from "@/lib/process-shared";
import type { ApiRequest } from "./api-request";
import { OtherAccountRefused } from "./authenticate-provider";

/**
 * Provider webhook routes have no bearer token to count against, and a request that does not verify
 * may cost an outbound fetch of the provider's keys. So refusals are counted per client address
 * (an IPv6 client per /64, which one host usually holds whole), and an address past the limit is
 * answered 429 before its body is read or any key is fetched. Signed webhooks never count: a
 * provider sending real traffic is never slowed. Counted in memory per process: the limit bounds
 * the work a flood causes here, and every instance has its own.
 */
export const WEBHOOK_REFUSALS_PER_WINDOW = 30;
export const WEBHOOK_REFUSAL_WINDOW_MS = 60_000;
/** Past this many tracked addresses the oldest windows are dropped, so a spread-out flood cannot grow memory. */
const MAX_TRACKED = 10_000;

type Window = { start: number; refusals: number };
const windows = () => processShared("webhook-refusals", () => new Map<string, Window>());

/** The throttled unit of an address: IPv4 as it is, IPv6 by its first 64 bits. */
export function throttleKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const hextets = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${hextets
    .slice(0, 4)
    .map((part) => part.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

function addressOf(req: ApiRequest): string {
  return throttleKey(
    clientAddress({
      [SOCKET_ADDRESS_HEADER]: req.header(SOCKET_ADDRESS_HEADER) ?? undefined,
      "x-forwarded-for": req.header("x-forwarded-for") ?? undefined,
    }),
  );
}

function current(key: string, now: number): Window | undefined {
  const window = windows().get(key);
  return window && now - window.start < WEBHOOK_REFUSAL_WINDOW_MS ? window : undefined;
}

/** Refuses an address that has had too many webhooks refused lately, before anything else is done. */
export function admitWebhook(req: ApiRequest, now = Date.now()): string {
  const key = addressOf(req);
  const window = current(key, now);
  if (window && window.refusals >= WEBHOOK_REFUSALS_PER_WINDOW) {
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + WEBHOOK_REFUSAL_WINDOW_MS - now) / 1000));
    throw new AppError("rate_limited", "Too many unverified webhooks from this address; slow down.", {
      retryAfterSeconds,
    });
  }
  return key;
}

/**
 * What counts against an address: a body that could not be read (not JSON, too large, not UTF-8)
 * or a webhook that could not be verified. A webhook the provider really signed for another account
 * never counts: its address is the provider's, shared with this deployment's own webhooks.
 */
export function countsAgainstAddress(error: unknown): boolean {
  if (!(error instanceof AppError) || error instanceof OtherAccountRefused) return false;
  return ["unauthenticated", "invalid_request", "payload_too_large", "unsupported_media_type"].includes(error.code);
}

/** Counts a webhook from `key` that did not verify (or could not be read). */
export function countWebhookRefusal(key: string, now = Date.now()): void {
  const store = windows();
  const window = current(key, now);
  if (window) {
    window.refusals++;
    return;
  }
  store.delete(key);
  if (store.size >= MAX_TRACKED) {
    for (const old of store.keys()) {
      store.delete(old);
      if (store.size < MAX_TRACKED / 2) break;
    }
  }
  store.set(key, { start: now, refusals: 1 });
}
