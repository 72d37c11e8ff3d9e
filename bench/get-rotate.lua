-- GET one product per request, rotating over the seeded ids so every request is a real
-- primary-key lookup on a different row rather than one hot cached row.
-- Arguments (after wrk's --): <path prefix ending in /> <file with one id per line>
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local reqs = {}
local n = 0
local i = 0

function init(args)
  for id in io.lines(args[2]) do
    n = n + 1
    -- Formatting once up front keeps wrk's own CPU cost per request at a table lookup.
    reqs[n] = wrk.format("GET", args[1] .. id)
  end
  -- Threads start at different places in the list.
  i = ((tid or 1) * 97) % n
end

function request()
  i = i % n + 1
  return reqs[i]
end
