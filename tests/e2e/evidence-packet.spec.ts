import { readFile } from "node:fs/promises";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { verifyEvidenceBytes } from "@/lib/evidence/packet-signature";
import { expect, test } from "./fixtures/login";

// A reviewer takes a case's evidence packet out of the console for a billing dispute: a printable
// page with the key id and public key, and the signed JSON file, which verifies against the key the
// deployment publishes and fails once edited. Looking at the page is not an export (decision 057):
// only the download shows on the case's timeline, once.

/** Serious or critical axe findings (WCAG 2.1 A and AA), in both colour schemes. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    for (const v of results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
      problems.push(
        `${v.id} (${colorScheme}): ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")}`,
      );
    }
  }
  return problems;
}

test("a reviewer opens a case's printable evidence packet and downloads the signed JSON", async ({ page, login }) => {
  test.slow();
  await login("reviewer@demo.local");
  await page.goto("/queue?q=demo-order-1000");
  await page.getByRole("link", { name: "demo-order-1000" }).click();
  const caseUrl = page.url();
  await page.getByRole("navigation", { name: "Evidence" }).getByRole("link", { name: "Evidence packet" }).click();

  await expect(page.getByRole("heading", { name: "Evidence packet", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: /Operation demo-order-1000/ })).toBeVisible();
  const signature = page.getByTestId("evidence-signature");
  await expect(signature).toContainText("Ed25519");
  await expect(signature).toContainText("BEGIN PUBLIC KEY");
  const keyId = (await signature.getByText(/^ed25519:[0-9a-f]{16}$/).textContent()) ?? "";
  expect(keyId).toMatch(/^ed25519:/);
  await expect(page.getByTestId("evidence-ledger")).toContainText("Reserved");
  await expect(page.getByTestId("evidence-timeline")).toContainText("Parked as");
  // The demo says so on paper too.
  await expect(page.getByTestId("evidence-packet")).toContainText("Demo");
  const problems = await accessibilityProblems(page);
  expect(problems, problems.join("\n")).toEqual([]);

  // On paper: the packet without the console's navigation and links.
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expect(page.getByRole("link", { name: "Download signed JSON" })).toBeHidden();
  await expect(page.getByTestId("evidence-packet")).toBeVisible();
  await page.emulateMedia({ media: "screen" });

  // Looking is not exporting (decision 057): the case's record has no export yet.
  const evidenceUrl = page.url();
  await page.goto(caseUrl);
  await expect(page.getByTestId("timeline")).toBeVisible();
  await expect(page.getByTestId("timeline").getByText(/Evidence packet exported/)).toHaveCount(0);
  await page.goto(evidenceUrl);

  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download signed JSON" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^evidence-case-[0-9a-f-]{36}-[0-9a-f]{8}\.json$/);
  const bytes = await readFile((await download.path()) ?? "");

  const published = await page.request.get("/api/v1/evidence/public-key");
  expect(published.status()).toBe(200);
  const key = (await published.json()) as { keyId: string; publicKey: string };
  expect(key.keyId).toBe(keyId);
  const verified = verifyEvidenceBytes(bytes, { trustedPublicKeys: [key.publicKey] });
  expect(verified).toMatchObject({ valid: true, trusted: true, keyId });
  expect(verified.valid && verified.packet.cases[0]?.case.operationId).toBe("demo-order-1000");
  const packetId = verified.valid ? verified.packet.packetId : "";

  const edited = Buffer.from(
    bytes.toString("utf8").replace('"operationId":"demo-order-1000"', '"operationId":"demo-order-1001"'),
  );
  expect(edited.equals(bytes)).toBe(false);
  expect(verifyEvidenceBytes(edited).valid).toBe(false);

  // Looking again is no export; the download was one, on the case's record under the packet's id.
  await page.reload();
  await expect(page.getByTestId("evidence-packet")).toBeVisible();
  await page.goto(caseUrl);
  const exported = page.getByTestId("timeline").getByText(/Evidence packet exported/);
  await expect(exported).toHaveCount(1);
  await expect(exported).toContainText(packetId.slice(0, 8));
});

test("an operator is offered no evidence packet and is refused one", async ({ page, login }) => {
  await login("operator@demo.local");
  await page.goto("/queue?q=demo-order-1000");
  await page.getByRole("link", { name: "demo-order-1000" }).click();
  await expect(page.getByRole("heading", { name: /demo-order-1000/ }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Evidence packet" })).toHaveCount(0);
  const caseId = new URL(page.url()).pathname.split("/").at(-1);
  expect((await page.goto(`/cases/${caseId}/evidence`))?.status()).toBe(403);
  const refused = await page.request.get(`/api/v1/cases/${caseId}/evidence`);
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ error: { code: "forbidden" } });
});

test("finance takes the evidence packet of a queue view: its cases only, signed", async ({ page, login }) => {
  await login("finance@demo.local");
  await page.goto("/queue?q=demo-order-100");
  const evidence = page.getByRole("navigation", { name: "Evidence" });
  await evidence.getByRole("link", { name: /Evidence packet of this view/ }).click();
  const packet = page.getByTestId("evidence-packet");
  await expect(packet).toContainText("q=demo-order-100");
  await expect(page.getByTestId("evidence-signature")).toContainText("Ed25519");

  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download signed JSON" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^evidence-filter-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}\.json$/);
  const bytes = await readFile((await download.path()) ?? "");
  const verified = verifyEvidenceBytes(bytes);
  if (!verified.valid) throw new Error(verified.reason);
  expect(verified.packet.scope).toMatchObject({ kind: "filter", filter: { q: "demo-order-100" }, cap: 200 });
  expect(verified.packet.cases.length).toBeGreaterThan(0);
  for (const item of verified.packet.cases) expect(item.case.operationId).toContain("demo-order-100");
  // The printable page shows each of those cases.
  for (const item of verified.packet.cases) {
    await expect(packet.getByRole("heading", { name: `Operation ${item.case.operationId}` })).toBeVisible();
  }
});
