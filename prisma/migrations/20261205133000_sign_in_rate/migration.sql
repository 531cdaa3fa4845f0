-- Sign-in rate per account (docs/decisions/053-sign-in-rate.md).

-- One token bucket per account name (unknown emails too, so a refusal does not tell which exist).
-- A sign-in attempt from an address the account has not signed in from takes a token in one
-- statement before its password is hashed; none left, no hash and no answer but "try later".
CREATE TABLE "sign_in_buckets" (
    "account" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "refilled_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_buckets_pkey" PRIMARY KEY ("account")
);

-- A bucket untouched long enough to be full again is the same as none: pruned by this index.
CREATE INDEX "sign_in_buckets_refilled_at_idx" ON "sign_in_buckets"("refilled_at");

-- Addresses (IPv4, or an IPv6 /64) an account signed in from with its password: its owner's usual
-- addresses, which draw on their own per-address limit instead of the account's bucket, so a
-- stranger emptying the bucket cannot keep the owner out.
CREATE TABLE "sign_in_addresses" (
    "user_id" UUID NOT NULL,
    "address" TEXT NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_addresses_pkey" PRIMARY KEY ("user_id", "address"),
    CONSTRAINT "sign_in_addresses_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "sign_in_addresses_last_seen_at_idx" ON "sign_in_addresses"("last_seen_at");
