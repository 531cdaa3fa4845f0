import { describe, expect, it } from "vitest";
import { afterFailedSend, isDelivered, MAX_WEBHOOK_ATTEMPTS, webhookRetryDelayMs } from "./webhook-retry";

describe("webhook retries", () => {
  it("counts only 2xx as delivered", () => {
    expect([null, 199, 200, 204, 299, 300, 410, 500].map(isDelivered)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it("backs off from 10 s doubling to 6 h, jittered over the upper half", () => {
    expect(webhookRetryDelayMs(0, () => 0)).toBe(5_000);
    expect(webhookRetryDelayMs(0, () => 1)).toBe(10_000);
    expect(webhookRetryDelayMs(3, () => 0.5)).toBe(60_000);
    expect(webhookRetryDelayMs(20, () => 1)).toBe(6 * 3600 * 1000);
  });

  it("disables the endpoint and gives up on 410, gives up after the last attempt, else retries", () => {
    const half = () => 0.5;
    expect(afterFailedSend(410, 1, half)).toEqual({ giveUp: true, disableEndpoint: true, retryInMs: null });
    expect(afterFailedSend(500, MAX_WEBHOOK_ATTEMPTS, half)).toEqual({
      giveUp: true,
      disableEndpoint: false,
      retryInMs: null,
    });
    expect(afterFailedSend(null, 1, half)).toEqual({ giveUp: false, disableEndpoint: false, retryInMs: 15_000 });
    expect(afterFailedSend(503, MAX_WEBHOOK_ATTEMPTS - 1, half).giveUp).toBe(false);
  });
});
