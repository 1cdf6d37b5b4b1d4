import { defineConfig } from 'drizzle-kit';

/**
 * drizzle-kit for the PostgreSQL backend: `npm run db:generate:pg -- --name <name>` writes SQL
 * migrations into db/pg/migrations (the embedded SQLite schema has its own, drizzle.config.ts).
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/pg/schema.ts',
  out: './db/pg/migrations',
});
