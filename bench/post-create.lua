-- POST one new product per request with a SKU unique across the whole run:
-- <run tag>-<thread number>-<counter>, so no request fails on the unique SKU index.
-- No stock_quantity: the smallest create, closest to the bare single-INSERT baseline (svc then
-- writes no inventory level: its create is one INSERT statement).
-- Arguments (after wrk's --): <run tag>
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local counter = 0
local run = ""

function init(args)
  run = args[1]
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"name":"Bench widget","sku":"%s-%d-%d","pricing_data":{"retail":19.99}}',
    run, tid, counter)
  return wrk.format("POST", nil, nil, body)
end
