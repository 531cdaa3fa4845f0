"use client";

import { signOut } from "next-auth/react";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { FormError, useServerAction } from "@/components/ui/form";
import { signOutEverywhereAction } from "@/lib/actions/profile-actions";

/** Ends every session of yours (a lost laptop, a shared computer), then this browser's cookie too. */
export function SignOutEverywhereButton() {
  const { run, pending, result } = useServerAction(signOutEverywhereAction);
  return (
    <div className="flex flex-col items-start gap-2">
      <ConfirmButton
        label="Sign out everywhere"
        confirmLabel="Sign out every session"
        question="Every browser signed in as you, this one included, has to sign in again."
        pending={pending}
        onConfirm={() => run({}, () => void signOut({ callbackUrl: "/sign-in" }))}
      />
      <FormError result={result} listIssues />
    </div>
  );
}
