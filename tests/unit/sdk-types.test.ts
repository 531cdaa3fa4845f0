import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { STAGES } from "@/lib/domain/stages";
import type { ErrorBody } from "@/lib/errors";
import { PROVIDER_NAMES as REGISTRY_NAMES } from "@/lib/providers/registry";
import type { ProviderName as RegistryProviderName } from "@/lib/providers/types";
import type { OperationStanding as ServerStanding } from "@/lib/services/case/get-case-by-operation";
import type { ParkCaseResult } from "@/lib/services/case/park-case";
import type { OutcomeResult } from "@/lib/services/permit/report-outcome";
import type { PermitResult } from "@/lib/services/permit/request-permit";
import type { acknowledgeReplacement, listReplacements } from "@/lib/services/replacement/producer-replacements";
import type { parkCaseSchema } from "@/lib/validation/park-case";
import type { outcomeReportSchema, permitRequestSchema } from "@/lib/validation/permits";
import type * as sdk from "@/sdk/src";
import { PROVIDER_NAMES, WEBHOOK_PROVIDERS } from "@/sdk/src";

// The SDK's types are plain TypeScript (the package carries neither zod nor the app), so they are
// held to the server's here: the expectTypeOf lines fail `tsc --noEmit` (CI's typecheck) the moment
// one side changes without the other; the runtime lines hold the SDK's name lists to the registry.

describe("the producer SDK's types match the server's", () => {
  it("names exactly the registry's providers, in its order", () => {
    expect([...PROVIDER_NAMES]).toEqual([...REGISTRY_NAMES]);
    expectTypeOf<sdk.ProviderName>().toEqualTypeOf<RegistryProviderName>();
  });

  it("gives a webhook URL to exactly the providers the app verifies webhooks for", () => {
    expectTypeOf<sdk.WebhookProvider>().toEqualTypeOf<
      keyof NonNullable<Extract<PermitResult, { status: "permitted" }>["webhook"]>["urls"]
    >();
    expect([...WEBHOOK_PROVIDERS].every((name) => (REGISTRY_NAMES as readonly string[]).includes(name))).toBe(true);
  });

  it("sends the bodies the API's schemas accept", () => {
    expectTypeOf<sdk.PermitRequestInput>().toEqualTypeOf<z.infer<typeof permitRequestSchema>>();
    expectTypeOf<sdk.OutcomeReportInput>().toEqualTypeOf<z.infer<typeof outcomeReportSchema>>();
    expectTypeOf<sdk.ParkCaseInput>().toEqualTypeOf<z.infer<typeof parkCaseSchema>>();
    expectTypeOf<sdk.Stage>().toEqualTypeOf<(typeof STAGES)[number]>();
  });

  it("reads the answers the services give", () => {
    expectTypeOf<sdk.PermitAnswer>().toEqualTypeOf<PermitResult>();
    expectTypeOf<sdk.OutcomeAnswer>().toEqualTypeOf<OutcomeResult>();
    expectTypeOf<sdk.ParkAnswer>().toEqualTypeOf<ParkCaseResult>();
    expectTypeOf<sdk.OperationStanding>().toEqualTypeOf<ServerStanding>();
    expectTypeOf<sdk.ReplacementAck>().toEqualTypeOf<Awaited<ReturnType<typeof acknowledgeReplacement>>>();
    // The listing's status column is the table's whole enum; the query returns only these two.
    type Listed = Awaited<ReturnType<typeof listReplacements>>["items"][number];
    expectTypeOf<Omit<sdk.Replacement, "status">>().toEqualTypeOf<Omit<Listed, "status">>();
    expectTypeOf<sdk.ApiErrorBody["error"]["issues"]>().toEqualTypeOf<ErrorBody["error"]["issues"]>();
    expectTypeOf<sdk.ApiErrorBody["error"]["details"]>().toEqualTypeOf<ErrorBody["error"]["details"]>();
  });
});
