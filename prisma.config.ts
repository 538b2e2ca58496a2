import 'dotenv/config';
import { defineConfig } from 'prisma/config';

// Prisma 7 reads no .env itself and takes the URL from here. Migrations are
// applied offline by scripts/migrate.ts; a user with internet access may
// equally run `prisma migrate deploy` on the same SQL files.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});
