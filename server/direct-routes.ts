import * as byOperation from "@/app/api/v1/cases/by-operation/[operationId]/route";
import * as cases from "@/app/api/v1/cases/route";
import * as replacementAck from "@/app/api/v1/replacements/[id]/ack/route";
import * as replacements from "@/app/api/v1/replacements/route";
import * as tick from "@/app/api/worker/tick/route";
import { createRouteMatcher } from "./route-matcher";

/**
 * The routes programs call in bursts (producers registering cases, worker ticks), served by the
 * handlers Next.js serves them with, minus its router. Every other route, and every other method
 * on these paths, goes to Next.js.
 */
export const directRoute = createRouteMatcher([
  ["POST", "/api/v1/cases", cases.POST],
  ["GET", "/api/v1/cases/by-operation/:operationId", byOperation.GET],
  ["GET", "/api/v1/replacements", replacements.GET],
  ["POST", "/api/v1/replacements/:id/ack", replacementAck.POST],
  ["POST", "/api/worker/tick", tick.POST],
]);
