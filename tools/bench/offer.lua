-- wrk script: POST /api/offer with a JSON body naming the target (TARGET_PORT from env).
local port = os.getenv("TARGET_PORT")
wrk.method = "POST"
wrk.body = '{"host":"127.0.0.1","port":' .. port .. '}'
wrk.headers["Content-Type"] = "application/json"
