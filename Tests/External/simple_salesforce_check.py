#!/usr/bin/env python3
"""Drives the fake Salesforce with the unmodified simple-salesforce client from PyPI.

Run by Tests/SalesforceHTTPTests (which starts the fake over HTTPS and sets REQUESTS_CA_BUNDLE):

    simple_salesforce_check.py --port 8443 --username admin@whaler.test --password whaler123 \
        --token TOKEN123 --handshake-dir /tmp/x --bulk-prefix Bulk --bulk-count 1050

Each check prints one `ok <name> ...` line; any failure prints `FAIL <name>: <reason>` and exits 1.
The expired-session check writes `<handshake-dir>/expire-request` (the current session id) and waits
for the test to expire that session server-side and write `expire-done`.
"""
import argparse
import json
import os
import sys
import time

try:
    import simple_salesforce
    from simple_salesforce import Salesforce
    from simple_salesforce.exceptions import (SalesforceAuthenticationFailed, SalesforceMalformedRequest,
                                              SalesforceResourceNotFound)
except ImportError as error:  # the Swift test turns this into an install hint
    print(f"MISSING simple_salesforce ({error}): run scripts/setup --tests (installs it in .venv)", flush=True)
    sys.exit(3)

import requests


def fail(name, reason):
    print(f"FAIL {name}: {reason}", flush=True)
    sys.exit(1)


