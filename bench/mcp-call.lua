-- POST one MCP tools/call of products_get_product per request, rotating over the seeded ids.
-- Arguments (after wrk's --): <ids file>
local ids = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then ids[#ids + 1] = line end
  end
end

function request()
  i = i + 1
  local id = ids[(i % #ids) + 1]
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"products_get_product","arguments":{"id":"%s"}}}',
    i, id)
  return wrk.format("POST", nil, nil, body)
end
