"use client";

import { PageError } from "@/components/ui/page-error";

export default function AdminError({ error, retry }: { error: unknown; retry: () => void }) {
  return <PageError title="This admin page could not be loaded" error={error} retry={retry} />;
}
