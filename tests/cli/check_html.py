#!/usr/bin/env python3
"""Checks of lanebench check's HTML page (report/check_html.c), for
tests/cli/check_html_test.sh:

  check_html.py page PAGE.html RECORD.csv
      the page parses with every element closed in order (a tag stack, not
      the forgiving browser), references nothing outside itself, and names
      every FAIL, ERROR and WARN row of the record -- its verdict, where
      (rank and host, lane and NIC; a link's sender and receiver) and its
      reason -- in the failures table; every such link row is outlined in
      its lane's matrix and its reason is in that cell's tooltip.  A slow
      port's WARN links ("rank 6's port sends slowly (its port row)", or
      "rank 2's port loses what it receives (its port row)") are
      in a fold under the port's row ("14 links of this port WARN: ..."),
      a link that fails on its own never is.
  check_html.py burnin PAGE.html RECORD.csv
      the Burn-in section has a row for every port with intervals, those
      that FAIL or WARN first, and a tooltip for each of a port's
      intervals, those below --min-bw of its expected rate (and only they)
      saying "below" and marked red.
  check_html.py craft RECORD.csv OUT.csv
      the record with markup in a host name (rows and head), a reason, a
      NIC's firmware and a counter's name: CRAFTED below.
  check_html.py escaped PAGE.html
      no element the record could have smuggled in (script, img, iframe,
      on* attributes), and each crafted text shows as text.
  check_html.py png SCREENSHOT.png
      a screenshot that is no blank page: many colours, and the heatmap's
      red and green and the verdict's red among them.
  check_html.py synth RANKS LANES OUT.csv
      a record of RANKS ranks with every link measured, rank 1's last lane
      slow (its port FAILs, its links WARN pointing at it, as check writes
      them), link 5->9 of lane 0 slow on its own (FAIL), one pair
      unmeasured: the page at scale.

Exit 0 when all hold; 1 with every failure on stdout."""
import csv
import html.parser
import io
import re
import struct
import sys
import zlib

# What a crafted record holds where the cluster's and files' words go.
CRAFTED = {
    "host": "<script>alert(1)</script>",
    "reason": '"><img src=x onerror=alert(1)>',
    "firmware": "</td></table><iframe src=//x.example>",
    "counter": "stat:<b>rx</b>_errors",
}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
failures = []


def fail(why):
    failures.append(why)
    print("FAIL: " + why)


