-- POST the same JSON body on every request (an order: nothing in it must be unique).
-- Arguments (after wrk's --): <body>
local body = ""

function init(args)
  body = args[1]
end

function request()
  return wrk.format("POST", nil, nil, body)
end
