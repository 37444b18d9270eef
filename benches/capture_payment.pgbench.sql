-- The statements one capturePayment (fresh key, the whole authorization, captured by the
-- built-in sandbox) runs on PostgreSQL, with the same shapes and in the same order (the API key,
-- checked once and then remembered for half a second, costs no statement here): the payment
-- read before the claim, the claim of the key, the capture recorded in flight with the key
-- linked (one statement), the sandbox's record of the capture, its move of the authorization
-- and its settlement of the capture, and the transition to SUCCEEDED with its event and the
-- key's stored outcome (one statement). The texts are those of `src/persistence/` (find_payment
-- in payments.rs, claim in idempotency_keys.rs, set_capture_in_flight in
-- payment_writes/captures.rs, record/take_authorization/settle in sandbox.rs,
-- transition_in_one_statement in payment_writes/transitions.rs) with their parameters written
-- in. benches/load_captures seeds 500,000 authorized payments (`pay_pgbcap_<n>`, version 1) and
-- each transaction captures one picked at random: a payment picked twice runs the same
-- statements, its version-checked writes then changing nothing.
-- Variables: :account (set with -D account=...). Run with `-M prepared`.
\set n random(1, 500000)
\set r random(1, 9000000000000000)
\set now random(1700000000000000, 1900000000000000)
SELECT id, account_id, amount, currency, status, amount_refunded, capture_method, amount_capturable, amount_captured, capture_before, capture_amount, cancellation_reason, next_action_url, return_url, source, description, failure_code, failure_message, processor_key, processor_ref, version, created_at, updated_at FROM payments WHERE id = 'pay_pgbcap_' || :n::text AND account_id = :account LIMIT 1;
INSERT INTO idempotency_keys (account_id, key, operation, request_hash, state, locked_at, payment_id, refund_id, outcome, created_at, updated_at) VALUES (:account, 'pgbc-' || :client_id::text || '-' || :r::text, 'capturePayment', md5(:r::text), 'started', :now, NULL, NULL, NULL, :now, :now) ON CONFLICT (account_id, key) DO NOTHING RETURNING account_id, key, operation, request_hash, state, locked_at, payment_id, refund_id, outcome, created_at, updated_at;
WITH updated AS (UPDATE payments SET capture_amount = 1000, version = version + 1, updated_at = :now WHERE id = 'pay_pgbcap_' || :n::text AND version = 1 RETURNING id), linked AS (UPDATE idempotency_keys SET payment_id = 'pay_pgbcap_' || :n::text WHERE account_id = :account AND key = 'pgbc-' || :client_id::text || '-' || :r::text AND state = 'started' AND EXISTS (SELECT 1 FROM updated)) SELECT 1 FROM updated;
INSERT INTO sandbox_operations (idempotency_key, kind, reference, source, amount, currency, status, failure_code, attempts, created_at, return_url) VALUES ('pay_pgbcap_' || :n::text || '.capture', 'capture', 'cp_' || :r::text, '', 1000, 'USD', 'attempting', NULL, 1, :now, NULL) ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key, kind, reference, source, amount, currency, status, failure_code, attempts, created_at, return_url;
UPDATE sandbox_operations SET status = 'captured' WHERE idempotency_key = 'pay_pgbcap_' || :n::text AND kind = 'authorization' AND status = 'approved' AND amount >= 1000;
UPDATE sandbox_operations SET status = 'approved' WHERE idempotency_key = 'pay_pgbcap_' || :n::text || '.capture' AND status = 'attempting';
WITH updated AS (UPDATE payments SET status = 'SUCCEEDED', version = version + 1, updated_at = :now, failure_code = NULL, failure_message = NULL, processor_ref = 'cp_' || :r::text, amount_refunded = 0, amount_capturable = 0, amount_captured = 1000, capture_before = 1900000000000000, cancellation_reason = NULL, next_action_url = NULL, capture_amount = NULL WHERE id = 'pay_pgbcap_' || :n::text AND version = 2 RETURNING id), event AS (INSERT INTO payment_events (id, payment_id, account_id, from_status, to_status, reason, created_at, snapshot) SELECT 'evt_pgbc' || :client_id::text || '_' || :r::text, id, :account, 'REQUIRES_CAPTURE', 'SUCCEEDED', 'captured', :now, repeat('x', 560) FROM updated), completed AS (UPDATE idempotency_keys SET state = 'done', payment_id = 'pay_pgbcap_' || :n::text, outcome = repeat('x', 760), locked_at = NULL, updated_at = :now WHERE account_id = :account AND key = 'pgbc-' || :client_id::text || '-' || :r::text AND state = 'started' AND EXISTS (SELECT 1 FROM updated)) SELECT 1 FROM updated;
