import { expect, test } from "./fixtures/login";

// Who may open which console page, checked on the server for every role (403, never a crash).
const PAGES: [string, readonly string[]][] = [
  ["/overview", ["operator", "reviewer", "finance", "admin", "viewer"]],
  ["/queue", ["operator", "reviewer", "finance", "admin", "viewer"]],
  ["/alerts", ["operator", "reviewer", "finance", "admin", "viewer"]],
  ["/bulk-jobs", ["operator", "reviewer", "finance", "admin", "viewer"]],
  ["/finance", ["finance"]],
  ["/finance/usage", ["finance", "admin"]],
  ["/finance/unexplained", ["finance", "admin"]],
  ["/admin/users", ["admin"]],
  ["/admin/api-keys", ["admin"]],
  ["/admin/worker-tokens", ["admin"]],
  ["/admin/prices", ["admin"]],
  ["/admin/providers", ["admin"]],
  ["/admin/alerts", ["admin"]],
  ["/admin/retention", ["admin"]],
  ["/profile", ["operator", "reviewer", "finance", "admin", "viewer"]],
];

for (const role of ["operator", "reviewer", "finance", "admin", "viewer"] as const) {
  test(`${role}: each console page answers 200 or 403 as the roles table says`, async ({ page, login }) => {
    await login(`${role}@demo.local`);
    for (const [path, allowed] of PAGES) {
      const response = await page.goto(path);
      expect(response?.status(), `${role} ${path}`).toBe(allowed.includes(role) ? 200 : 403);
    }
  });
}
