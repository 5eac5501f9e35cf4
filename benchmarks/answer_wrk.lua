-- wrk script of benchmarks/answer_throughput.py: each wrk thread holds one connection and answers one
-- session's questions in turn, so run it with as many threads as connections (-t N -c N).
--
--   VTT_SESSIONS=sessions.txt VTT_MODE=real wrk -t 32 -c 32 -d 15s --timeout 10s -s answer_wrk.lua URL
--
-- VTT_SESSIONS names a file with one line per thread: "session_id token stream step" (the session's
-- current position, read by the driver before the run). VTT_MODE is "real" (the answer endpoint, token
-- in the header, each answer with its p_yes, the next position read from each response) or "bare" (the
-- benchmark's bare view,
-- which needs no state). done() prints one line "VTT-RESULT {json}" (latencies in microseconds from
-- wrk's own distribution) and, when a request failed, "VTT-ERROR status body" for the first failure.

local threads = {}
local lines = nil

function setup(thread)
  if lines == nil then
    lines = {}
    for line in io.lines(os.getenv("VTT_SESSIONS")) do
      table.insert(lines, line)
    end
  end
  local n = #threads + 1
  local session, token, stream, step = lines[n]:match("^(%d+) (%S+) (%d+) (%d+)$")
  thread:set("session", session)
  thread:set("token", token)
  thread:set("stream", stream)
  thread:set("step", step)
  thread:set("mode", os.getenv("VTT_MODE") or "real")
  thread:set("answers", 0)
  thread:set("errors", 0)
  thread:set("exhausted", 0)
  thread:set("first_error", "")
  table.insert(threads, thread)
end

function request()
  if mode == "bare" then
    return wrk.format("POST", "/bench/bare/" .. session .. "/", {["Content-Type"] = "application/json"},
      '{"answer":"yes"}')
  end
  return wrk.format("POST", "/api/v1/evaluation/sessions/" .. session .. "/answers/",
    {["Content-Type"] = "application/json", ["Authorization"] = "Token " .. token},
    '{"stream":' .. stream .. ',"step":' .. step .. ',"answer":"yes","p_yes":0.75}')
end

function response(status, headers, body)
  if status ~= 200 then
    errors = errors + 1
    if first_error == "" then
      first_error = status .. " " .. body:sub(1, 300)
    end
    return
  end
  answers = answers + 1
  if mode == "bare" then
    return
  end
  -- {"stream":..,...,"next":{"stream":S,"streams":N,"step":T,...}} or "next":null at the end of the test
  local s, t = body:match('"next":%s*{"stream":%s*(%d+),%s*"streams":%s*%d+,%s*"step":%s*(%d+)')
  if s == nil then
    exhausted = 1
    wrk.thread:stop()
    return
  end
  stream, step = s, t
end

function done(summary, latency, requests)
  local answers, errors, exhausted, first_error = 0, 0, 0, ""
  for _, thread in ipairs(threads) do
    answers = answers + thread:get("answers")
    errors = errors + thread:get("errors")
    exhausted = exhausted + thread:get("exhausted")
    if first_error == "" then
      first_error = thread:get("first_error")
    end
  end
  local e = summary.errors
  io.write(string.format(
    'VTT-RESULT {"requests":%d,"answers":%d,"duration_us":%d,"p50_us":%d,"p95_us":%d,"p99_us":%d,' ..
    '"max_us":%d,"errors":%d,"exhausted":%d,"socket_errors":%d}\n',
    summary.requests, answers, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, errors, exhausted, e.connect + e.read + e.write + e.timeout))
  if first_error ~= "" then
    io.write("VTT-ERROR " .. first_error:gsub("\n", " ") .. "\n")
  end
end