class Page(html.parser.HTMLParser):
    """The tag stack, every element's attributes, and the text of each
    table row and SVG tooltip; for each, the section (the id of the h2
    before it) and, for a row, whether it is in a fold (a tr of class
    "fold")."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.starts, self.rows, self.titles = [], [], [], []
        self.text = []
        self.row = None
        self.title = None
        self.outlines = []  # (class, x, y) of the matrices' frames
        self.section = ""
        self.trs = []  # the classes of the open rows
        self.row_info = []  # (text, section, in a fold)
        self.title_info = []  # (text, section)
        self.summaries = []  # (text, section)
        self.summary = None

    def handle_starttag(self, tag, attrs):
        self.starts.append((tag, dict(attrs), self.section))
        if tag == "h2":
            self.section = dict(attrs).get("id") or ""
        if tag == "summary":
            self.summary = []
        if tag == "tr":
            self.trs.append(dict(attrs).get("class") or "")
            self.row = []
        if tag == "title" and self.stack and self.stack[-1] != "head":
            self.title = []
        if tag == "rect" and (dict(attrs).get("class") or "").startswith("link-"):
            self.outlines.append(dict(attrs)["class"])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts.append((tag, dict(attrs), self.section))
        if tag == "rect" and (dict(attrs).get("class") or "").startswith("link-"):
            self.outlines.append(dict(attrs)["class"])

    def handle_endtag(self, tag):
        if tag in VOID:
            fail(f"</{tag}>: a void element closed (line {self.getpos()[0]})")
            return
        if not self.stack or self.stack[-1] != tag:
            fail(f"</{tag}> at line {self.getpos()[0]} closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag == "tr" and self.row is not None:
            self.rows.append(" ".join(self.row))
            self.row_info.append((self.rows[-1], self.section, "fold" in self.trs[:-1]))
            self.row = None
        if tag == "tr" and self.trs:
            self.trs.pop()
        if tag == "title" and self.title is not None:
            self.titles.append("".join(self.title))
            self.title_info.append((self.titles[-1], self.section))
            self.title = None
        if tag == "summary" and self.summary is not None:
            self.summaries.append(("".join(self.summary), self.section))
            self.summary = None

    def handle_data(self, data):
        self.text.append(data)
        if self.row is not None:
            self.row.append(data)
        if self.title is not None:
            self.title.append(data)
        if self.summary is not None:
            self.summary.append(data)


def parse(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    p = Page()
    p.feed(src)
    p.close()
    if p.stack:
        fail(f"{path}: unclosed at the end: {p.stack}")
    if not src.startswith("<!DOCTYPE html>"):
        fail(f"{path}: no <!DOCTYPE html> first")
    return src, p


def self_contained(src, p):
    low = src.lower()
    for word in ("http:", "https:", "//cdn", "<script", "<link", "@import", "<iframe"):
        if word in low:
            fail(f"the page references something outside: '{word}' at offset {low.index(word)}")
    for tag, attrs, _ in p.starts:
        for name in ("src", "href", "xlink:href"):
            if name in attrs and not (attrs[name] or "").startswith("#"):
                fail(f"<{tag} {name}={attrs[name]!r}>: a file or address")
    if "url(" in low.replace("url(#", ""):
        fail("a url() that is not a fragment")


def read_record(path):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(io.StringIO("".join(lines))))


def hosts_of(rows):
    return {r["rank"]: r["host"] for r in rows if r["phase"] == "port" and r["host"]}


def named(rank, hosts):
    return f"rank {rank} ({hosts[rank]})" if hosts.get(rank) else f"rank {rank}"


def where(r, hosts):
    """The failures table's words for the row (check_html.c row_where)."""
    lane = f"lane {r['lane']} ({r['nic']})" if r["nic"] else f"lane {r['lane']}"
    if r["phase"] == "link":
        return f"link {named(r['rank'], hosts)} \u2192 {named(r['peer'], hosts)}, {lane}"
    if r["phase"] == "port":
        return f"port {named(r['rank'], hosts)}, {lane}"
    if r["phase"] == "aggregate":
        return f"aggregate {named(r['rank'], hosts)}"
    if r["phase"] == "lane":
        return f"lane {lane}"
    return f"{r['collective'] or 'collective'} {r['algorithm']}"


# A slow port's link rows point at it (engine/check_verdict.c judge_link).
PORT_POINTER = re.compile(r": rank (\d+)'s port (?:loses what it )?(sends|receives)(?: slowly)? \(its port row\)$")


def fold_port(r, ports):
    """The (rank, lane) of the port whose fold a link row belongs in (as
    report/check_html_findings.c fold_target), or None."""
    m = PORT_POINTER.search(r["reason"])
    if r["phase"] != "link" or r["verdict"] != "WARN" or not m:
        return None
    if m.group(1) != (r["rank"] if m.group(2) == "sends" else r["peer"]):
        return None
    port = ports.get((m.group(1), r["lane"]))
    return (m.group(1), r["lane"]) if port and port["verdict"] in ("FAIL", "ERROR", "WARN") else None


def check_folds(p, folds, ports, hosts):
    """Each fold's summary counts its links, and comes under its port's row."""
    for key, links in folds.items():
        n = len(links)
        want = f"{n} link{'s' if n > 1 else ''} of this port WARN: its "
        if not any(t.startswith(want) and f"lane {key[1]}'s matrix" in t
                   for t, sec in p.summaries if sec == "findings"):
            fail(f"no fold '{want}... lane {key[1]}'s matrix' for port {key}")
        first = min((i for i, (t, sec, folded) in enumerate(p.row_info)
                     if sec == "findings" and folded and any(r["reason"] in t for r in links)),
                    default=0)
        if first and where(ports[key], hosts) not in p.row_info[first - 1][0]:
            fail(f"the fold of port {key} is not under its row: {p.row_info[first - 1][0]!r}")


