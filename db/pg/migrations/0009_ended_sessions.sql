-- db/migrations/0021_ended_sessions.sql on PostgreSQL: dashboard sessions ended by sign-out, refused by every
-- process until their own expiry (unix seconds); rows past it are deleted by the next sign-out.
CREATE TABLE "ended_sessions" (
  "id" text PRIMARY KEY NOT NULL,
  "expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ended_sessions_expires_at" ON "ended_sessions" ("expires_at");
