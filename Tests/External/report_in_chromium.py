#!/usr/bin/env python3
"""Opens a whalesim report.html in headless Chromium over the DevTools protocol.

Run by Tests/WhaleReportsTests/ChromiumReportTests:

    report_in_chromium.py REPORT_HTML OUT_DIR [--timeout 45]

It loads the file offline, collects console errors, uncaught exceptions, failed requests and
any request that is not the file itself, saves a full-page screenshot in light and in dark mode
(OUT_DIR/report-light.png, report-dark.png), and checks that each chart drawn has content
(more than a few colours in its screenshot; a blank panel has one or two). It prints one JSON
object and exits 0 when all holds, 1 with the reasons otherwise, 2 when it cannot run.
"""
import argparse
import asyncio
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

try:
    import websockets
except ImportError:
    print(json.dumps({"error": "python package websockets is missing (scripts/setup --tests installs it in .venv)"}))
    sys.exit(2)


def png_colours(data):
    """Distinct colours of an 8-bit RGB/RGBA PNG (the only kinds Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, kind = 8, b"", 0, 0, 0
    while pos < len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if tag == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and kind in (2, 6), "unexpected PNG format"
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 4 if kind == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    colours = set()
    for y in range(height):
        f = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if f == 1:
                row[i] = (row[i] + a) & 255
            elif f == 2:
                row[i] = (row[i] + b) & 255
            elif f == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            colours.add(bytes(row[x:x + 3]))
        previous = row
    return colours


class Page:
    def __init__(self, socket):
        self.socket, self.next_id, self.events, self.waiting = socket, 0, [], {}

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

    async def wait_for(self, method, timeout):
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self.events):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {method} within {timeout}s")
            message = json.loads(await asyncio.wait_for(self.socket.recv(), remaining))
            if "method" in message:
                self.events.append(message)


async def inspect(browser, html_path, out_dir, timeout):
    profile = tempfile.mkdtemp(prefix="whalesim-chromium-")
    process = subprocess.Popen(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
         "--disable-component-update", "--remote-debugging-port=0", "--remote-allow-origins=*",
         f"--user-data-dir={profile}", "--window-size=1280,2400", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
            await page.call("Emulation.setDeviceMetricsOverride", width=1280, height=2400, deviceScaleFactor=1, mobile=False)
            url = "file://" + os.path.abspath(html_path)
            await page.call("Page.navigate", url=url)
            await page.wait_for("Page.loadEventFired", timeout)
            await asyncio.sleep(0.3)
            charts = json.loads((await page.call("Runtime.evaluate", returnByValue=True, expression=
                "JSON.stringify([...document.querySelectorAll('svg.chart')].map(e => { const r = e.getBoundingClientRect();"
                " return {x: r.x, y: r.y + window.scrollY, width: r.width, height: r.height, lines: e.querySelectorAll('path.line').length,"
                " faults: e.querySelectorAll('rect.fault').length} }))"))["result"]["value"])
            shots = {}
            for scheme in ("light", "dark"):
                await page.call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])
                await asyncio.sleep(0.2)
                shot = await page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
                path = os.path.join(out_dir, f"report-{scheme}.png")
                with open(path, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                shots[scheme] = path
            background = json.loads((await page.call("Runtime.evaluate", returnByValue=True, expression=
                "JSON.stringify(getComputedStyle(document.body).backgroundColor)"))["result"]["value"])
            colours = []
            for chart in charts[:3]:
                clip = {"x": chart["x"], "y": chart["y"], "width": chart["width"], "height": chart["height"], "scale": 0.5}
                shot = await page.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
                colours.append(len(png_colours(base64.b64decode(shot["data"]))))
            events = page.events
    finally:
        process.kill()
        process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)

    problems = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.exceptionThrown":
            problems.append("exception: " + p.get("exceptionDetails", {}).get("text", "?"))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            problems.append("console error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            problems.append("log error: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
        elif m == "Network.loadingFailed":
            problems.append("failed request: " + p.get("errorText", "?"))
        elif m == "Network.requestWillBeSent":
            requested = p.get("request", {}).get("url", "")
            if requested != url and not requested.startswith("data:"):
                problems.append("fetched something besides the file: " + requested)
    if not charts:
        problems.append("no charts on the page")
    for i, n in enumerate(colours):
        if n < 8:
            problems.append(f"chart {i + 1} looks blank ({n} colours)")
    if background != "rgb(20, 23, 28)":
        problems.append(f"dark mode did not apply (body background {background})")
    return {"problems": problems, "charts": charts, "chartColours": colours, "screenshots": shots, "darkBackground": background}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("html")
    parser.add_argument("out_dir")
    parser.add_argument("--timeout", type=float, default=45)
    parser.add_argument("--browser", help="the browser binary (default: chromium, chromium-browser or google-chrome on PATH)")
    args = parser.parse_args()
    browser = args.browser or shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not browser:
        print(json.dumps({"error": "chromium is not installed (scripts/setup --tests installs it in .venv)"}))
        sys.exit(2)
    os.makedirs(args.out_dir, exist_ok=True)
    try:
        result = asyncio.run(asyncio.wait_for(inspect(browser, args.html, args.out_dir, args.timeout), args.timeout + 15))
    except Exception as error:  # noqa: BLE001 - any failure to drive the browser is reported the same way
        print(json.dumps({"problems": [f"could not drive chromium: {type(error).__name__}: {error}"]}))
        sys.exit(1)
    print(json.dumps(result))
    sys.exit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