def check_page(page, record):
    src, p = parse(page)
    self_contained(src, p)
    rows = read_record(record)
    hosts = hosts_of(rows)
    ports = {(r["rank"], r["lane"]): r for r in rows if r["phase"] == "port"}
    bad = [r for r in rows if r["verdict"] in ("FAIL", "ERROR", "WARN")]
    folds = {}
    if not bad:
        fail(f"{record}: no FAIL or WARN row to look for")
    for r in bad:
        want, key = where(r, hosts), fold_port(r, ports)
        found = [folded for t, sec, folded in p.row_info
                 if sec == "findings" and r["verdict"] in t and want in t and r["reason"] in t]
        if not found:
            fail(f"no row of the page names {r['verdict']} {want}: {r['reason']}")
        elif key and not all(found):
            fail(f"{want}: not in the fold of its port's row")
        elif not key and any(found):
            fail(f"{want}: in a port's fold, though it is no slow port's link")
        if key:
            folds.setdefault(key, []).append(r)
    check_folds(p, folds, ports, hosts)
    links = [r for r in bad if r["phase"] == "link"]
    frames = {"FAIL": "link-fail", "ERROR": "link-error", "WARN": "link-warn"}
    for v, cls in frames.items():
        want = sum(1 for r in links if r["verdict"] == v)
        if p.outlines.count(cls) != want:
            fail(f"{p.outlines.count(cls)} cells framed {cls}, the record has {want}")
    for r in links:
        if not any(r["reason"] in t for t in p.titles):
            fail(f"no tooltip holds the reason of link {r['rank']}->{r['peer']} lane {r['lane']}")
    verdict = "FAIL" if any(r["verdict"] in ("FAIL", "ERROR") for r in rows) else \
        "WARN" if any(r["verdict"] == "WARN" for r in rows) else "PASS"
    if f'<div class="verdict {verdict.lower()}">{verdict}</div>' not in src:
        fail(f"the verdict shown is not {verdict}")
    if not failures:
        print(f"ok: {page}: parses strictly, self-contained, {len(bad)} FAIL/WARN rows "
              f"named ({len(links)} links framed, {sum(map(len, folds.values()))} in "
              f"{len(folds)} ports' folds), verdict {verdict}")


def read_head(path):
    """The record's head lines, "# key: value"."""
    with open(path, encoding="utf-8") as f:
        return dict(l[2:].rstrip("\n").split(": ", 1) for l in f
                    if l.startswith("# ") and ": " in l)


def fraction(text):
    """"70%", "70 %", "0.7" -> 0.7 (check's --min-bw)."""
    text = text.strip()
    return float(text.rstrip("% ")) / 100 if text.endswith("%") else float(text)


def intervals_of(rows):
    """{(rank, lane): {interval: (tx, rx)}}, an empty rate 0 (no traffic)."""
    out = {}
    for r in rows:
        if r["phase"] == "interval":
            out.setdefault((r["rank"], r["lane"]), {})[int(r["interval"])] = (
                float(r["tx_bytes_per_second"] or 0), float(r["rx_bytes_per_second"] or 0))
    return out


