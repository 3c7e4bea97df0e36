// flamegraph.js - the script inside every SVG spaa-flamegraph writes (the
// build turns it into flamegraph-js.h).  Click a frame to zoom into it, click
// "Reset Zoom" (or press Escape) to go back; "Search" (or Ctrl-F, F3) takes a
// regular expression, paints the frames it matches and shows their share of
// the total (a frame inside another match counts once); "ic" (or Ctrl-I)
// makes the search ignore case; hovering a frame shows its name, weight and
// shares of the total and of its parent.  fg_conf (set before this by
// spaa-flamegraph) holds the layout.  No network, no library.
"use strict";
var fg = (function () {
	var C = fg_conf;
	var frames = [], byDepth = [], root = null;
	var details, matched, searchBtn, icBtn, unzoomBtn;
	var term = null, icase = false, zoomed = null;
	var full = C.width - 2 * C.xpad;
	var charw = C.fontsize * C.fontwidth;

	// "NAME (1,234 samples, 5.00%...)", and a time or size after it
	// ("... 2ms"): the name, the count as written, its value, the figure
	function parse_title(s) {
		var k = s.lastIndexOf(" " + C.countname + ", ");
		var open = k < 0 ? s.lastIndexOf(" (") : s.lastIndexOf(" (", k);
		var count = s.substring(open + 2, k < 0 ? s.length : k);
		var close = s.lastIndexOf(")");
		return { name: s.substring(0, open), count: count,
			 value: parseFloat(count.replace(/,/g, "")),
			 human: close >= 0 && close + 2 < s.length ? s.substring(close + 2) : "" };
	}

	function init() {
		if (root) return;
		var box = document.getElementById("frames");
		if (!box) return;
		details = document.getElementById("details").firstChild;
		matched = document.getElementById("matched").firstChild;
		searchBtn = document.getElementById("search");
		icBtn = document.getElementById("ignorecase");
		unzoomBtn = document.getElementById("unzoom");
		var gs = box.children;
		for (var i = 0; i < gs.length; i++) {
			var g = gs[i], r = g.getElementsByTagName("rect")[0];
			var t = g.getElementsByTagName("text")[0];
			var p = parse_title(g.getElementsByTagName("title")[0].textContent);
			var f = { g: g, r: r, t: t, name: p.name, count: p.count, value: p.value, human: p.human,
				  x: parseFloat(r.getAttribute("x")), w: parseFloat(r.getAttribute("width")),
				  y: parseFloat(r.getAttribute("y")), fill: r.getAttribute("fill"),
				  parent: null, depth: 0 };
			g.fg_frame = f;
			frames.push(f);
		}
		root = frames[0];
		for (i = 0; i < frames.length; i++) {
			var e = frames[i];
			e.depth = Math.round((C.inverted ? e.y - root.y : root.y - e.y) / C.frameheight);
			(byDepth[e.depth] = byDepth[e.depth] || []).push(e);
		}
		for (var d = 0; d < byDepth.length; d++)
			if (byDepth[d]) byDepth[d].sort(function (a, b) { return a.x - b.x; });
		// a frame's parent: the frame one level nearer the root whose
		// range holds its left end
		for (i = 0; i < frames.length; i++) {
			e = frames[i];
			var up = byDepth[e.depth - 1];
			if (!up) continue;
			var lo = 0, hi = up.length - 1, best = null;
			while (lo <= hi) {
				var mid = (lo + hi) >> 1;
				if (up[mid].x <= e.x + 0.05) { best = up[mid]; lo = mid + 1; } else hi = mid - 1;
			}
			e.parent = best;
		}
		box.addEventListener("click", function (ev) {
			var f = frame_of(ev.target);
			if (f) zoom(f);
		});
		box.addEventListener("mouseover", function (ev) {
			var f = frame_of(ev.target);
			if (f) details.nodeValue = C.nametype + " " + describe(f);
		});
		box.addEventListener("mouseout", function (ev) {
			if (frame_of(ev.target)) details.nodeValue = " ";
		});
		unzoomBtn.addEventListener("click", function () { unzoom(); });
		searchBtn.addEventListener("click", function () {
			if (term === null) search_prompt(); else reset_search();
		});
		icBtn.addEventListener("click", function () { toggle_ignorecase(); });
		window.addEventListener("keydown", function (ev) {
			if (ev.keyCode === 114 || (ev.ctrlKey && ev.keyCode === 70)) {
				ev.preventDefault();
				search_prompt();
			} else if (ev.ctrlKey && ev.keyCode === 73) {
				ev.preventDefault();
				toggle_ignorecase();
			} else if (ev.keyCode === 27) {
				unzoom();
				reset_search();
			}
		});
	}

	function frame_of(node) {
		while (node && node.parentNode && !(node.fg_frame)) node = node.parentNode;
		return node ? node.fg_frame : null;
	}

	function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) : "0.00"; }

	function describe(f) {
		var s = f.name + " (" + f.count + " " + C.countname + ", " + pct(f.value, root.value) + "%";
		if (f.parent)
			s += ", " + pct(f.value, f.parent.value) + "% of " + f.parent.name;
		return s + ")" + (f.human ? " " + f.human : "");
	}

	// the text of a frame w pixels wide, as spaa-flamegraph writes it
	function fit(f, w) {
		var n = Math.floor(w / charw);
		if (n < 3) return "";
		if (f.name.length <= n) return f.name;
		return f.name.substring(0, n - 2) + "..";
	}

	function place(f, x, w) {
		f.r.setAttribute("x", x.toFixed(1));
		f.r.setAttribute("width", w.toFixed(1));
		f.t.setAttribute("x", (x + 3).toFixed(2));
		f.t.textContent = fit(f, w);
	}

	function zoom(f) {
		init();
		if (!f) return;
		zoomed = f;
		var x0 = f.x, x1 = f.x + f.w, ratio = full / f.w, eps = 0.0001;
		unzoomBtn.classList.remove("hide");
		for (var i = 0; i < frames.length; i++) {
			var e = frames[i], cl = e.g.classList;
			cl.remove("parent");
			cl.remove("hide");
			if (e.depth < f.depth) {
				if (e.x <= x0 + eps && e.x + e.w >= x1 - eps) {
					cl.add("parent");
					place(e, C.xpad, full);
				} else {
					cl.add("hide");
				}
			} else if (e === f || (e.depth > f.depth && e.x >= x0 - eps && e.x + e.w <= x1 + eps)) {
				place(e, C.xpad + (e.x - x0) * ratio, e.w * ratio);
			} else {
				cl.add("hide");
			}
		}
	}

	function unzoom() {
		init();
		zoomed = null;
		unzoomBtn.classList.add("hide");
		for (var i = 0; i < frames.length; i++) {
			var e = frames[i];
			e.g.classList.remove("parent");
			e.g.classList.remove("hide");
			place(e, e.x, e.w);
		}
	}

	function toggle_ignorecase() {
		init();
		icase = !icase;
		if (icase) icBtn.classList.add("show"); else icBtn.classList.remove("show");
		if (term !== null) search(term);
	}

	function search_prompt() {
		init();
		var t = window.prompt("Search for a regular expression (e.g. ^ext4_)" +
				      (icase ? ", ignoring case" : "") + "; Ctrl-I toggles case", term || "");
		if (t !== null && t !== "") search(t);
	}

	function reset_search() {
		init();
		term = null;
		for (var i = 0; i < frames.length; i++) frames[i].r.setAttribute("fill", frames[i].fill);
		searchBtn.classList.remove("show");
		searchBtn.firstChild.nodeValue = "Search";
		matched.nodeValue = " ";
	}

	// Paints the frames whose names match t; returns the matched share
	// (0 to 1) of the total.
	function search(t) {
		init();
		var re;
		try {
			re = new RegExp(t, icase ? "i" : "");
		} catch (err) {
			matched.nodeValue = "Bad expression: " + err.message;
			return -1;
		}
		term = t;
		var hits = [];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (re.test(f.name)) {
				f.r.setAttribute("fill", C.searchcolor);
				hits.push(f);
			} else {
				f.r.setAttribute("fill", f.fill);
			}
		}
		// a match inside another match counts once: left to right,
		// the widest first at each place
		hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
		var sum = 0, end = -1;
		for (i = 0; i < hits.length; i++) {
			if (hits[i].x + 1e-6 >= end) {
				sum += hits[i].value;
				end = hits[i].x + hits[i].w;
			}
		}
		var share = root.value > 0 ? sum / root.value : 0;
		searchBtn.classList.add("show");
		searchBtn.firstChild.nodeValue = "Reset Search";
		var p = 100 * share;
		matched.nodeValue = "Matched: " + (hits.length && p === 100 ? "100" : p.toFixed(1)) + "%";
		return share;
	}

	if (document.readyState === "loading")
		document.addEventListener("DOMContentLoaded", init);
	else
		init();
	window.addEventListener("load", init);

	return {
		init: init, search: search, reset_search: reset_search, zoom: zoom, unzoom: unzoom,
		toggle_ignorecase: toggle_ignorecase,
		frames: function () { init(); return frames; },
		// the first frame named name (tests, the console)
		find: function (name) {
			init();
			for (var i = 0; i < frames.length; i++) if (frames[i].name === name) return frames[i];
			return null;
		}
	};
})();
