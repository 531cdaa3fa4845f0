import type { CompletedQueueStatus, InProgressQueueStatus, InQueueQueueStatus } from "@fal-ai/client";
import type { GenerateVideosOperation } from "@google/genai";
import type { TaskRetrieveResponse } from "@runwayml/sdk/resources/tasks";
import type { Generation, GenerationListResponse } from "lumaai/resources/generations/generations";
import type { Page, Prediction } from "replicate";
import { recordedStatus } from "@/lib/providers/fal/recorded";
import { recordedList as lumaList, recordedGeneration } from "@/lib/providers/luma/recorded";
import { recordedPrediction, recordedList as replicateList } from "@/lib/providers/replicate/recorded";
import { recordedTask, recordedTaskWithCost } from "@/lib/providers/runway/recorded";
import { recordedOperation } from "@/lib/providers/veo/recorded";

// The recorded provider answers (lib/providers/*/recorded.ts) against the types of the official
// clients (replicate 1.4.0, @fal-ai/client 1.10.1, @runwayml/sdk 4.20.1, lumaai 1.19.1,
// @google/genai 3.3.0). Checked by `tsc --noEmit` only: a fixture missing a field a client's type
// requires, or holding one of another type, fails the typecheck.
//
// The fixtures are plain objects, so their enum fields are inferred as `string`; `Wire<T>` widens the
// client's literal unions to their base type, so the check is on fields and their types, not on
// spellings of a status (the transforms' tests read those). It also allows `null` where the client
// types a field optional: the APIs send `null` for an absent value (Replicate's `logs`,
// `started_at`, `completed_at`; Luma's `failure_reason`, `assets`), which the clients' types leave out.
type Wire<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer U)[]
        ? Wire<U>[]
        : T extends object
          ? { [K in keyof T]: undefined extends T[K] ? Wire<T[K]> | null : Wire<T[K]> }
          : T;

// Replicate: every recorded prediction is a `Prediction`, and the list a page of them.
recordedPrediction.starting satisfies Wire<Prediction>;
recordedPrediction.processing satisfies Wire<Prediction>;
recordedPrediction.succeeded satisfies Wire<Prediction>;
recordedPrediction.succeededMany satisfies Wire<Prediction>;
recordedPrediction.succeededRemoved satisfies Wire<Prediction>;
recordedPrediction.failed satisfies Wire<Prediction>;
recordedPrediction.canceled satisfies Wire<Prediction>;
replicateList satisfies Wire<Page<Prediction>>;

// fal: the queue status answers. `logs` is null unless the status was asked for with `logs=1` (the
// client always asks while polling), which the client's type does not model: `WireLogs` allows it.
type WireLogs<T> = Omit<Wire<T>, "logs"> & { logs: Wire<T extends { logs: infer L } ? L : never> | null };
recordedStatus.inQueue satisfies Wire<InQueueQueueStatus>;
recordedStatus.inProgress satisfies WireLogs<InProgressQueueStatus>;
recordedStatus.completed satisfies WireLogs<CompletedQueueStatus>;
// A failed request's completed status: `error` and `error_type` are newer than the client's type,
// and fal answers `metrics: {}` where the type requires `inference_time` (null at least).
// @ts-expect-error: `metrics` without `inference_time`.
recordedStatus.completedWithError satisfies WireLogs<CompletedQueueStatus>;

// Runway: the task variants with their costs, as @runwayml/sdk types them.
recordedTaskWithCost.pending satisfies Wire<TaskRetrieveResponse.Pending>;
recordedTaskWithCost.throttled satisfies Wire<TaskRetrieveResponse.Throttled>;
recordedTaskWithCost.running satisfies Wire<TaskRetrieveResponse.Running>;
recordedTaskWithCost.succeeded satisfies Wire<TaskRetrieveResponse.Succeeded>;
recordedTaskWithCost.failed satisfies Wire<TaskRetrieveResponse.Failed>;
recordedTaskWithCost.cancelled satisfies Wire<TaskRetrieveResponse.Cancelled>;
// The API reference's own examples (recordedTask) omit the costs the client's type requires.
// @ts-expect-error: no `estimatedCost` in the reference's PENDING example.
recordedTask.pending satisfies Wire<TaskRetrieveResponse.Pending>;
// @ts-expect-error: no `cost` in the reference's SUCCEEDED example.
recordedTask.succeeded satisfies Wire<TaskRetrieveResponse.Succeeded>;

// Luma: every recorded generation is a `Generation`, and the list a `GenerationListResponse`.
recordedGeneration.queued satisfies Wire<Generation>;
recordedGeneration.dreaming satisfies Wire<Generation>;
recordedGeneration.completed satisfies Wire<Generation>;
recordedGeneration.completedImage satisfies Wire<Generation>;
recordedGeneration.failed satisfies Wire<Generation>;
lumaList satisfies Wire<GenerationListResponse>;

// Veo: the recordings are the Gemini API's wire answers (`generateVideoResponse.generatedSamples`,
// `encodedVideo`), which @google/genai converts into its own `GenerateVideosOperation`
// (`response.generatedVideos`, `videoBytes`); only `clientShape` is recorded in the client's shape.
// The operation is a class; its method is not part of an answer.
type Operation = Omit<GenerateVideosOperation, "_fromAPIResponse">;
recordedOperation.clientShape satisfies Wire<Operation>;
recordedOperation.running satisfies Wire<Operation>;
recordedOperation.failed satisfies Wire<Operation>;
recordedOperation.cancelled satisfies Wire<Operation>;