def check_burnin(page, record):
    src, p = parse(page)
    rows = read_record(record)
    hosts = hosts_of(rows)
    min_bw = fraction(read_head(record).get("option.min-bw", "90%"))
    ports = [r for r in rows if r["phase"] == "port" and r["intervals"]]
    series = intervals_of(rows)
    total = max(k for s in series.values() for k in s) if series else 0
    shown = [t for t, sec, _ in p.row_info if sec == "burnin"]
    titles = [t for t, sec in p.title_info if sec == "burnin"]
    if not ports or not total:
        fail(f"{record}: no burn-in to look for")
    first_passing, last_failing, low_count = len(shown), -1, 0
    for r in ports:
        name = f"{named(r['rank'], hosts)}, lane {r['lane']} ({r['nic']})"
        at = [i for i, t in enumerate(shown) if t.startswith(name) and r["verdict"] in t]
        if not at:
            fail(f"the Burn-in section has no row {r['verdict']} {name}")
            continue
        if r["verdict"] in ("FAIL", "ERROR", "WARN"):
            last_failing = max(last_failing, at[0])
        else:
            first_passing = min(first_passing, at[0])
        floor = min_bw * float(r["expected_bytes_per_second"])
        for k, (tx, rx) in sorted(series.get((r["rank"], r["lane"]), {}).items()):
            low = tx < floor or rx < floor
            low_count += low
            tip = [t for t in titles if t.startswith(f"{name}, interval {k} of {total}:")]
            if len(tip) != 1:
                fail(f"{name} interval {k}: {len(tip)} tooltips")
            elif ("below" in tip[0]) != low:
                fail(f"{name} interval {k} ({tx:.0f}, {rx:.0f} B/s, floor {floor:.0f}): {tip[0]!r}")
    if last_failing > first_passing:
        fail("a port that passed is shown before one that did not")
    marks = sum(1 for tag, attrs, sec in p.starts
                if sec == "burnin" and tag == "rect" and attrs.get("class") == "low")
    if marks != low_count:
        fail(f"{marks} intervals marked red, {low_count} below --min-bw in the record")
    if not low_count:
        fail(f"{record}: no interval below --min-bw to look for")
    if not failures:
        print(f"ok: {page}: Burn-in: {len(ports)} ports, the failing first, {total} intervals "
              f"each, {low_count} below --min-bw marked")


def check_escaped(page, texts=tuple(CRAFTED.values())):
    src, p = parse(page)
    self_contained(src, p)
    for tag, attrs, _ in p.starts:
        if tag in ("script", "img", "iframe", "object", "embed"):
            fail(f"a <{tag}> element in the page: the record's text became markup")
        for name in attrs:
            if name.startswith("on"):
                fail(f"<{tag} {name}=...>: an event handler in the page")
    body = "".join(p.text)
    for t in texts:
        if t not in body:
            fail(f"the text {t!r} is not shown as text")
    if not failures:
        print(f"ok: {page}: nothing smuggled in, {len(texts)} texts shown as text")


