#!/usr/bin/env python3
"""An external client for `whalesim serve`, written with the `websockets` package and the
standard library only (no whalesim code): REST login, GraphQL, then two sockets editing one
note concurrently (one sending binary frames as the Whaler app does, one text frames), and a
check that a fresh join and GraphQL `note` both see the same text, holding every edit.

Prints `ok ...` lines and `ALL OK` at the end; exits non-zero on the first failure."""
import argparse
import asyncio
import json
import sys
import urllib.request

import websockets


def post(url, body, token=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", token)
    with urllib.request.urlopen(request, timeout=20) as response:
        return response.status, json.loads(response.read())


def check(condition, message):
    if not condition:
        print("FAIL " + message, flush=True)
        sys.exit(1)
    print("ok " + message, flush=True)


async def receive(socket, kind, message_id=None):
    """The next message of `kind` (and `messageId`), skipping others (cursors, updates)."""
    while True:
        raw = await asyncio.wait_for(socket.recv(), timeout=20)
        message = json.loads(raw)
        if message["type"] == "error":
            raise AssertionError("server error: %r" % message)
        if message["type"] == kind and (message_id is None or message["messageId"] == message_id):
            return message


async def join(url, token, account, binary):
    socket = await websockets.connect(url, additional_headers={"Authorization": token, "ObjectId": account})
    frame = json.dumps({"messageId": "join", "type": "resourceConnection", "data": {"resourceId": account}})
    await socket.send(frame.encode() if binary else frame)
    conf = await receive(socket, "resourceConnectionConf", "join")
    return socket, conf["data"]


async def edit_rounds(base, token, account, rounds):
    url = base.replace("http://", "ws://") + "/socket?protocol=2"
    a, conf_a = await join(url, token, account, binary=True)
    b, conf_b = await join(url, token, account, binary=False)
    check(conf_a["revision"] == conf_b["revision"] and conf_a["initialState"] == conf_b["initialState"],
          "two sockets joined at revision %d" % conf_a["revision"])
    text, revision = conf_a["initialState"], conf_a["revision"]
    expected = []
    for round_number in range(rounds):
        length = len(text)  # Python str length counts code points, as protocol 2 does
        ops = []
        for name, socket, position in (("a", a, 0), ("b", b, length)):
            insert = "%s%d\u00e9;" % (name, round_number)
            expected.append(insert)
            n = ([position] if position else []) + [0] + ([length - position] if length - position else [])
            s = ([""] if position else []) + [insert] + ([""] if length - position else [])
            message = {"messageId": "%s-%d" % (name, round_number), "type": "docChange",
                       "data": {"resourceId": account, "rev": revision, "n": n, "s": s,
                                "opId": "py-%s:%d" % (name, round_number)}}
            frame = json.dumps(message)
            ops.append((socket, frame.encode() if socket is a else frame, message["messageId"]))
        # Both changes go out before either is acknowledged: concurrent edits of one revision.
        await asyncio.gather(*(socket.send(frame) for socket, frame, _ in ops))
        await asyncio.gather(*(receive(socket, "docChangeReturnOps", mid) for socket, _, mid in ops))
        fresh, conf = await join(url, token, account, binary=False)
        await fresh.close()
        text, revision = conf["initialState"], conf["revision"]
    for insert in expected:
        check(insert in text, "the note holds %r" % insert)
    await a.close()
    await b.close()
    return text, revision


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    status, body = post(args.base + "/api/user/login", {"email": args.email, "password": "wrong-" + args.password})
    check(status == 200 and body["code"] == 4001 and body["hasError"] is True, "bad password gets code 4001")
    status, body = post(args.base + "/api/user/login", {"email": args.email, "password": args.password})
    check(status == 200 and body["code"] == 1000, "login code 1000")
    token = body["data"]["tokens"]["accessToken"]
    check(body["data"]["response"]["email"] == args.email, "login returns the user")

    status, body = post(args.base + "/query", {"operationName": "Accounts", "query": "query Accounts { accounts { id name state } }"}, token)
    accounts = body["data"]["accounts"]
    check(status == 200 and len(accounts) > 0, "GraphQL accounts: %d tracked" % len(accounts))
    account = accounts[0]["id"]

    text, revision = asyncio.run(edit_rounds(args.base, token, account, args.rounds))
    check(revision >= 2 * args.rounds, "revision %d after %d concurrent rounds" % (revision, args.rounds))
    query = "query Note($accountID: ID!) { note(accountID: $accountID) { content } }"
    status, body = post(args.base + "/query", {"operationName": "Note", "query": query, "variables": {"accountID": account}}, token)
    check(body["data"]["note"]["content"] == text, "GraphQL note equals the socket's text")
    print("ALL OK", flush=True)


if __name__ == "__main__":
    main()
