#!/usr/bin/env python3
"""Creates watches for a run of fake targets through POST /api/watch (tools/bench/watch_scale.sh).

    make_watches.py SERVICE_PORT KEYS_FILE FIRST_PORT COUNT PERIOD

Watches 127.0.0.1:FIRST_PORT .. FIRST_PORT+COUNT-1, every PERIOD seconds, private, handing
the servers to the API keys of KEYS_FILE (one a line) in turn. One keep-alive connection: the
service makes watches one at a time anyway (one store transaction each). Prints one JSON line:
{"created", "statuses", "seconds", "first_refusal"}; exits 1 unless every watch was created.
"""
import http.client
import json
import sys
import time


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    service_port, keys_file, first_port, count, period = sys.argv[1:]
    service_port, first_port, count, period = map(int, (service_port, first_port, count, period))
    with open(keys_file) as f:
        keys = f.read().split()
    if not keys:
        sys.exit("no API keys in " + keys_file)

    conn = http.client.HTTPConnection("127.0.0.1", service_port, timeout=30)
    statuses = {}
    first_refusal = None
    started = time.monotonic()
    for i in range(count):
        body = json.dumps({"host": "127.0.0.1", "port": first_port + i,
                           "periodSeconds": period, "public": False})
        headers = {"Content-Type": "application/json", "X-API-Key": keys[i % len(keys)]}
        try:
            conn.request("POST", "/api/watch", body, headers)
            reply = conn.getresponse()
            text = reply.read()
            status = reply.status
        except (OSError, http.client.HTTPException) as e:
            # The service closed the connection or did not answer: counted, and a new one.
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", service_port, timeout=30)
            status, text = 0, str(e).encode()
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if status != 201 and first_refusal is None:
            first_refusal = f"{status} {text[:300].decode(errors='replace')}"
    seconds = time.monotonic() - started
    created = statuses.get("201", 0)
    print(json.dumps({"created": created, "statuses": statuses, "seconds": round(seconds, 2),
                      "first_refusal": first_refusal}))
    sys.exit(0 if created == count else 1)


if __name__ == "__main__":
    main()
