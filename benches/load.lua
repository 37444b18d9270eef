-- wrk script for the load benchmarks (driven by benches/load.rs and benches/guards.rs).
-- Arguments after `--`: <mode> <api key> <run id>; mode `create` sends a fresh idempotency key
-- every time (unique to the run), `replay` cycles through the 200 keys `replay-0` ..
-- `replay-199` made beforehand, and `page` reads the first page of 50 payments with cursors
-- and pageInfo; `deep` reads the page after the cursor given as the third argument, and
-- `count` the first page with `totalCount`. `authorize` sends a fresh key with
-- `captureMethod: MANUAL`; `capture` captures, each with a fresh key, the authorized payments
-- whose ids the file named by the third argument lists, one per line, each of the threads
-- (their number the fourth argument) taking every n-th (a payment captured twice would
-- answer an error, which is counted). `body` sends, every time, the JSON request body held by
-- the file the third argument names (a document by `documentId`, or any other).

local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

function init(args)
  mode = args[1]
  key = args[2]
  run = args[3]
  counter = 0
  errors = 0
  if mode == "body" then
    local file = assert(io.open(run, "r"))
    body_text = file:read("*a")
    file:close()
  end
  if mode == "capture" then
    -- The fourth argument: how many threads share the ids.
    local share = tonumber(args[4]) or 1
    ids = {}
    local line_no = 0
    for line in io.lines(run) do
      line_no = line_no + 1
      if line_no % share == id - 1 then
        table.insert(ids, line)
      end
    end
  end
end

local capture = "mutation K($input: CapturePaymentInput!, $key: String!) { capturePayment(input: $input, idempotencyKey: $key) { replayed payment { id status amountCaptured } } }"

local query = "mutation C($input: CreatePaymentInput!, $key: String!) { createPayment(input: $input, idempotencyKey: $key) { replayed payment { id status amount } } }"

local page = '{"query":"query Page { payments(first: 50) { edges { cursor node { id amount currency status createdAt } } pageInfo { hasNextPage endCursor } } }"}'

local deep_query = "query Deep($after: String) { payments(first: 50, after: $after) { edges { cursor node { id amount currency status createdAt } } pageInfo { hasNextPage endCursor } } }"

local count = '{"query":"query Count { payments(first: 50) { totalCount edges { cursor node { id amount currency status createdAt } } pageInfo { hasNextPage endCursor } } }"}'

function request()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
  if mode == "page" then
    return wrk.format("POST", "/graphql", headers, page)
  elseif mode == "body" then
    return wrk.format("POST", "/graphql", headers, body_text)
  elseif mode == "deep" then
    return wrk.format("POST", "/graphql", headers,
      '{"query":"' .. deep_query .. '","variables":{"after":"' .. run .. '"}}')
  elseif mode == "count" then
    return wrk.format("POST", "/graphql", headers, count)
  elseif mode == "capture" then
    local payment = ids[counter] or ids[#ids]
    return wrk.format("POST", "/graphql", headers,
      '{"query":"' .. capture .. '","variables":{"input":{"paymentId":"' .. payment ..
      '"},"key":"capture-' .. payment .. '"}}')
  end
  local idem, amount
  if mode == "replay" then
    local n = counter % 200
    idem = "replay-" .. n
    amount = 1000 + n
  else
    idem = run .. "-" .. id .. "-" .. counter
    amount = 1000 + counter % 5000
  end
  local method = ""
  if mode == "authorize" then
    method = ',"captureMethod":"MANUAL"'
  end
  local body = '{"query":"' .. query .. '","variables":{"input":{"amount":' .. amount ..
    ',"currency":"USD","source":"tok_visa"' .. method .. '},"key":"' .. idem .. '"}}'
  return wrk.format("POST", "/graphql",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }, body)
end

function response(status, headers, body)
  if status ~= 200 or string.find(body, '"errors"', 1, true) then
    errors = errors + 1
    if errors == 1 then
      io.stderr:write(status .. " " .. body .. "\n")
    end
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + thread:get("errors")
  end
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    failed + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
