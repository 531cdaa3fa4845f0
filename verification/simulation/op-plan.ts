import { requestFingerprint } from "@/lib/domain/fingerprint";
import { RUNWAY_API_VERSION } from "@/lib/providers/runway/adapter";
import type { ProviderName } from "@/lib/providers/types";
import { quanta } from "./logical-clock";
import { Rng, seedOf } from "./random";

const MINUTE = 60_000;

/** Where the producer's own create call broke (the fault points of an ambiguous submission). */
export type CreateFault =
  | "none" // answered with the job id
  | "before_send" // the producer crashed before the request left
  | "not_accepted" // bytes left, the provider never accepted (a gateway answered 502)
  | "accepted_lost" // the provider accepted, the connection dropped before the answer
  | "response_lost"; // the answer arrived, the producer crashed before saving the job id

/** Why a producer that did get a job id still parks it. */
export type Trouble = "status_checks" | "download" | "generation_failed";

export type JobBehaviour = {
  outcome: "succeeded" | "failed" | "canceled";
  queuedMs: number;
  runningMs: number;
  /** The job is invisible (404, absent from listings) this long after creation: a lagging job list. */
  notFoundForMs: number;
  /** Output URLs stop working this long after completion. */
  outputTtlMs: number;
  resultTtlMs: number;
  errorOnStatus: boolean;
};

/** `headers`: what the provider's create route requires beside the body (Runway's API version). */
export type ModelChoice = {
  provider: ProviderName;
  model: string;
  createPath: string;
  headers?: Record<string, string>;
};

const RUNWAY_VERSION = { "x-runway-version": RUNWAY_API_VERSION };

const MODELS: ModelChoice[] = [
  {
    provider: "replicate",
    model: "minimax/video-01",
    createPath: "/replicate/v1/models/minimax/video-01/predictions",
  },
  {
    provider: "replicate",
    model: "kwaivgi/kling-v2.1",
    createPath: "/replicate/v1/models/kwaivgi/kling-v2.1/predictions",
  },
  { provider: "fal", model: "fal-ai/kling-video/v2.5-turbo/pro", createPath: "/fal/fal-ai/kling-video/v2.5-turbo/pro" },
  { provider: "fal", model: "fal-ai/minimax/video-01-live", createPath: "/fal/fal-ai/minimax/video-01-live" },
  // No job list, no client reference, no webhooks: uncertain submissions rest on people and billing.
  { provider: "runway", model: "gen4_turbo", createPath: "/runway/v1/image_to_video", headers: RUNWAY_VERSION },
  { provider: "runway", model: "gen3a_turbo", createPath: "/runway/v1/image_to_video", headers: RUNWAY_VERSION },
  // A job list read whole (no time filter), unsigned callbacks the product does not accept.
  { provider: "luma", model: "ray-2", createPath: "/luma/dream-machine/v1/generations" },
  // Read one operation at a time by its full name: no list, no callbacks, the files behind the key.
  {
    provider: "veo",
    model: "veo-3.1-generate-preview",
    createPath: "/veo/v1beta/models/veo-3.1-generate-preview:predictLongRunning",
  },
];

/**
 * The request a create carries, which the shop fingerprints exactly as sent: Runway and Luma take
 * the model in the body, the others in the URL; Veo wants the prompt as one of its `instances`.
 */
export function requestSent(model: ModelChoice, input: OpPlan["input"]): Record<string, unknown> {
  if (model.provider === "veo") return { ...input, instances: [{ prompt: input.prompt }] };
  return model.provider === "runway" || model.provider === "luma" ? { model: model.model, ...input } : input;
}

/** How the product's local storage treats this operation's copies: fine, refusing twice, or refusing every time. */
export type StorageTrouble = "none" | "repeated" | "always";

