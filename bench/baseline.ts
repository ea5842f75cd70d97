/**
 * The benchmark's baselines: a bare Fastify + pg server doing the same database work as the gateway's
 * money steps, with nothing else (no authentication, validation, risk, presentation or signing). Started
 * by bench/run.ts as its own process, in a schema of its own.
 *
 *   POST /orders              (a) one INSERT: an order
 *   POST /orders/:id/pay      (b) a payment as two crash-safe transactions: lock the order, insert a
 *                             PENDING transaction, mark the order in progress, commit; then lock again,
 *                             settle the transaction and the order, commit
 *   POST /orders/:id/refund   (c) the same for a refund (reserve, then settle)
 *   GET  /orders/:id          the order with its transactions, one query
 * (d), the bare story, is a client doing the four in a row.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const port = Number(process.env.PORT ?? 0);
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.POOL ?? 20) });

await pool.query(`
  create table if not exists bench_orders (id uuid primary key, amount bigint not null, description text not null, status text not null,
    captured bigint not null default 0, refunded bigint not null default 0, refund_reserved bigint not null default 0,
    created_at timestamptz not null default now(), updated_at timestamptz not null default now());
  create table if not exists bench_transactions (id uuid primary key, order_id uuid not null references bench_orders(id), operative text not null,
    amount bigint not null, status text not null, auth_code text not null default '', created_at timestamptz not null default now(),
    updated_at timestamptz not null default now());
  create index if not exists bench_transactions_order on bench_transactions (order_id, created_at);`);

async function tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('begin');
    const r = await fn(c);
    await c.query('commit');
    return r;
  } catch (err) {
    await c.query('rollback').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

const app = Fastify({ logger: false });

app.post('/orders', async (req) => {
  const body = req.body as { amount: number; description: string };
  const id = randomUUID();
  await pool.query(`insert into bench_orders (id, amount, description, status) values ($1, $2, $3, 'CREATED')`, [id, body.amount, body.description]);
  return { message: 'OK', code: 200, order: { uuid: id, amount: body.amount, status: 'CREATED' } };
});

app.post('/orders/:id/pay', async (req, reply) => {
  const { id } = req.params as { id: string };
  const txId = randomUUID();
  const started = await tx(async (c) => {
    const { rows } = await c.query('select amount, status from bench_orders where id = $1 for update', [id]);
    if (!rows[0] || rows[0].status !== 'CREATED') return null;
    await c.query(`insert into bench_transactions (id, order_id, operative, amount, status) values ($1, $2, 'AUTHORIZATION', $3, 'PENDING')`, [txId, id, rows[0].amount]);
    await c.query(`update bench_orders set status = 'PENDING_PROCESSOR_RESPONSE', updated_at = now() where id = $1`, [id]);
    return rows[0];
  });
  if (!started) return reply.code(400).send({ message: 'not payable' });
  // (the processor would be called here)
  const order = await tx(async (c) => {
    await c.query('select 1 from bench_orders where id = $1 for update', [id]);
    await c.query(`update bench_transactions set status = 'SUCCESS', auth_code = '123456', updated_at = now() where id = $1 and status = 'PENDING'`, [txId]);
    const { rows } = await c.query(`update bench_orders set status = 'SUCCESS', captured = amount, updated_at = now() where id = $1 returning id, amount, status`, [id]);
    return rows[0];
  });
  return { message: 'OK', code: 200, order };
});

app.post('/orders/:id/refund', async (req, reply) => {
  const { id } = req.params as { id: string };
  const amount = (req.body as { amount: number }).amount;
  const txId = randomUUID();
  const ok = await tx(async (c) => {
    const { rows } = await c.query('select captured, refunded, refund_reserved from bench_orders where id = $1 for update', [id]);
    const o = rows[0];
    if (!o || Number(o.refunded) + Number(o.refund_reserved) + amount > Number(o.captured)) return false;
    await c.query(`insert into bench_transactions (id, order_id, operative, amount, status) values ($1, $2, 'REFUND', $3, 'PENDING')`, [txId, id, amount]);
    await c.query('update bench_orders set refund_reserved = refund_reserved + $2, updated_at = now() where id = $1', [id, amount]);
    return true;
  });
  if (!ok) return reply.code(400).send({ message: 'not refundable' });
  const order = await tx(async (c) => {
    await c.query('select 1 from bench_orders where id = $1 for update', [id]);
    await c.query(`update bench_transactions set status = 'SUCCESS', updated_at = now() where id = $1 and status = 'PENDING'`, [txId]);
    const { rows } = await c.query(
      `update bench_orders set refunded = refunded + $2, refund_reserved = refund_reserved - $2,
        status = case when refunded + $2 >= captured then 'REFUNDED' else 'PARTIALLY_REFUNDED' end, updated_at = now()
      where id = $1 returning id, amount, status`,
      [id, amount],
    );
    return rows[0];
  });
  return { message: 'OK', code: 200, order };
});

app.get('/orders/:id', async (req, reply) => {
  const { id } = req.params as { id: string };
  const { rows } = await pool.query(
    `select o.*, coalesce((select json_agg(t order by t.created_at) from bench_transactions t where t.order_id = o.id), '[]') as transactions
    from bench_orders o where o.id = $1`,
    [id],
  );
  if (!rows[0]) return reply.code(404).send({ message: 'not found' });
  return { message: 'OK', code: 200, order: rows[0] };
});

await app.listen({ port, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
