-- The statements one createPayment (fresh key, approved by the built-in sandbox) runs, in
-- the same transactions, with the same shapes: the key check, the claim, the payment with
-- its event and key link, the sandbox's record of the charge, and the outcome with its event
-- and the key's stored outcome. pgbench runs this at the load benchmark's concurrency: the
-- database's own limit for creates on this machine.
-- Variables: :account (set with -D account=...), :key_hash (-D key_hash=...). Run with
-- `-M prepared`, as the gateway's driver prepares its statements too.
\set r random(1, 9000000000000000)
\set now random(1700000000000000, 1900000000000000)
SELECT id, account_id, prefix, key_hash, created_at, revoked_at FROM api_keys WHERE key_hash = :key_hash AND revoked_at IS NULL LIMIT 1;
INSERT INTO idempotency_keys (account_id, key, operation, request_hash, state, locked_at, payment_id, refund_id, outcome, created_at, updated_at) VALUES (:account, 'pgb-' || :client_id::text || '-' || :r::text, 'createPayment', md5(:r::text), 'started', :now, NULL, NULL, NULL, :now, :now) ON CONFLICT (account_id, key) DO NOTHING RETURNING account_id, key, operation, request_hash, state, locked_at, payment_id, refund_id, outcome, created_at, updated_at;
BEGIN;
INSERT INTO payments (id, account_id, amount, currency, status, amount_refunded, source, description, failure_code, failure_message, processor_key, processor_ref, version, created_at, updated_at) VALUES ('pay_pgb' || :client_id::text || '_' || :r::text, :account, 1000, 'USD', 'PROCESSING', 0, 'tok_visa', NULL, NULL, NULL, 'pay_pgb' || :client_id::text || '_' || :r::text, NULL, 0, :now, :now) RETURNING id, account_id, amount, currency, status, amount_refunded, source, description, failure_code, failure_message, processor_key, processor_ref, version, created_at, updated_at;
INSERT INTO payment_events (id, payment_id, account_id, from_status, to_status, reason, created_at) VALUES ('evt_pgb' || :client_id::text || '_' || :r::text || 'a', 'pay_pgb' || :client_id::text || '_' || :r::text, :account, NULL, 'PROCESSING', 'created', :now) RETURNING id, payment_id, account_id, from_status, to_status, reason, created_at;
UPDATE idempotency_keys SET payment_id = 'pay_pgb' || :client_id::text || '_' || :r::text WHERE account_id = :account AND key = 'pgb-' || :client_id::text || '-' || :r::text AND state = 'started';
COMMIT;
INSERT INTO sandbox_operations (idempotency_key, kind, reference, source, amount, currency, status, failure_code, attempts, created_at) VALUES ('pay_pgb' || :client_id::text || '_' || :r::text, 'charge', 'ch_' || :r::text, 'tok_visa', 1000, 'USD', 'approved', NULL, 1, :now) ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key, kind, reference, source, amount, currency, status, failure_code, attempts, created_at;
BEGIN;
UPDATE payments SET status = 'SUCCEEDED', version = version + 1, updated_at = :now, processor_ref = 'ch_' || :r::text WHERE id = 'pay_pgb' || :client_id::text || '_' || :r::text AND version = 0;
INSERT INTO payment_events (id, payment_id, account_id, from_status, to_status, reason, created_at) VALUES ('evt_pgb' || :client_id::text || '_' || :r::text || 'b', 'pay_pgb' || :client_id::text || '_' || :r::text, :account, 'PROCESSING', 'SUCCEEDED', 'approved by the processor', :now) RETURNING id, payment_id, account_id, from_status, to_status, reason, created_at;
UPDATE idempotency_keys SET state = 'done', payment_id = 'pay_pgb' || :client_id::text || '_' || :r::text, outcome = repeat('x', 600), locked_at = NULL, updated_at = :now WHERE account_id = :account AND key = 'pgb-' || :client_id::text || '-' || :r::text AND state = 'started';
COMMIT;