def craft(record, out):
    """CRAFTED put into a copy of record: rank 1's host everywhere, the
    first failing row's reason, rank 0's firmware, a counter of rank 0."""
    with open(record, encoding="utf-8") as f:
        lines = f.readlines()
    head = [l for l in lines if l.startswith("#")]
    rows = read_record(record)
    old = hosts_of(rows)["1"]
    head = [l.replace(old, CRAFTED["host"]) for l in head]
    first_bad = next(r for r in rows if r["verdict"] == "FAIL")
    first_bad["reason"] = CRAFTED["reason"]
    for r in rows:
        r["host"] = CRAFTED["host"] if r["host"] == old else r["host"]
        if r["phase"] == "port" and r["rank"] == "0":
            r["firmware"] = CRAFTED["firmware"]
            r["counter_deltas"] += ";" + CRAFTED["counter"] + "=7"
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(head)
        w = csv.DictWriter(f, list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def png_pixels(path):
    """RGB(A) 8-bit, non-interlaced PNG -> (width, height, channels, rows)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"PNG kind not read here: depth {depth}, colour type {ctype}")
    ch = 3 if ctype == 2 else 4
    raw, stride, prev, out = zlib.decompress(b"".join(idat)), w * ch, bytearray(w * ch), []
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        unfilter(ft, line, prev, ch)
        out.append(line)
        prev = line
    return w, h, ch, out


def unfilter(ft, line, prev, ch):
    if ft == 0:
        return
    if ft == 2:
        for i in range(len(line)):
            line[i] = (line[i] + prev[i]) & 255
        return
    for i in range(len(line)):
        a = line[i - ch] if i >= ch else 0
        b, c = prev[i], prev[i - ch] if i >= ch else 0
        if ft == 1:
            line[i] = (line[i] + a) & 255
        elif ft == 3:
            line[i] = (line[i] + ((a + b) >> 1)) & 255
        else:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255


def check_png(path):
    w, h, ch, rows = png_pixels(path)
    colours, red, green = set(), 0, 0
    for line in rows[::2]:  # every other row is plenty
        for x in range(0, w * ch, ch * 2):
            r, g, b = line[x], line[x + 1], line[x + 2]
            colours.add((r, g, b))
            red += r > 180 and g < 80 and b < 80
            green += g > 160 and r < 110 and b < 110
    if len(colours) < 30:
        fail(f"{path}: {len(colours)} colours: a blank or broken page")
    if red < 200 or green < 200:
        fail(f"{path}: {red} red and {green} green pixels sampled: the verdict or heatmap missing")
    if not failures:
        print(f"ok: {path}: {w}x{h}, {len(colours)} colours, {red} red and {green} green "
              f"pixels sampled")


def synth(ranks, lanes, out):
    """A record at scale: every directed link of every lane measured but
    one, rank 1's last lane at half rate."""
    cols = ["phase", "transport", "rank", "host", "lane", "nic", "partners", "pattern", "peer",
            "tx_bytes_per_second", "rx_bytes_per_second", "expected_bytes_per_second",
            "expected_from", "ratio", "verdict", "reason", "ifname", "state", "mtu_bytes",
            "driver", "firmware", "counter_deltas"]
    exp, slow = 12.5e6, lanes - 1
    w = csv.DictWriter(out, cols, lineterminator="\n")
    out.write(f"# format: lanebench-csv 2\n# ranks: {ranks}\n# lanes: {lanes}\n")
    w.writeheader()
    for rank in range(ranks):
        for lane in range(lanes):
            bad = rank == 1 and lane == slow
            w.writerow({"phase": "port", "transport": "tcp", "rank": rank, "host": f"node{rank:03d}",
                        "lane": lane, "nic": f"rail{lane}", "tx_bytes_per_second": exp * (0.5 if bad else 0.98),
                        "rx_bytes_per_second": exp * (0.5 if bad else 0.98),
                        "expected_bytes_per_second": exp, "ratio": 0.5 if bad else 0.98,
                        "verdict": "FAIL" if bad else "PASS",
                        "reason": f"tx 50 Mbit/s, expected 100 Mbit/s (50 %, min 90 %)" if bad else "",
                        "ifname": f"ens{lane}", "state": "up", "mtu_bytes": 1500, "driver": "mlx5_core",
                        "firmware": "22.36.1010" if rank != 5 else "22.31.1014",
                        "counter_deltas": "stat:rx_packets=100;stat:rx_dropped=0"})
    for lane in range(lanes):
        for s in range(ranks):
            for d in range(ranks):
                if s == d or (lane == 0 and (s, d) == (2, 3)):
                    continue
                slow_port = lane == slow and 1 in (s, d)
                slow_link = lane == 0 and (s, d) == (5, 9 % ranks)
                ratio = 0.5 if slow_port else 0.3 if slow_link else \
                    0.9 + 0.1 * ((s * 7 + d * 3) % 11) / 10
                rate = f"{exp * ratio * 8 / 1e6:.3g} Mbit/s"
                reason = (f"{rate}: rank 1's port {'sends' if s == 1 else 'receives'} slowly "
                          f"(its port row)" if slow_port else
                          f"link {s}->{d} on lane {lane} (rail{lane}): 30 % of the median of its "
                          f"row and column: {rate}: the link, not the ports" if slow_link else "")
                w.writerow({"phase": "link", "transport": "tcp", "rank": s, "host": f"node{s:03d}",
                            "lane": lane, "nic": f"rail{lane}", "peer": d,
                            "tx_bytes_per_second": exp * ratio, "expected_bytes_per_second": exp,
                            "ratio": ratio,
                            "verdict": "WARN" if slow_port else "FAIL" if slow_link else "PASS",
                            "reason": reason})


def main(argv):
    if len(argv) >= 4 and argv[1] == "page":
        check_page(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "craft":
        craft(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "burnin":
        check_burnin(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "escaped":
        check_escaped(argv[2])
    elif len(argv) == 3 and argv[1] == "png":
        check_png(argv[2])
    elif len(argv) == 5 and argv[1] == "synth":
        with open(argv[4], "w", encoding="utf-8") as f:
            synth(int(argv[2]), int(argv[3]), f)
    else:
        print(__doc__)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
