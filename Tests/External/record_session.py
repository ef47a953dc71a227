#!/usr/bin/env python3
"""A Whaler user's session written with `requests` and `websockets` (no whalesim code), run
through `whalesim record`: sign in, read the board over GraphQL, open the first account's
note socket and type in it (a selection move too), move the account's card, save a task,
read the note back. Deterministic apart from the server's ids and times.

Prints `ok ...` lines and `ALL OK`; exits non-zero on the first failure."""
import argparse
import asyncio
import json
import sys
import time
import uuid

import requests
import websockets


def check(condition, message):
    if not condition:
        print("FAIL " + message, flush=True)
        sys.exit(1)
    print("ok " + message, flush=True)


def graphql(base, token, operation, query, variables=None):
    body = {"operationName": operation, "query": query, "variables": variables or {}}
    response = requests.post(base + "/query", json=body, headers={"Authorization": token}, timeout=20)
    check(response.status_code == 200, "%s answered %d" % (operation, response.status_code))
    payload = response.json()
    check("errors" not in payload, "%s without errors" % operation)
    return payload["data"]


async def receive(socket, kind, message_id=None):
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout=20))
        if message["type"] == "error":
            raise AssertionError("server error: %r" % message)
        if message["type"] == kind and (message_id is None or message["messageId"] == message_id):
            return message


async def type_in_note(base, token, account, text):
    url = base.replace("http://", "ws://") + "/socket?protocol=2"
    socket = await websockets.connect(url, additional_headers={"Authorization": token, "ObjectId": account},
                                      compression=None)
    join = {"messageId": "join-1", "type": "resourceConnection", "data": {"resourceId": account}}
    await socket.send(json.dumps(join).encode())  # binary frames, as the Whaler app sends them
    conf = (await receive(socket, "resourceConnectionConf", "join-1"))["data"]
    document, revision = conf["initialState"], conf["revision"]
    position = len(document)  # at the end; Python counts code points, as protocol 2 does
    for number, character in enumerate(text):
        length = len(document)
        n = ([position] if position else []) + [0] + ([length - position] if length - position else [])
        s = ([""] if position else []) + [character] + ([""] if length - position else [])
        message = {"messageId": "edit-%d" % number, "type": "docChange",
                   "data": {"resourceId": account, "rev": revision, "n": n, "s": s,
                            "opId": "py-rec:%d" % (number + 1)}}
        await socket.send(json.dumps(message).encode())
        await receive(socket, "docChangeReturnOps", message["messageId"])
        document = document[:position] + character + document[position:]
        position += 1
        revision += 1
        await asyncio.sleep(0.03)
    cursor = {"messageId": "cursor-1", "type": "cursorUpdate",
              "data": {"resourceId": account, "rev": revision, "anchor": 0, "head": 4}}
    await socket.send(json.dumps(cursor).encode())
    await asyncio.sleep(0.05)
    await socket.close()
    return document


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--email", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()

    response = requests.post(args.base + "/api/user/login", json={"email": args.email, "password": args.password},
                             timeout=20)
    body = response.json()
    check(response.status_code == 200 and body["code"] == 1000, "login code 1000")
    token = body["data"]["tokens"]["accessToken"]
    organization = body["data"]["response"]["organizationId"]

    board = graphql(args.base, token, "Board", "query Board { accounts { id salesforceID name state } }")
    accounts = board["accounts"]
    check(len(accounts) > 0, "the board reads %d accounts" % len(accounts))
    account = accounts[0]
    time.sleep(0.1)

    text = asyncio.run(type_in_note(args.base, token, account["id"], "Call back on Tuesday é"))
    check(text.endswith("Call back on Tuesday é"), "typed into the note")

    state = "In Progress" if account["state"] != "In Progress" else "Worked"
    moved = graphql(args.base, token, "MoveAccount",
                    "mutation MoveAccount($input: [NewAccount!]!, $senderID: ID) "
                    "{ saveAccounts(input: $input, senderID: $senderID) { id state } }",
                    {"input": [{"id": account["id"], "salesforceID": account["salesforceID"], "name": account["name"],
                                "state": state}], "senderID": "py-recorder"})
    check(moved["saveAccounts"][0]["state"] == state, "moved the card to %s" % state)
    time.sleep(0.1)

    # A fixed id: the recording of these steps is the same every time (the HAR fixture holds them too).
    task = {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, "https://whalesim.test/recorded-task")), "createdAt": "2026-11-29T08:00:00Z", "associatedTo": account["id"],
            "description": "Send the proposal", "type": "call", "done": False}
    saved = graphql(args.base, token, "SaveTask",
                    "mutation SaveTask($input: SaveTask!, $senderID: ID) { saveTask(input: $input, senderID: $senderID) { id } }",
                    {"input": task, "senderID": "py-recorder"})
    check(saved["saveTask"]["id"] == task["id"], "saved a task")

    note = graphql(args.base, token, "Note", "query Note($accountID: ID!) { note(accountID: $accountID) { content } }",
                   {"accountID": account["id"]})
    check(note["note"]["content"] == text, "the note reads back what was typed")
    check(organization, "organization %s" % organization)
    print("ALL OK", flush=True)


if __name__ == "__main__":
    main()
