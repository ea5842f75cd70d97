/**
 * The benchmark's baseline: a bare Fastify endpoint doing one PostgreSQL insert per request, on the
 * same machine and database as the gateway. Started by bench/run.ts as its own process.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const port = Number(process.env.PORT ?? 0);
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.POOL ?? 20) });

await pool.query(`create table if not exists bench_baseline (id uuid primary key, amount bigint not null, description text not null, created_at timestamptz not null default now())`);

const app = Fastify({ logger: false });
app.post('/baseline', async (req) => {
  const body = req.body as { amount: number; description: string };
  const id = randomUUID();
  await pool.query('insert into bench_baseline (id, amount, description) values ($1, $2, $3)', [id, body.amount, body.description]);
  return { message: 'OK', code: 200, order: { uuid: id, amount: body.amount } };
});
await app.listen({ port, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
