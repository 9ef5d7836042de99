#!/usr/bin/env python3
"""plot_svg.py - our benchmark figures against a peer's, as one SVG picture.

    python3 bench/plot_svg.py OURS.csv THEIRS.csv OUT.svg [TITLE]

Reads the CSV lines the benchmark programs print (bench,size,metric,value,unit;
several lines of one key are reduced to their median, as compare.sh does) and
draws, with the standard library only:
  - bandwidth against message size (put_bw, get_bw, put_nbi_bw; MB/s, both
    axes logarithmic): ours solid, the peer's dashed;
  - latency against message size (put_lat, get_lat; us);
  - the applications (bench/apps/) and the headline rows as ratios, ours over
    the peer's (latencies and times inverted: > 1 means ours is better).
"""
import math
import sys
from statistics import median

LOWER_BETTER = {"us", "ms", "ns", "s", "1/s"}


def read(path):
    rows = {}
    unit = {}
    try:
        f = open(path)
    except OSError:
        return rows, unit
    with f:
        for line in f:
            p = line.strip().split(",")
            if len(p) != 5:
                continue
            try:
                v = float(p[3])
                size = int(p[1])
            except ValueError:
                continue
            k = (p[0], size, p[2])
            rows.setdefault(k, []).append(v)
            unit[k] = p[4]
    return {k: median(v) for k, v in rows.items()}, unit


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def size_label(b):
    for u, n in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= n and b % n == 0:
            return "%d%s" % (b // n, u)
    return str(b)


class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.out = w, h, []

    def add(self, s):
        self.out.append(s)

    def text(self, x, y, s, size=11, anchor="start", color="#222", rotate=None, bold=False):
        tr = ' transform="rotate(%d %.1f %.1f)"' % (rotate, x, y) if rotate else ""
        wt = ' font-weight="bold"' if bold else ""
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s"%s%s>%s</text>'
                 % (x, y, size, anchor, color, tr, wt, esc(s)))

    def line(self, x1, y1, x2, y2, color="#999", width=1, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"%s/>'
                 % (x1, y1, x2, y2, color, width, d))

    def poly(self, pts, color, dash=None, width=2):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<polyline fill="none" stroke="%s" stroke-width="%g"%s points="%s"/>'
                 % (color, width, d, " ".join("%.1f,%.1f" % p for p in pts)))
        for x, y in pts:
            self.add('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (x, y, color))

    def rect(self, x, y, w, h, color):
        self.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>' % (x, y, w, h, color))

    def render(self):
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d" font-family="sans-serif">\n'
                '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n'
                % (self.w, self.h, self.w, self.h, "\n".join(self.out)))


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def log_axis(lo, hi):
    lo = 10 ** math.floor(math.log10(lo))
    hi = 10 ** math.ceil(math.log10(hi))
    return lo, hi


