-- One scenario's requests for wrk. Everything comes from the environment:
--   BENCH_METHOD, BENCH_PATH, BENCH_BODY, BENCH_HEADERS ("Name: value" lines)
--   "{n}" in the path or body becomes a number unique to this request (thread id + counter),
--   "{i}" becomes a random integer in [0, BENCH_PICK).
-- done() prints one JSON line the harness reads.

local counter = 0
local threads = {}
local next_id = 1

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local method = os.getenv("BENCH_METHOD") or "GET"
local path = os.getenv("BENCH_PATH") or "/"
local body = os.getenv("BENCH_BODY")
local pick = tonumber(os.getenv("BENCH_PICK") or "0")
local headers = {}
for line in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^\n]+") do
  local name, value = string.match(line, "^([^:]+):%s*(.*)$")
  if name then headers[name] = value end
end

function init(args)
  math.randomseed(os.time() + (tid or 0) * 7919)
end

local function fill(text)
  if text == nil then return nil end
  counter = counter + 1
  local unique = tostring(tid or 0) .. "x" .. tostring(counter) .. "x" .. tostring(os.time())
  text = string.gsub(text, "{n}", unique)
  if pick > 0 then
    text = string.gsub(text, "{i}", tostring(math.random(0, pick - 1)))
  end
  return text
end

function request()
  return wrk.format(method, fill(path), headers, fill(body))
end

function done(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "errors": %d, "status_errors": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), errors, e.status))
end
