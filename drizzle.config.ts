import { defineConfig } from 'drizzle-kit';

/** drizzle-kit: `npx drizzle-kit generate` writes SQL migrations into db/migrations. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './db/schema.ts',
  out: './db/migrations',
});
