-- wrk script for bench/serve_load.sh: random EDR queries on one collection.
--   wrk ... -s serve_load.lua URL -- KIND ID W S E N BOX_DEG TIME1 [TIME2 ...]
-- KIND "position": a point time series (every time) at a random lon/lat inside W,S,E,N;
-- KIND "cube": a BOX_DEG x BOX_DEG box at a random place and one random time.
local kind, id, w, s, e, n, box
local times = {}

function init(args)
  kind, id = args[1], args[2]
  w, s, e, n, box = tonumber(args[3]), tonumber(args[4]), tonumber(args[5]), tonumber(args[6]),
      tonumber(args[7])
  for i = 8, #args do times[#times + 1] = args[i] end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))  -- differs per thread
end

function request()
  local path
  if kind == "position" then
    local lon = w + math.random() * (e - w)
    local lat = s + math.random() * (n - s)
    path = string.format("/collections/%s/position?coords=POINT(%.4f%%20%.4f)", id, lon, lat)
  else
    local lon = w + math.random() * (e - w - box)
    local lat = s + math.random() * (n - s - box)
    path = string.format("/collections/%s/cube?bbox=%.4f,%.4f,%.4f,%.4f&datetime=%s", id, lon,
                         lat, lon + box, lat + box, times[math.random(#times)])
  end
  return wrk.format("GET", path)
end