def series_panel(svg, x0, y0, w, h, title, ylabel, ours, theirs, benches):
    """Lines of value against size, log-log; ours solid, theirs dashed."""
    svg.text(x0 + w / 2, y0 - 8, title, 13, "middle", bold=True)
    pts = [(k[1], v) for src in (ours, theirs) for k, v in src.items() if k[0] in benches and v > 0]
    if not pts:
        svg.text(x0 + w / 2, y0 + h / 2, "(no data)", 11, "middle")
        return
    xs = sorted({p[0] for p in pts})
    xlo, xhi = min(xs), max(xs)
    if xlo == xhi:
        xhi = xlo * 2
    ylo, yhi = log_axis(min(p[1] for p in pts), max(p[1] for p in pts))
    lx = lambda v: x0 + (math.log(v) - math.log(xlo)) / (math.log(xhi) - math.log(xlo)) * w
    ly = lambda v: y0 + h - (math.log(v) - math.log(ylo)) / (math.log(yhi) - math.log(ylo)) * h
    svg.line(x0, y0 + h, x0 + w, y0 + h, "#333")
    svg.line(x0, y0, x0, y0 + h, "#333")
    d = ylo
    while d <= yhi * 1.0001:
        svg.line(x0, ly(d), x0 + w, ly(d), "#e4e4e4")
        svg.text(x0 - 5, ly(d) + 4, "%g" % d, 10, "end")
        d *= 10
    step = max(1, len(xs) // 8)
    for s in xs[::step]:
        svg.line(lx(s), y0 + h, lx(s), y0 + h + 4, "#333")
        svg.text(lx(s), y0 + h + 16, size_label(s), 10, "middle")
    svg.text(x0 - 48, y0 + h / 2, ylabel, 11, "middle", rotate=-90)
    svg.text(x0 + w / 2, y0 + h + 32, "message size (bytes)", 11, "middle")
    ly_leg = y0 + 8
    for i, b in enumerate(benches):
        c = COLORS[i % len(COLORS)]
        for src, dash, who in ((ours, None, "ours"), (theirs, "6,4", "peer")):
            line = sorted((k[1], v) for k, v in src.items() if k[0] == b and v > 0)
            if line:
                svg.poly([(lx(s), ly(v)) for s, v in line], c, dash)
                svg.line(x0 + w - 150, ly_leg, x0 + w - 125, ly_leg, c, 2, dash)
                svg.text(x0 + w - 120, ly_leg + 4, "%s (%s)" % (b, who), 10)
                ly_leg += 14


def ratio_panel(svg, x0, y0, w, rows, title):
    """Horizontal bars of ratios (> 1: ours better), log scale around 1."""
    svg.text(x0 + w / 2, y0 - 8, title, 13, "middle", bold=True)
    if not rows:
        svg.text(x0 + w / 2, y0 + 20, "(no pairs of figures)", 11, "middle")
        return 40
    bar, gap, label_w = 16, 6, 230
    span = max(2.0, max(max(r, 1 / r) for _, r in rows))
    lo, hi = 1 / span, span
    pw = w - label_w
    lx = lambda v: x0 + label_w + (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) * pw
    h = len(rows) * (bar + gap)
    for t in (0.5, 1, 2):
        if lo <= t <= hi:
            svg.line(lx(t), y0, lx(t), y0 + h, "#333" if t == 1 else "#ddd", 1)
            svg.text(lx(t), y0 + h + 14, "%gx" % t, 10, "middle")
    for i, (name, r) in enumerate(rows):
        y = y0 + i * (bar + gap)
        svg.text(x0 + label_w - 6, y + bar - 4, name, 10, "end")
        a, b = sorted((lx(1), lx(r)))
        svg.rect(a, y, max(b - a, 1), bar, "#2ca02c" if r >= 1 else "#d62728")
        svg.text(lx(r) + (4 if r >= 1 else -4), y + bar - 4, "%.2f" % r, 10,
                 "start" if r >= 1 else "end")
    svg.text(x0 + label_w + pw / 2, y0 + h + 30, "ratio, ours vs the peer (> 1: ours better)",
             11, "middle")
    return h + 40


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    ours, unit = read(argv[1])
    theirs, unit_t = read(argv[2])
    unit.update({k: v for k, v in unit_t.items() if k not in unit})
    title = argv[4] if len(argv) > 4 else "ours vs the peer"

    def ratio(k):
        o, t = ours.get(k), theirs.get(k)
        if not o or not t or o <= 0 or t <= 0:
            return None
        return t / o if unit.get(k) in LOWER_BETTER else o / t

    apps = sorted(k for k in ours if k[0].startswith("app_") and ratio(k))
    head = [("put_lat", 8), ("get_lat", 8), ("pingpong_lat", 8), ("amo_long_fetch_add", 8),
            ("barrier_all", None), ("reduce_long_sum_lat", 8), ("put_bw", 1 << 20),
            ("get_bw", 1 << 20), ("put_nbi_bw", 1 << 20), ("msg_rate_p", 8),
            ("msg_rate_amo", 8)]
    rows = []
    for k in apps:
        rows.append(("%s %s" % (k[0], size_label(k[1])), ratio(k)))
    for b, s in head:
        for k in sorted(ours):
            if k[0] == b and (s is None or k[1] == s) and ratio(k):
                rows.append(("%s %s" % (b, size_label(k[1])), ratio(k)))
                break
    n_rows = max(len(rows), 1)
    svg = Svg(1100, 430 + n_rows * 22 + 80)
    svg.text(550, 22, title, 14, "middle", bold=True)
    series_panel(svg, 80, 60, 420, 300, "Bandwidth (MB/s, higher is better)", "MB/s", ours,
                 theirs, ["put_bw", "get_bw", "put_nbi_bw"])
    series_panel(svg, 640, 60, 420, 300, "Latency (us, lower is better)", "us", ours, theirs,
                 ["put_lat", "get_lat"])
    ratio_panel(svg, 60, 440, 980, rows, "Applications and headline rows")
    with open(argv[3], "w") as f:
        f.write(svg.render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
