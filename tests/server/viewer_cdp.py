# Copyright 2026 The GridStore Authors.
#
# A small client of Chromium's DevTools protocol (CDP) over a WebSocket (Debian's
# python3-websocket), for the viewer's test and benchmark: launches headless chromium with
# --remote-debugging-port=0, reads the port it picked from DevToolsActivePort, attaches to its
# page and sends commands; every event is kept, so that the console's messages can be checked.
import base64
import json
import os
import shutil
import subprocess
import time
import urllib.request

import websocket


class CdpError(Exception):
    pass


class Chromium:
    def __init__(self, work, width=1000, height=700, extra_args=()):
        self.home = os.path.join(work, "chromium-cdp")
        shutil.rmtree(self.home, ignore_errors=True)
        os.makedirs(self.home)
        self.proc = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-dev-shm-usage", "--hide-scrollbars",
             "--disable-extensions", "--disable-background-networking", "--disable-sync",
             "--disable-component-update", "--mute-audio", "--remote-debugging-port=0",
             f"--user-data-dir={self.home}", f"--window-size={width},{height}", *extra_args,
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": self.home})
        port_file = os.path.join(self.home, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise CdpError("chromium did not write DevToolsActivePort")
            time.sleep(0.05)
        port = int(open(port_file).read().split()[0])
        targets = []
        while not targets:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                targets = [t for t in json.load(r) if t["type"] == "page"]
            if not targets:
                time.sleep(0.05)
        self.ws = websocket.create_connection(targets[0]["webSocketDebuggerUrl"],
                                              suppress_origin=True, timeout=120)
        self.next_id = 0
        self.events = []
        self.width, self.height = width, height
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Log.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  width=width, height=height, deviceScaleFactor=1, mobile=False)

    def close(self):
        try:
            if getattr(self, "ws", None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()

    def send(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mine:
                if "error" in msg:
                    raise CdpError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout=60):
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        self.ws.settimeout(timeout)
        try:
            while True:
                msg = json.loads(self.ws.recv())
                if msg.get("method") == method:
                    return msg
                if "method" in msg:
                    self.events.append(msg)
        finally:
            self.ws.settimeout(120)

    def eval(self, expression, await_promise=True):
        """The value of a JavaScript expression (a promise is awaited); a thrown error raises."""
        r = self.send("Runtime.evaluate", expression=expression, awaitPromise=await_promise,
                      returnByValue=True, userGesture=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CdpError(f"{expression[:80]}: " + str(d.get("exception", {}).get("description")
                                                        or d.get("text")))
        return r["result"].get("value")

    def navigate(self, url):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    # Input as a user gives it (mouse, wheel, keys), at page coordinates.
    def mouse(self, kind, x, y, **extra):
        self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, **extra)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", buttons=1, clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", buttons=0, clickCount=1)

    def drag(self, x0, y0, x1, y1, steps=8):
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, button="left", buttons=1, clickCount=1)
        for i in range(1, steps + 1):
            self.mouse("mouseMoved", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps,
                       button="left", buttons=1)
        self.mouse("mouseReleased", x1, y1, button="left", buttons=0, clickCount=1)

    def wheel(self, x, y, delta_y):
        self.mouse("mouseWheel", x, y, deltaX=0, deltaY=delta_y)

    def touch(self, start, end, steps=6):
        """Fingers (one or two) put down at `start` points, moved to `end`, lifted."""
        pts = lambda ps: [{"x": x, "y": y, "id": i + 1} for i, (x, y) in enumerate(ps)]
        self.send("Input.dispatchTouchEvent", type="touchStart", touchPoints=pts(start))
        for k in range(1, steps + 1):
            self.send("Input.dispatchTouchEvent", type="touchMove", touchPoints=pts(
                [(a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps)
                 for a, b in zip(start, end)]))
        self.send("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])

    def key(self, key, code=None, text=None, key_code=0):
        base = dict(key=key, code=code or key, windowsVirtualKeyCode=key_code)
        self.send("Input.dispatchKeyEvent", type="keyDown", text=text or "", **base)
        self.send("Input.dispatchKeyEvent", type="keyUp", **base)

    def console_problems(self):
        """Console errors and warnings, uncaught exceptions and failed loads seen so far."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{p['type']}: " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + str(d.get("exception", {}).get("description")
                                               or d.get("text")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                entry = p["entry"]
                out.append(f"log {entry['level']} ({entry.get('source')}): {entry.get('text')} "
                           f"{entry.get('url', '')}")
        return out
