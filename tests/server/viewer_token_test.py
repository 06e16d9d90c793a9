#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The viewer behind tokens in a real browser (issue 29, 4.4): `gridstore serve --token-file`,
# Debian's chromium driven by chromedriver (Selenium). The page itself loads without a token;
# its first data request gets 401 and the page asks for the token (window.prompt). A wrong
# token is asked again; the right one is kept for the tab: the page then lists the dataset,
# draws the map from tiles fetched with the token (an <img> could not send it), reads the
# linked point's series and downloads a box, with no further prompt.
# Usage: viewer_token_test.py GRIDSTORE DATA_DIR WORK_DIR
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, UnexpectedAlertPresentException
from selenium.webdriver.chrome.service import Service

GRIDSTORE, DATA, WORK = sys.argv[1:4]
STORE = os.path.join(WORK, "store")
TOKEN = "s3cret-token"


# What the page shows once it settled (null before).
READ = """
if (!window.viewer || document.body.dataset.ready !== '1' || viewer.busy || GS.tiles.pending() ||
    !viewer.panes.a.map.complete) return null;
return {
  errors: viewer.errors,
  datasets: [...document.getElementById('collection').options].map((o) => o.value),
  tiles: GS.tiles.loaded, failed: GS.tiles.failed,
  series: [...document.querySelectorAll('#point-values td[data-variable="tos"]')]
      .map((td) => td.dataset.value),
};
"""

# A box drawn with Shift held (the page's own handler), the link it makes and what it serves.
BOX = """
const done = arguments[arguments.length - 1];
let href = null;
const click = HTMLAnchorElement.prototype.click;
HTMLAnchorElement.prototype.click = function () { href = this.href; };
downloadBox(viewer.a, [200, -25, 210, -15]).then(async () => {
  HTMLAnchorElement.prototype.click = click;
  const r = await fetch(href);
  const magic = new Uint8Array(await r.arrayBuffer()).slice(1, 4);
  done({ href, asked: viewer.lastBox, status: r.status, type: r.headers.get('Content-Type'),
         magic: String.fromCharCode(...magic) });
}).catch((e) => done({ error: String(e) }));
"""


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--user-data-dir={os.path.join(WORK, 'chromium-home')}"):
        options.add_argument(arg)
    # A prompt that opens while the test reads the page stays open for the test to answer.
    options.set_capability("unhandledPromptBehavior", "ignore")
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    subprocess.run([GRIDSTORE, "--store", STORE, "import",
                    os.path.join(DATA, "tos_O1_2001-2002.nc"), "--dataset", "ocean/tos"],
                   check=True, capture_output=True)
    tokens = os.path.join(WORK, "tokens")
    with open(tokens, "w") as f:
        f.write(f"# viewer test\n{TOKEN}\n")
    server = subprocess.Popen([GRIDSTORE, "--store", STORE, "serve", "--listen", "127.0.0.1:0",
                               "--token-file", tokens], stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        url = re.search(r"(http://\S+)", server.stderr.readline()).group(1)
        driver = browser()
        driver.get(f"{url}/viewer/?c=ocean/tos&pt=-20,205")
        prompts, answers = [], ["wrong-token", TOKEN]
        result, deadline = None, time.monotonic() + 120
        while not result and time.monotonic() < deadline:
            try:
                alert = driver.switch_to.alert
                prompts.append(alert.text)
                alert.send_keys(answers[min(len(prompts) - 1, len(answers) - 1)])
                alert.accept()
                continue
            except NoAlertPresentException:
                pass
            try:
                result = driver.execute_script(READ)
            except UnexpectedAlertPresentException:
                continue  # asked meanwhile: answered at the top of the loop
            time.sleep(0.2)
        assert result, "the page did not settle"
        assert not result["errors"], result
        # Asked twice: the wrong token got 401 again, the right one was kept for every request.
        assert len(prompts) == 2, prompts
        assert all("needs a token" in p for p in prompts), prompts
        assert result["datasets"] == ["ocean/tos"], result["datasets"]
        assert result["tiles"] > 0 and result["failed"] == 0, result
        assert len(result["series"]) == 24 and all(v != "" for v in result["series"]), result
        # Shift + drag a box: behind a token it is fetched with it and saved from a blob.
        box = driver.execute_async_script(BOX)
        assert box["status"] == 200 and box["type"] == "application/x-netcdf", box
        assert box["href"].startswith("blob:") and box["magic"] in ("CDF", "HDF"), box
        assert "/cube?" in box["asked"] and "f=NetCDF" in box["asked"], box
        # Without the token: the page, but no data.
        for path, want in (("/viewer/", "200"), ("/collections", "401")):
            code = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                   url + path], capture_output=True, text=True).stdout
            assert code == want, (path, code)
        print(f"viewer behind a token: asked {len(prompts)} times (a wrong token, then the "
              f"right one); datasets, {result['tiles']} map tiles, a point's 24 values and a "
              f"box read with it")
    finally:
        if driver is not None:
            driver.quit()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
