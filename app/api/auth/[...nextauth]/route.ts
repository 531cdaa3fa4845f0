import type { NextRequest } from "next/server";
import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

// Options are built per request so that importing this module never reads the environment.
async function handler(req: NextRequest, context: Context) {
  return NextAuth(req, context, authOptions());
}

export { handler as GET, handler as POST };
