"""A websocket's frames as a client nobody here wrote sends them (Python's `websockets`):
a ping gets its pong, a message sent in three fragments is read as one, and a close is echoed.
Prints one line per check and "ALL OK" at the end; exits 1 at the first failure."""
import argparse
import asyncio
import json
import sys
import urllib.request

import websockets


def fail(message):
    print("FAIL", message)
    sys.exit(1)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    body = json.dumps({"email": args.email, "password": args.password}).encode()
    request = urllib.request.Request(
        args.base + "/api/user/login", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        token = json.load(response)["data"]["tokens"]["accessToken"]
    query = json.dumps({"query": "{ accounts { id } }"}).encode()
    request = urllib.request.Request(
        args.base + "/query", data=query, headers={"Content-Type": "application/json", "Authorization": token})
    with urllib.request.urlopen(request) as response:
        account = json.load(response)["data"]["accounts"][0]["id"]

    url = args.base.replace("http://", "ws://") + "/socket?protocol=2&token=" + token
    async with websockets.connect(url, ping_interval=None) as ws:
        pong = await ws.ping(b"whale")
        await asyncio.wait_for(pong, 5)
        print("ok ping answered with its pong")

        join = json.dumps({"messageId": "j1", "type": "resourceConnection", "data": {"resourceId": account}})
        third = len(join) // 3
        await ws.send([join[:third], join[third:2 * third], join[2 * third:]])
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if reply.get("type") == "error":
            fail("the fragmented join was refused: %s" % reply)
        print("ok a message in three fragments is read as one (%s)" % reply.get("type"))

        await ws.close(code=1000, reason="done")
        if ws.close_code != 1000:
            fail("the close was not echoed: %s" % ws.close_code)
        print("ok the close is echoed with 1000")
    print("ALL OK")


asyncio.run(main())
