#!/usr/bin/env python3
"""Watches whalesim's live dashboard in headless Chromium over the DevTools protocol.

Run by Tests/WhaleTelemetryTests/DashboardChromiumTests:

    dashboard_in_chromium.py URL OUT_DIR [--gap 2.5] [--timeout 40] [--browser PATH]

It opens URL (the telemetry endpoint's `/`), reads the figures twice, GAP seconds apart, saves a
screenshot (OUT_DIR/dashboard-live.png), then writes OUT_DIR/reads-done so the test ends the run,
and waits for the verdict to show (OUT_DIR/dashboard-final.png). It prints one JSON object:
{"reads": [first, second, final], "problems": [...]} and exits 0, or 1 when it could not drive
the browser, 2 when it cannot run at all.
"""
import argparse
import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import websockets
except ImportError:
    print(json.dumps({"error": "python package websockets is missing (scripts/setup --tests installs it in .venv)"}))
    sys.exit(2)

READ = """JSON.stringify(Object.fromEntries(['phase', 'elapsed', 'clients', 'ops-rate', 'acks', 'p99', 'errors-total',
  'frames', 'connection'].map(id => [id, document.getElementById(id).textContent]).concat([
  ['verdictShown', !document.getElementById('verdict').hidden],
  ['verdict', document.getElementById('verdict').textContent],
  ['reportLink', (document.getElementById('report-link') || {}).href || null],
  ['checkers', [...document.querySelectorAll('#checkers tr')].map(r => r.textContent)],
  ['errors', [...document.querySelectorAll('#errors tr')].map(r => r.textContent)],
  ['lines', document.querySelectorAll('#chart-ack path').length],
  ['chartFrom', document.getElementById('chart-ops').dataset.from || null],
  ['faults', document.querySelectorAll('#chart-ack rect.fault').length]])))"""


class Page:
    def __init__(self, socket):
        self.socket, self.next_id, self.events = socket, 0, []

    async def call(self, method, **params):
        self.next_id += 1
        key = self.next_id
        await self.socket.send(json.dumps({"id": key, "method": method, "params": params}))
        while True:
            message = json.loads(await self.socket.recv())
            if message.get("id") == key:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    async def read(self):
        # None until the new page's elements exist (an evaluation during navigation throws).
        result = await self.call("Runtime.evaluate", expression=READ, returnByValue=True)
        value = result.get("result", {}).get("value")
        return json.loads(value) if isinstance(value, str) else None

    async def screenshot(self, path):
        shot = await self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))


async def watch(browser, url, out_dir, gap, timeout):
    profile = tempfile.mkdtemp(prefix="whalesim-dashboard-")
    process = subprocess.Popen(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
         "--disable-component-update", "--remote-debugging-port=0", "--remote-allow-origins=*",
         f"--user-data-dir={profile}", "--window-size=1280,1400", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reads = []
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if process.poll() is not None:
                raise RuntimeError(f"chromium exited with {process.returncode} before opening its DevTools port")
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not open its DevTools port")
            await asyncio.sleep(0.1)
        port = int(open(port_file).read().split("\n")[0])
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        target = next(t for t in targets if t.get("type") == "page")
        async with websockets.connect(target["webSocketDebuggerUrl"], max_size=None) as socket:
            page = Page(socket)
            for domain in ("Page", "Runtime", "Log", "Network"):
                await page.call(f"{domain}.enable")
            await page.call("Page.navigate", url=url)
            # The first read once a few events have arrived, the second GAP seconds later.
            while True:
                first = await page.read()
                if (first and int(first["frames"]) >= 2) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            reads.append(first)
            await asyncio.sleep(gap)
            reads.append(await page.read())
            await page.screenshot(os.path.join(out_dir, "dashboard-live.png"))
            open(os.path.join(out_dir, "reads-done"), "w").close()
            while True:
                final = await page.read()
                if (final and final["verdictShown"]) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            reads.append(final)
            await page.screenshot(os.path.join(out_dir, "dashboard-final.png"))
            events = page.events
    finally:
        process.kill()
        process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
    problems = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.exceptionThrown":
            problems.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:400])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            problems.append("console error: " + json.dumps(p.get("args", []))[:400])
        elif m == "Network.requestWillBeSent":
            requested = p.get("request", {}).get("url", "")
            if requested not in (url, url + "events"):
                problems.append("fetched something besides the page and its events: " + requested)
    return {"reads": reads, "problems": problems}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("out_dir")
    parser.add_argument("--gap", type=float, default=2.5)
    parser.add_argument("--timeout", type=float, default=40)
    parser.add_argument("--browser")
    args = parser.parse_args()
    browser = args.browser or shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print(json.dumps({"error": "chromium is not installed"}))
        sys.exit(2)
    os.makedirs(args.out_dir, exist_ok=True)
    try:
        result = asyncio.run(asyncio.wait_for(watch(browser, args.url, args.out_dir, args.gap, args.timeout), args.timeout + 15))
    except Exception as error:  # noqa: BLE001 - any failure to drive the browser is reported the same way
        print(json.dumps({"problems": [f"could not drive chromium: {type(error).__name__}: {error}"]}))
        sys.exit(1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
