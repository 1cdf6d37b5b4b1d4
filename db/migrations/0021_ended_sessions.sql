-- Dashboard sessions ended by sign-out (lib/server/session.ts): a session cookie names its session's id, and one
-- named here is refused until its own expiry, so a copy of the cookie dies with the sign-out. Rows past `expires_at`
-- (unix seconds) are no longer needed (the cookie has expired anyway) and are deleted by the next sign-out.
CREATE TABLE `ended_sessions` (
  `id` text PRIMARY KEY NOT NULL,
  `expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ended_sessions_expires_at` ON `ended_sessions` (`expires_at`);
