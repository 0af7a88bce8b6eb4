// A Node service places orders and, in the same transaction, enqueues each order's confirmation for a Java
// @QueueListener, through pgqueue's SQL API (docs/other-languages.md).
//
//     npm ci && PGQUEUE_DATABASE_URL=postgresql://shop@localhost/shop node place-orders.mjs [count] [first-order-id]
//
// Prints one line per order once its transaction committed.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const SUPPORTED_API_MAJOR = '1';

// A W3C trace context; in a traced service, OpenTelemetry's propagator gives the current span's instead.
function newTraceparent() {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

// tag::place-order[]
// Inserts the order and its confirmation job in one transaction: both commit, or neither does.
async function placeOrder(client, orderId, totalCents, traceparent) {
  await client.query('BEGIN');
  try {
    await client.query('INSERT INTO shop_order (id, total_cents) VALUES ($1, $2)', [orderId, totalCents]);
    const { rows } = await client.query(
      'SELECT pgqueue.send(p_queue => $1, p_payload => $2::jsonb, p_headers => $3::jsonb, p_dedup_key => $4) AS id',
      ['order-confirmations', JSON.stringify({ orderId, totalCents }), JSON.stringify({ traceparent }),
        `order-${orderId}`]);
    await client.query('COMMIT');
    return rows[0].id; // the job's id (a string: bigint); null when a job with this dedup key is still pending
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
// end::place-order[]

const count = Number(process.argv[2] ?? 1);
const firstId = Number(process.argv[3] ?? 1);
const client = new pg.Client({ connectionString: process.env.PGQUEUE_DATABASE_URL });
await client.connect();
try {
  const { rows: [{ api_version: apiVersion }] } = await client.query('SELECT pgqueue.api_version()');
  if (apiVersion.split('.')[0] !== SUPPORTED_API_MAJOR) {
    throw new Error(`pgqueue's SQL API is ${apiVersion}; this producer speaks ${SUPPORTED_API_MAJOR}.x`);
  }
  for (let orderId = firstId; orderId < firstId + count; orderId++) {
    const traceparent = newTraceparent();
    const jobId = await placeOrder(client, orderId, 1000 + orderId, traceparent);
    const committedEpochNs = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
    console.log(`sent order=${orderId} job=${jobId} trace=${traceparent.split('-')[1]} committed_epoch_ns=${committedEpochNs}`);
    await sleep(20);
  }
} finally {
  await client.end();
}
