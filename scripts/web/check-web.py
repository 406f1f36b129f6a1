#!/usr/bin/env python3
"""check-web.py SITE [--shots DIR] — the web edition, tested in a real browser.

Opens every page of SITE (build/web/) from file:// in headless Chromium,
at 1100 and at 400 pixels wide, and fails when
  - the page scrolls sideways (something is wider than the window),
  - a link points to a file that does not exist, or to an anchor that the
    target page does not have,
  - an image is missing, did not load, or has no alt text,
  - a formula did not render (MathML with an <merror>, a math element with
    no size, or pandoc's fallback of raw TeX in a span.math),
  - the page asks for anything that is not a local file (any network fetch),
  - a script on the page throws,
  - the search box finds nothing for a word the course uses.
It saves a screenshot of the top of every page at both widths (and in the
dark theme at 1100 px), and one of every figure, under --shots.

Chromium is driven over its DevTools protocol on a pipe
(--remote-debugging-pipe), with python3's standard library only. Where
Chromium is not installed the test says so and skips (exit 0), unless
NL_REQUIRE_CHROMIUM=1 (CI), where that is a failure.
"""
import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

WIDTHS = (1100, 400)
HEIGHT = 900
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


class Browser:
    """Headless Chromium and one page, spoken to over fds 3 and 4."""

    def __init__(self, exe):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="nl-web-chromium-")

        def fds():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-first-run",
                "--no-default-browser-check", "--disable-gpu", "--hide-scrollbars",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--mute-audio",
                "--disable-dev-shm-usage",   # containers give /dev/shm 64 MiB
                "--allow-file-access-from-files",
                # Nothing may leave the machine: name lookups fail and no proxy
                # exists. The test still fails on any attempt (it watches every
                # request), this only makes sure the attempt goes nowhere.
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                "--user-data-dir=" + self.profile, "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")   # Chromium refuses to run as root otherwise
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Network", "Runtime"):
                self.call(domain + ".enable", session=True)
        except Exception:
            self.close()
            raise

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe (it crashed or could not start)")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=False, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, name, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["method"] == name:
                    del self.events[i]
                    return ev
            self.events.append(self._read(deadline))

    def evaluate(self, expr):
        res = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                             "awaitPromise": True}, session=True)
        if "exceptionDetails" in res:
            raise RuntimeError("script in the test failed: " + json.dumps(res["exceptionDetails"])[:400])
        return res["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# Runs in the page: what the test needs to know about it, as JSON.
PAGE_REPORT = r"""
(async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const vw = document.documentElement.clientWidth;
  const wide = [];
  // inside a box that scrolls and itself fits: not what widens the page
  const clipped = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= vw + 1) return true;
    return false;
  };
  if (document.documentElement.scrollWidth > vw) {
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > vw + 1 && !clipped(el)) {
        // the outermost offender only: its children stick out with it
        if (!wide.some(w => w.el.contains(el))) wide.push({el, right: Math.round(r.right)});
      }
      if (wide.length > 5) break;
    }
  }
  const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
      ' "' + (el.textContent || '').trim().slice(0, 60).replace(/\s+/g, ' ') + '"';
  const maths = [...document.querySelectorAll('math')];
  return {
    scrollWidth: document.documentElement.scrollWidth, clientWidth: vw,
    wide: wide.map(w => describe(w.el) + ' reaches x=' + w.right),
    ids: [...document.querySelectorAll('[id]')].map(e => e.id)
          .concat([...document.querySelectorAll('a[name]')].map(e => e.name)),
    links: [...document.querySelectorAll('a[href]')].map(a => ({href: a.href, raw: a.getAttribute('href'), text: a.textContent.trim().slice(0, 50)})),
    images: [...document.images].map(i => ({src: i.getAttribute('src'), url: i.src, alt: i.getAttribute('alt') || '',
                                           ok: i.complete && i.naturalWidth > 0})),
    math: maths.length,
    mathDisplay: maths.length ? getComputedStyle(maths[0]).display : '',
    mathBad: maths.filter(m => m.querySelector('merror') || m.getBoundingClientRect().width === 0 ||
                                m.getBoundingClientRect().height === 0).map(m => (m.getAttribute('alttext') || m.textContent).slice(0, 80)),
    texLeft: [...document.querySelectorAll('span.math')].filter(s => !s.querySelector('math')).map(s => s.textContent.slice(0, 80)),
    figures: document.querySelectorAll('figure').length,
  };
})()
"""


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def url_to_path(url):
    p = urllib.parse.urlparse(url)
    return urllib.parse.unquote(p.path), urllib.parse.unquote(p.fragment)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site", help="the folder make web wrote (build/web)")
    ap.add_argument("--shots", default=None, help="folder for the screenshots")
    args = ap.parse_args()

    site = os.path.abspath(args.site)
    pages = sorted(f for f in os.listdir(site) if f.endswith(".html")) if os.path.isdir(site) else []
    if not pages:
        print(f"web-test: no HTML pages in {args.site}: run `make web` first", file=sys.stderr)
        return 2
    exe = find_chromium()
    if not exe:
        msg = ("web-test: SKIPPED: Chromium is not installed, so the web edition cannot be opened in a browser; "
               "install it with `scripts/setup/deps.sh webtest` (Debian: chromium)")
        if os.environ.get("NL_REQUIRE_CHROMIUM") == "1":
            print(msg.replace("SKIPPED", "FAILED (NL_REQUIRE_CHROMIUM=1)"), file=sys.stderr)
            return 1
        print(msg)
        return 0
    shots = os.path.abspath(args.shots) if args.shots else None
    if shots:
        shutil.rmtree(shots, ignore_errors=True)
        os.makedirs(shots)

    problems = []
    ids_of = {}          # page path -> set of ids
    links_of = {}        # page -> links seen
    try:
        browser = Browser(exe)
    except (RuntimeError, TimeoutError, OSError) as e:
        print(f"web-test: FAILED: {exe} is installed but could not be started headless ({e}); "
              f"try it by hand: {exe} --headless=new --no-sandbox --dump-dom about:blank", file=sys.stderr)
        return 1
    checked = 0
    try:
        for page in pages:
            path = os.path.join(site, page)
            url = "file://" + urllib.parse.quote(path)
            for width in WIDTHS:
                browser.call("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
                             session=True)
                browser.call("Emulation.setEmulatedMedia",
                             {"features": [{"name": "prefers-color-scheme", "value": "light"}]}, session=True)
                browser.events.clear()
                browser.call("Page.navigate", {"url": url}, session=True)
                browser.wait_event("Page.loadEventFired")
                report = browser.evaluate(PAGE_REPORT)
                checked += 1
                where = f"{page} at {width} px"
                for ev in browser.events:
                    if ev["method"] == "Network.requestWillBeSent":
                        req = ev["params"]["request"]["url"]
                        if not req.startswith(LOCAL_SCHEMES):
                            problems.append(f"{where}: fetches {req} from the network; the site must work offline (bundle it in build/web/)")
                    elif ev["method"] == "Network.loadingFailed":
                        problems.append(f"{where}: a resource failed to load ({ev['params'].get('errorText')}); "
                                        "look for a missing style.css, script or image")
                    elif ev["method"] == "Runtime.exceptionThrown":
                        d = ev["params"]["exceptionDetails"]
                        problems.append(f"{where}: a script threw: {d.get('exception', {}).get('description', d.get('text'))}")
                if report["scrollWidth"] > report["clientWidth"]:
                    problems.append(f"{where}: the page scrolls sideways (content {report['scrollWidth']} px wide in a "
                                    f"{report['clientWidth']} px window); too wide: " + "; ".join(report["wide"]) +
                                    ". Hint: a wide element needs a box that scrolls (overflow-x: auto) or may wrap")
                for img in report["images"]:
                    if not img["ok"]:
                        problems.append(f"{where}: image {img['src']} is missing or did not load")
                    if not img["alt"].strip():
                        problems.append(f"{where}: image {img['src']} has no alt text")
                if report["math"] and report["mathDisplay"] not in ("math", "block math", "inline math"):
                    problems.append(f"{where}: this browser does not lay out MathML (math is display: {report['mathDisplay']})")
                for m in report["mathBad"]:
                    problems.append(f"{where}: a formula did not render: {m!r}")
                for t in report["texLeft"]:
                    problems.append(f"{where}: TeX left unconverted (pandoc could not turn it into MathML): {t!r}")
                ids_of[path] = set(report["ids"])
                links_of[page] = report["links"]
                if shots:
                    stem = page[:-5]
                    shot(browser, os.path.join(shots, f"{stem}-{width}.png"))
                    if report["figures"]:
                        n = browser.evaluate("""(async () => { const f = document.querySelector('figure');
                            f.scrollIntoView({block: 'start'}); window.scrollBy(0, -20);
                            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
                            return 1; })()""")
                        if n:
                            shot(browser, os.path.join(shots, f"{stem}-{width}-figure.png"))
                    if width == WIDTHS[0]:
                        browser.call("Emulation.setEmulatedMedia",
                                     {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}, session=True)
                        browser.evaluate("window.scrollTo(0, 0); new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                        shot(browser, os.path.join(shots, f"{stem}-{width}-dark.png"))
        # The search box: a word every edition has must find sections, and
        # the links it offers must lead somewhere (checked with the others).
        browser.call("Page.navigate", {"url": "file://" + urllib.parse.quote(os.path.join(site, pages[0]))}, session=True)
        browser.wait_event("Page.loadEventFired")
        found = browser.evaluate("""(() => { const q = document.getElementById('q');
            if (!q) return null; q.value = 'variance'; q.dispatchEvent(new Event('input'));
            return [...document.querySelectorAll('#results a')].map(a => ({href: a.href, raw: a.getAttribute('href'),
                                                                          text: a.textContent.trim().slice(0, 50)})); })()""")
        if found is None:
            problems.append(f"{pages[0]}: no search box (#q)")
        elif not found:
            problems.append(f"{pages[0]}: searching for 'variance' found nothing; is search-index.js there and filled?")
        else:
            links_of["search results"] = found
    finally:
        browser.close()

    # Links: every local target exists; every #anchor exists on its page.
    broken = 0
    for page, links in sorted(links_of.items()):
        for link in links:
            href = link["href"]
            if not href.startswith("file:"):
                continue   # links out (https:) are for the reader to follow, never fetched here
            target, frag = url_to_path(href)
            if not os.path.exists(target):
                problems.append(f"{page}: link {link['raw']!r} ({link['text']!r}) points to {target}, which does not exist")
                broken += 1
                continue
            if frag and target.endswith(".html"):
                ids = ids_of.get(target)
                if ids is None:
                    problems.append(f"{page}: link {link['raw']!r} leads outside the site's pages ({target})")
                elif frag not in ids:
                    problems.append(f"{page}: link {link['raw']!r} ({link['text']!r}): {os.path.basename(target)} has no anchor #{frag}")
                    broken += 1

    nlinks = sum(len(v) for v in links_of.values())
    print(f"web-test: {len(pages)} pages, {checked} page loads (widths {', '.join(map(str, WIDTHS))} px), "
          f"{nlinks} links checked" + (f"; screenshots in {args.shots}" if shots else ""))
    if problems:
        for p in problems:
            print("web-test: FAIL: " + p, file=sys.stderr)
        print(f"web-test: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("web-test: passed: no sideways scrolling, no broken link or anchor, every image loaded with alt text, "
          "every formula rendered, no network fetch")
    return 0


def shot(browser, path):
    data = browser.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


if __name__ == "__main__":
    sys.exit(main())
