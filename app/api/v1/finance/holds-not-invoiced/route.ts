import { routeHandlers } from "@/lib/api/routes";

// Declared in lib/api/routes.ts; this file only tells Next.js where the route lives.
export const dynamic = "force-dynamic";
export const { GET } = routeHandlers("/api/v1/finance/holds-not-invoiced");
