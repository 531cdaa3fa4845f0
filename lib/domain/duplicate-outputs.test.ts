import { describe, expect, it } from "vitest";
import {
  duplicateSentence,
  flagEvidence,
  isSuspectedPaidDuplicate,
  orderedPair,
  otherSideFor,
} from "./duplicate-outputs";

const copy = (assetId: string, attemptRef: string, caseId = `case-${attemptRef}`, sha256 = "aa") => ({
  assetId,
  caseId,
  attemptRef,
  sha256,
});

describe("suspected paid duplicates (decision 072)", () => {
  it("are the same bytes from two different attempts", () => {
    expect(isSuspectedPaidDuplicate(copy("1", "x"), copy("2", "y"))).toBe(true);
    // A replacement of the same case that delivered what the original had: two paid jobs.
    expect(isSuspectedPaidDuplicate(copy("1", "x", "c"), copy("2", "y", "c"))).toBe(true);
    expect(isSuspectedPaidDuplicate(copy("1", "x"), copy("2", "x"))).toBe(false);
    expect(isSuspectedPaidDuplicate(copy("1", "x"), copy("1", "y"))).toBe(false);
    expect(isSuspectedPaidDuplicate(copy("1", "x", "c", "aa"), copy("2", "y", "d", "bb"))).toBe(false);
  });

  it("are stored in one order whichever side publishes first", () => {
    const a = copy("b-asset", "x");
    const b = copy("a-asset", "y");
    expect(orderedPair(a, b)).toEqual(orderedPair(b, a));
    expect(orderedPair(a, b)).toMatchObject({ firstAssetId: "a-asset", firstCaseId: "case-y" });
  });

  it("name another producer's operation only to people who work for it", () => {
    const other = { caseId: "c2", producer: "south", operationId: "order-9" };
    expect(otherSideFor(["north"], { caseId: "c1" }, other)).toEqual({ kind: "hidden" });
    expect(otherSideFor(null, { caseId: "c1" }, other)).toEqual({
      kind: "visible",
      caseId: "c2",
      operationId: "order-9",
    });
    expect(otherSideFor(["south"], { caseId: "c2" }, other)).toEqual({ kind: "same_case" });
    expect(duplicateSentence({ kind: "visible", caseId: "c2", operationId: "order-9" })).toBe(
      "Suspected paid duplicate: the same video was delivered for operation order-9",
    );
    expect(duplicateSentence({ kind: "hidden" })).not.toContain("order-9");
  });

  it("write a timeline row that names the other operation only within one producer", () => {
    const cross = flagEvidence(
      { caseId: "c1", producer: "north" },
      { caseId: "c2", producer: "south", operationId: "o-2" },
      "aa",
    );
    expect(JSON.stringify(cross)).not.toContain("o-2");
    expect(cross.text).toBe("Suspected paid duplicate: the same video was delivered for another producer's operation");
    const within = flagEvidence(
      { caseId: "c1", producer: "north" },
      { caseId: "c2", producer: "north", operationId: "o-2" },
      "aa",
    );
    expect(within).toMatchObject({ otherOperationId: "o-2", sameProducer: true });
    const own = flagEvidence(
      { caseId: "c1", producer: "north" },
      { caseId: "c1", producer: "north", operationId: "o-1" },
      "aa",
    );
    expect(own.text).toContain("another attempt of this operation");
  });
});
