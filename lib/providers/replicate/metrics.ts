import { isObject } from "../json";
import type { JobMetrics } from "../types";

/**
 * What a finished prediction measured (`metrics`, `replicate` `Prediction.metrics`): the seconds it
 * ran (`predict_time`) and, for models priced per second of video, the video's seconds
 * (`video_output_duration_seconds`, seen on such models, not in the client's types). Not a charge:
 * the product prices it from its own price table (decision 076). Unfinished or unreadable: unknown.
 */
export function predictionMetrics(httpStatus: number, body: unknown): JobMetrics {
  if (httpStatus !== 200 || !isObject(body)) return { kind: "unknown", reason: `http_${httpStatus}` };
  const status = body.status;
  if (status !== "succeeded" && status !== "failed" && status !== "canceled")
    return { kind: "unknown", reason: "not_finished" };
  const metrics = isObject(body.metrics) ? body.metrics : {};
  const seconds = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
  const runSeconds = seconds(metrics.predict_time);
  if (runSeconds === undefined) return { kind: "unknown", reason: "no_predict_time" };
  const outputSeconds = seconds(metrics.video_output_duration_seconds);
  return {
    kind: "ok",
    succeeded: status === "succeeded",
    runSeconds,
    ...(outputSeconds === undefined ? {} : { outputSeconds }),
  };
}
