-- db/migrations/0014_agent_activity.sql on PostgreSQL: each agent's op counts per UTC day, kept by a trigger on
-- ledger_entries (every path that writes entries keeps it), filled here from the entries; the records an agent changed
-- since a time counted from an index.
CREATE TABLE "agent_day_activity" (
	"agent_id" text NOT NULL,
	"day" text NOT NULL,
	"creates" integer DEFAULT 0 NOT NULL,
	"updates" integer DEFAULT 0 NOT NULL,
	"deletes" integer DEFAULT 0 NOT NULL,
	"moves" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "agent_day_activity_agent_id_day_pk" PRIMARY KEY("agent_id","day")
);
--> statement-breakpoint
ALTER TABLE "agent_day_activity" ADD CONSTRAINT "agent_day_activity_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "records_agent_changed_idx" ON "records" USING btree ("agent_id","last_changed_at");
--> statement-breakpoint
INSERT INTO "agent_day_activity" ("agent_id", "day", "creates", "updates", "deletes", "moves")
  SELECT agent_id, substr(created_at, 1, 10), sum(creates), sum(updates), sum(deletes), sum(moves) FROM ledger_entries GROUP BY 1, 2;
--> statement-breakpoint
CREATE FUNCTION "agent_day_activity_track"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE agent_day_activity SET creates = creates - OLD.creates, updates = updates - OLD.updates,
      deletes = deletes - OLD.deletes, moves = moves - OLD.moves
    WHERE agent_id = OLD.agent_id AND day = substr(OLD.created_at, 1, 10);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO agent_day_activity (agent_id, day, creates, updates, deletes, moves)
      VALUES (NEW.agent_id, substr(NEW.created_at, 1, 10), NEW.creates, NEW.updates, NEW.deletes, NEW.moves)
    ON CONFLICT (agent_id, day) DO UPDATE SET creates = agent_day_activity.creates + excluded.creates,
      updates = agent_day_activity.updates + excluded.updates, deletes = agent_day_activity.deletes + excluded.deletes,
      moves = agent_day_activity.moves + excluded.moves;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "ledger_entries_activity" AFTER INSERT OR DELETE OR UPDATE OF agent_id, created_at, creates, updates, deletes, moves
  ON "ledger_entries" FOR EACH ROW EXECUTE FUNCTION "agent_day_activity_track"();
