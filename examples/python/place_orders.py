#!/usr/bin/env python3
"""A Python service places orders and, in the same transaction, enqueues each order's confirmation for a
Java @QueueListener, through pgqueue's SQL API (docs/other-languages.md).

    PGQUEUE_DATABASE_URL=postgresql://shop@localhost/shop python3 place_orders.py [count] [first-order-id]

Needs psycopg 3 (Debian: python3-psycopg; elsewhere: pip install "psycopg[binary]"). Prints one line per order
once its transaction committed.
"""
import os
import secrets
import sys
import time

import psycopg
from psycopg.types.json import Jsonb

SUPPORTED_API_MAJOR = "1"


def new_traceparent():
    """A W3C trace context; in a traced service, OpenTelemetry's propagator gives the current span's instead."""
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


# tag::place-order[]
def place_order(conn, order_id, total_cents, traceparent):
    """Inserts the order and its confirmation job in one transaction: both commit, or neither does."""
    with conn.transaction():
        conn.execute("INSERT INTO shop_order (id, total_cents) VALUES (%s, %s)", (order_id, total_cents))
        row = conn.execute(
            "SELECT pgqueue.send(p_queue => %s, p_payload => %s, p_headers => %s, p_dedup_key => %s)",
            ("order-confirmations",
             Jsonb({"orderId": order_id, "totalCents": total_cents, "currency": "EUR"}),
             Jsonb({"traceparent": traceparent}),
             f"order-{order_id}"),
        ).fetchone()
    return row[0]  # the job's id; None when a job with this dedup key is still pending
# end::place-order[]


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    first_id = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with psycopg.connect(os.environ["PGQUEUE_DATABASE_URL"], autocommit=True) as conn:
        # tag::api-version[]
        api_version = conn.execute("SELECT pgqueue.api_version()").fetchone()[0]
        if api_version.split(".")[0] != SUPPORTED_API_MAJOR:
            sys.exit(f"pgqueue's SQL API is {api_version}; this producer speaks {SUPPORTED_API_MAJOR}.x")
        # end::api-version[]
        for order_id in range(first_id, first_id + count):
            traceparent = new_traceparent()
            job_id = place_order(conn, order_id, 1000 + order_id, traceparent)
            print(f"sent order={order_id} job={job_id} trace={traceparent.split('-')[1]} "
                  f"committed_epoch_ns={time.time_ns()}", flush=True)
            time.sleep(0.02)


if __name__ == "__main__":
    main()
