"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorBox, focusProblem, TextField } from "@/components/ui/form";

const MESSAGES: Record<string, string> = {
  CredentialsSignin: "Invalid email or password.",
  rate_limited: "Too many sign-in attempts. Wait a few minutes and try again.",
  AccessDenied: "This account cannot sign in here. Ask an administrator for access.",
  // Sent by the server's sign-in check (lib/auth/options.ts) when single sign-on cannot vouch for the email.
  OidcEmailUnverified:
    "Your identity provider has not verified this email address. Verify it there, then sign in again.",
};
const explain = (code: string): string => MESSAGES[code] ?? "Invalid email or password.";

export function SignInForm({ oidcName }: { oidcName: string | null }) {
  const router = useRouter();
  const params = useSearchParams();
  const initialError = params.get("error");
  const [error, setError] = useState<string | null>(initialError ? explain(initialError) : null);
  const [pending, setPending] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const callbackUrl = safeCallback(params.get("callbackUrl"));

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    });
    setPending(false);
    if (!result || result.error) {
      setError(explain(result?.error ?? "CredentialsSignin"));
      focusProblem(formRef.current);
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  return (
    <div className="mt-6">
      <form ref={formRef} onSubmit={onSubmit} className="space-y-4" noValidate>
        <TextField id="email" path="email" name="email" type="email" label="Email" autoComplete="username" required />
        <TextField
          id="password"
          path="password"
          name="password"
          type="password"
          label="Password"
          autoComplete="current-password"
          required
        />
        {error ? <ErrorBox>{error}</ErrorBox> : null}
        <Button type="submit" disabled={pending} className="w-full">
          {pending ? "Signing in…" : "Sign in"}
        </Button>
      </form>
      {oidcName && (
        <Button variant="secondary" className="mt-3 w-full" onClick={() => signIn("oidc", { callbackUrl })}>
          Continue with {oidcName}
        </Button>
      )}
    </div>
  );
}

/** Only same-site paths, so the sign-in page cannot be used as an open redirect. */
function safeCallback(value: string | null): string {
  if (!value) return "/";
  try {
    const url = new URL(value, window.location.origin);
    return url.origin === window.location.origin ? `${url.pathname}${url.search}` : "/";
  } catch {
    return "/";
  }
}
