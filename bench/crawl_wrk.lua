-- wrk script for bench/crawl_bench.sh: the server's own capacity on exactly the pages the crawlers
-- fetch. Requests every ground-truth URL round-robin, each with its own Host header (nginx picks
-- the host's server block by it, bench/crawl_nginx.conf), so one wrk target address covers every
-- host. Usage: wrk -s crawl_wrk.lua http://127.0.0.2:PORT/ -- GROUND_TRUTH_FILE
-- Each thread starts at its own offset so the threads do not request the same page in lockstep.

local next_thread_id = 0
function setup(thread)
  thread:set("thread_id", next_thread_id)
  next_thread_id = next_thread_id + 1
end

local requests = {}
local position = 1

function init(args)
  local file = args[1]
  if not file then error("crawl_wrk.lua: pass the ground truth file after --") end
  for line in io.lines(file) do
    local host, path = line:match("^https?://([^/]+)(/.*)$")
    if host then requests[#requests + 1] = wrk.format("GET", path, { Host = host }) end
  end
  if #requests == 0 then error("crawl_wrk.lua: no URLs in " .. file) end
  position = (thread_id or 0) * math.floor(#requests / 2) % #requests + 1
end

function request()
  local r = requests[position]
  position = position % #requests + 1
  return r
end