/**
 * An operation whose shop sends through the producer SDK: it asks for a send permit, calls the
 * create once with the webhook URL the permit names, and reports the outcome, unless it crashes
 * between the send and the report. The provider's signed webhook may come late, twice, with a
 * stale `processing` after it, after a badly signed copy, or never.
 */
export type PermitPlan = {
  /** The shop's process dies after the create left (or was answered) and before it reports. */
  crashesAfterSend: boolean;
  /** After a crash, the shop restarts and asks for the same send again this long after it. */
  restartAfterMs: number | null;
  /** How long the permit gives the shop to report its send. */
  sendWindowMs: number;
  /** The provider definitely refuses the create (a 422): the shop sends a new attempt under a new permit. */
  refused: boolean;
  /** The shop polls its job and reports how it ended; otherwise it leaves it to the webhook and the silence rule. */
  pollsItself: boolean;
  webhook: { lost: boolean; delayMs: number; duplicate: boolean; lateProcessing: boolean; badSignatureFirst: boolean };
  /** The shop sends its creates with the provider's official client, built with the SDK's guard. */
  officialClient: boolean;
};

/** Shops sharing the one provider account (index into the world's producers). */
export const PRODUCER_COUNT = 3;

export type OpPlan = {
  index: number;
  /** Which shop owns the operation. */
  producer: number;
  /** The operation ID text; a twin reuses the previous operation's text under another shop. */
  operationId: string;
  twin: boolean;
  /** When parking, the shop names another shop's job by mistake first. */
  misnamesJob: boolean;
  /** Once resolved, the operation comes back: the shop generates again and parks a new episode. */
  comesBack: boolean;
  storage: StorageTrouble;
  /** Choices about the seams above, drawn apart from `rng` so that its draws stay as they were. */
  seams: Rng;
  model: ModelChoice;
  input: { prompt: string; operation: string; shop: number; seconds: number };
  fingerprint: string;
  amountMicros: number;
  createFault: CreateFault;
  trouble: Trouble;
  job: JobBehaviour;
  /** How long after submitting the producer gives up and parks the job. */
  patienceMs: number;
  /** The id is in the producer's logs or the provider's dashboard, for a reviewer who looks. */
  reviewerFindsJob: boolean;
  /** Every later choice for this operation (faults, reviews, finance) comes from here, in order. */
  rng: Rng;
  /** Set when the shop sends this operation through the SDK under a send permit. */
  permit: PermitPlan | null;
};

const ownOperationId = (seed: number, index: number) => `sim-${seed}-op-${String(index).padStart(6, "0")}`;

/**
 * The seams of a deployment with several shops, drawn from a stream of their own so that the
 * operation's main stream (faults, people) is drawn exactly as before.
 */
function seams(seed: number, index: number) {
  const rng = new Rng(seedOf("seams", seed, index));
  const producer = rng.int(0, PRODUCER_COUNT - 1);
  const twinCandidate = index > 0 && rng.chance(0.05);
  return {
    rng,
    producer,
    twinCandidate,
    misnamesJob: rng.chance(0.04),
    comesBack: rng.chance(0.08),
    storage: rng.weighted<StorageTrouble>([
      ["none", 95],
      ["repeated", 3],
      ["always", 2],
    ]),
    lagsLong: rng.chance(0.06),
    outputsGoneEarly: rng.chance(0.1),
  };
}

