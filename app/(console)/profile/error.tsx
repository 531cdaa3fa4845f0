"use client";

import { PageError } from "@/components/ui/page-error";

export default function ProfileError({ error, retry }: { error: unknown; retry: () => void }) {
  return <PageError title="Your profile could not be loaded" error={error} retry={retry} />;
}
