-- Sessions that can be ended before their cookie expires (issue 15, item 2).

-- Every session cookie carries the version its user had at sign-in; bumping it (password reset, role
-- change, deactivation, "sign out everywhere") ends every session of that user at its next request.
ALTER TABLE "users" ADD COLUMN "session_version" INTEGER NOT NULL DEFAULT 0;

-- One signed-out session, by the id its cookie carries, so a copy of that cookie stops working too.
-- Kept only until the cookie would have expired anyway; sign-out prunes the rows past that.
CREATE TABLE "ended_sessions" (
    "session_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ended_sessions_pkey" PRIMARY KEY ("session_id")
);
CREATE INDEX "ended_sessions_expires_at_idx" ON "ended_sessions"("expires_at");
ALTER TABLE "ended_sessions" ADD CONSTRAINT "ended_sessions_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Single sign-on identities (item 11): a login is matched by issuer and subject, never by email alone.
-- The email links an account once, and only when the identity provider says it is verified.
CREATE TABLE "user_identities" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "linked_email" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "user_identities_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "user_identities_issuer_subject_key" ON "user_identities"("issuer", "subject");
-- One identity per issuer per account: a second subject with the same email is someone else.
CREATE UNIQUE INDEX "user_identities_user_id_issuer_key" ON "user_identities"("user_id", "issuer");
ALTER TABLE "user_identities" ADD CONSTRAINT "user_identities_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