/** Everything about operation `index` follows from the seed and the index alone. */
export function planOperation(seed: number, index: number): OpPlan {
  const rng = new Rng(seedOf("operation", seed, index));
  const model = rng.pick(MODELS);
  const own = seams(seed, index);
  // A twin's predecessor is never a twin itself, so (shop, operation ID) stays unique.
  const previous = index > 0 ? seams(seed, index - 1) : null;
  const twin = own.twinCandidate && previous !== null && !previous.twinCandidate;
  const producer = twin && previous ? (previous.producer + 1) % PRODUCER_COUNT : own.producer;
  const operationId = ownOperationId(seed, twin ? index - 1 : index);
  const input = {
    prompt: `product clip ${index}, soft light, slow pan`,
    operation: operationId,
    shop: producer,
    seconds: 5,
  };
  const createFault = rng.weighted<CreateFault>([
    ["none", 58],
    ["before_send", 6],
    ["not_accepted", 8],
    ["accepted_lost", 15],
    ["response_lost", 13],
  ]);
  const trouble = rng.weighted<Trouble>([
    ["status_checks", 45],
    ["download", 35],
    ["generation_failed", 20],
  ]);
  const job = jobBehaviour(rng, trouble === "generation_failed");
  const plan = {
    index,
    producer,
    operationId,
    twin,
    misnamesJob: own.misnamesJob,
    comesBack: own.comesBack,
    storage: own.storage,
    seams: own.rng,
    model,
    input,
    fingerprint: requestFingerprint(requestSent(model, input)),
    amountMicros: rng.pick([350_000, 500_000, 1_400_000]),
    createFault,
    trouble,
    job,
    patienceMs: quanta(rng.int(10, 40) * MINUTE),
    reviewerFindsJob: rng.chance(0.7),
    rng,
    permit: permitPlan(seed, index),
  };
  // The provider's list shows the job only long after the settling period (5 min deadline + 15 min).
  if (own.lagsLong) job.notFoundForMs = quanta(own.rng.int(30, 120) * MINUTE);
  // The provider deletes the outputs within minutes of completion, before any delivery can copy them.
  if (own.outputsGoneEarly && trouble === "download") job.outputTtlMs = quanta(own.rng.int(1, 3) * MINUTE);
  return plan;
}

/** Drawn from a stream of its own, so that every other draw of the operation stays as it was. */
function permitPlan(seed: number, index: number): PermitPlan | null {
  const rng = new Rng(seedOf("permit", seed, index));
  if (!rng.chance(0.35)) return null;
  const crashesAfterSend = rng.chance(0.35);
  return {
    crashesAfterSend,
    restartAfterMs: crashesAfterSend && rng.chance(0.6) ? quanta(rng.int(1, 30) * MINUTE) : null,
    sendWindowMs: quanta(rng.int(5, 20) * MINUTE),
    refused: rng.chance(0.06),
    pollsItself: rng.chance(0.6),
    webhook: {
      lost: rng.chance(0.15),
      delayMs: rng.chance(0.3) ? quanta(rng.int(1, 90) * MINUTE) : 0,
      duplicate: rng.chance(0.25),
      lateProcessing: rng.chance(0.2),
      badSignatureFirst: rng.chance(0.1),
    },
    // Drawn last, so that every draw before it stays as it was.
    officialClient: rng.chance(0.5),
  };
}

/** What the provider will do with a job; `mustFail` for a generation the producer saw fail. */
export function jobBehaviour(rng: Rng, mustFail: boolean): JobBehaviour {
  const outcome = mustFail
    ? rng.weighted<JobBehaviour["outcome"]>([
        ["failed", 80],
        ["canceled", 20],
      ])
    : rng.weighted<JobBehaviour["outcome"]>([
        ["succeeded", 88],
        ["failed", 8],
        ["canceled", 4],
      ]);
  const long = rng.chance(0.04);
  return {
    outcome,
    queuedMs: quanta(rng.int(0, 120) * 1000),
    runningMs: long ? quanta(rng.int(60, 180) * MINUTE) : quanta(rng.int(1, 40) * MINUTE),
    notFoundForMs: rng.chance(0.15) ? quanta(rng.int(1, 25) * MINUTE) : 0,
    outputTtlMs: rng.chance(0.2) ? quanta(rng.int(10, 40) * MINUTE) : 60 * MINUTE,
    resultTtlMs: rng.chance(0.1) ? quanta(rng.int(20, 50) * MINUTE) : 60 * MINUTE,
    errorOnStatus: rng.chance(0.5),
  };
}
