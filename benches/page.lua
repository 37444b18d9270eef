-- wrk script for page reads (driven by benches/guards.rs): the first page of 50 payments,
-- with cursors and pageInfo. Arguments after `--`: <label> <api key>.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  key = args[2]
  errors = 0
end

local body = '{"query":"query Page { payments(first: 50) { edges { cursor node { id amount currency status createdAt } } pageInfo { hasNextPage endCursor } } }"}'

function request()
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