def check(name, condition, reason):
    if not condition:
        fail(name, reason)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--handshake-dir", required=True)
    parser.add_argument("--bulk-prefix", required=True)
    parser.add_argument("--bulk-count", type=int, required=True)
    args = parser.parse_args()
    domain = f"127.0.0.1:{args.port}/services/Soap/u/59.0?x="
    print(f"ok start simple_salesforce={simple_salesforce.__version__ if hasattr(simple_salesforce, '__version__') else '?'} "
          f"ca={os.environ.get('REQUESTS_CA_BUNDLE')}", flush=True)

    # Bad password: SOAP LoginFault → SalesforceAuthenticationFailed with INVALID_LOGIN.
    try:
        Salesforce(username=args.username, password="wrong", security_token=args.token, domain=domain, version="59.0")
        fail("bad-login", "no exception")
    except SalesforceAuthenticationFailed as error:
        check("bad-login", "INVALID_LOGIN" in str(error), f"unexpected error {error}")
    print("ok bad-login INVALID_LOGIN", flush=True)

    # SOAP login with password + security token.
    sf = Salesforce(username=args.username, password=args.password, security_token=args.token, domain=domain,
                    version="59.0")
    check("login", sf.sf_instance == f"127.0.0.1:{args.port}", f"sf_instance {sf.sf_instance}")
    check("login", "!" in sf.session_id and "<" not in sf.session_id, f"session id {sf.session_id!r}")
    print(f"ok login instance={sf.sf_instance}", flush=True)

    # A plain query.
    result = sf.query("SELECT Id, Name FROM Account ORDER BY Name LIMIT 3")
    check("query", result["done"] is True and len(result["records"]) == min(3, result["totalSize"]),
          json.dumps(result)[:300])
    check("query", all(r["attributes"]["type"] == "Account" and len(r["Id"]) == 18 for r in result["records"]),
          json.dumps(result)[:300])
    print(f"ok query totalSize={result['totalSize']}", flush=True)

    # Paging: batchSize=200 over the bulk rows, first by hand (count the pages), then query_all.
    soql = f"SELECT Id, Name FROM Account WHERE Name LIKE '{args.bulk_prefix}%' ORDER BY Name"
    paging = {"Sforce-Query-Options": "batchSize=200"}
    page = sf.query(soql, headers=paging)
    pages, rows = 1, len(page["records"])
    while not page["done"]:
        page = sf.query_more(page["nextRecordsUrl"], identifier_is_url=True, headers=paging)
        pages += 1
        rows += len(page["records"])
    check("paging", rows == args.bulk_count and pages >= 5, f"rows {rows} pages {pages}")
    everything = sf.query_all(soql, headers=paging)
    names = [r["Name"] for r in everything["records"]]
    check("query_all", everything["totalSize"] == args.bulk_count and names == sorted(names) and len(set(names)) == len(names),
          f"totalSize {everything['totalSize']}")
    print(f"ok query_all rows={rows} pages={pages}", flush=True)

    # Describe (global and one object).
    describe = sf.Account.describe()
    field_names = {f["name"] for f in describe["fields"]}
    check("describe", describe["name"] == "Account" and {"Id", "Name"} <= field_names, str(sorted(field_names))[:300])
    check("describe", any(s["name"] == "Contact" for s in sf.describe()["sobjects"]), "no Contact in global describe")
    print(f"ok describe fields={len(field_names)}", flush=True)

    # Create, read, update, delete.
    created = sf.Account.create({"Name": "Py Whale"})
    check("create", created["success"] is True and created["errors"] == [] and len(created["id"]) == 18, str(created))
    record_id = created["id"]
    check("get", sf.Account.get(record_id)["Name"] == "Py Whale", "name after create")
    status = sf.Account.update(record_id, {"Name": "Py Whale 2"})
    check("update", status == 204 and sf.Account.get(record_id)["Name"] == "Py Whale 2", f"status {status}")
    status = sf.Account.delete(record_id)
    check("delete", status == 204, f"status {status}")
    try:
        sf.Account.get(record_id)
        fail("delete", "deleted record still readable")
    except SalesforceResourceNotFound:
        pass
    print(f"ok crud id={record_id}", flush=True)

    # System fields as Salesforce keeps them: the describe says non-nillable and not createable
    # (as every real org's does), a create stamps the session's user and the dates, an update
    # the last modifier; the relationships (CreatedBy.Username) resolve in SOQL.
    audit = ["CreatedById", "CreatedDate", "LastModifiedById", "LastModifiedDate", "SystemModstamp"]
    described = {f["name"]: f for f in describe["fields"]}
    for name in audit:
        field = described.get(name)
        check("audit", field is not None and field["nillable"] is False and field["createable"] is False
              and field["updateable"] is False, f"{name} in describe: {field}")
    me = sf.query(f"SELECT Id FROM User WHERE Username = '{args.username}'")["records"][0]["Id"]
    created = sf.Account.create({"Name": "Py Audit"})
    check("audit", created["success"] is True, str(created))
    row = sf.Account.get(created["id"])
    check("audit", row["CreatedById"] == me and row["LastModifiedById"] == me,
          f"created by {row.get('CreatedById')}, modified by {row.get('LastModifiedById')}, session user {me}")
    check("audit", all(isinstance(row.get(n), str) and n and row[n].endswith("+0000") for n in audit if n.endswith(("Date", "Modstamp"))),
          json.dumps({n: row.get(n) for n in audit}))
    status = sf.Account.update(created["id"], {"Name": "Py Audit 2"})
    after = sf.Account.get(created["id"])
    check("audit", status == 204 and after["LastModifiedById"] == me and after["CreatedById"] == me
          and after["CreatedDate"] == row["CreatedDate"] and after["SystemModstamp"], json.dumps({n: after.get(n) for n in audit}))
    joined = sf.query(f"SELECT CreatedBy.Username, LastModifiedBy.Username FROM Account WHERE Id = '{created['id']}'")["records"][0]
    check("audit", joined["CreatedBy"]["Username"] == args.username and joined["LastModifiedBy"]["Username"] == args.username,
          json.dumps(joined)[:300])
    print(f"ok audit created-by={me} created={row['CreatedDate']}", flush=True)

    # Expired session: the test expires it server-side; the client must log in again and retry.
    old_session = sf.session_id
    request_file = os.path.join(args.handshake_dir, "expire-request")
    done_file = os.path.join(args.handshake_dir, "expire-done")
    with open(request_file + ".tmp", "w") as f:
        f.write(old_session)
    os.rename(request_file + ".tmp", request_file)
    deadline = time.time() + 20
    while not os.path.exists(done_file):
        check("expire", time.time() < deadline, "the test never expired the session")
        time.sleep(0.02)
    stale = requests.get(f"https://{sf.sf_instance}/services/data/v59.0/limits",
                         headers={"Authorization": "Bearer " + old_session})
    check("expire", stale.status_code == 401 and stale.json()[0]["errorCode"] == "INVALID_SESSION_ID",
          f"old session still works: {stale.status_code} {stale.text[:200]}")
    result = sf.query("SELECT Id FROM Account LIMIT 1")
    check("expire", sf.session_id != old_session and result["totalSize"] >= 1, "no re-login happened")
    print("ok expired-session relogin", flush=True)

    # Revoke (OAuth revoke endpoint) also ends the session; the client logs in again.
    old_session = sf.session_id
    revoked = requests.post(f"https://{sf.sf_instance}/services/oauth2/revoke", data={"token": old_session})
    check("revoke", revoked.status_code == 200, f"revoke {revoked.status_code} {revoked.text[:200]}")
    sf.query("SELECT Id FROM Account LIMIT 1")
    check("revoke", sf.session_id != old_session, "no re-login after revoke")
    print("ok revoke relogin", flush=True)

    # A malformed query: SalesforceMalformedRequest carrying MALFORMED_QUERY.
    try:
        sf.query("SELECT Id FORM Account")
        fail("malformed", "no exception")
    except SalesforceMalformedRequest as error:
        check("malformed", error.status == 400 and error.content[0]["errorCode"] == "MALFORMED_QUERY",
              f"{error.status} {error.content}")
    print("ok malformed MALFORMED_QUERY", flush=True)

    # An unknown field: also 400, INVALID_FIELD.
    try:
        sf.query("SELECT Foo FROM Account")
        fail("invalid-field", "no exception")
    except SalesforceMalformedRequest as error:
        check("invalid-field", error.content[0]["errorCode"] == "INVALID_FIELD", f"{error.content}")
    print("ok invalid-field INVALID_FIELD", flush=True)
    print("ALL OK", flush=True)


if __name__ == "__main__":
    main()
