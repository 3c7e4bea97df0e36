#!/bin/sh
# speedscope-view.sh FILE VIEW OUT: opens FILE (a speedscope JSON file) in
# speedscope's offline page (the npm package, installed by .ci/deps under
# $SPEEDSCOPE_DIR, default /opt/spaa-speedscope) in headless Chromium, in view
# VIEW (sandwich, left-heavy, time-ordered), and writes:
#   OUT.dom      the page after it settled
#   OUT.rows     the sandwich table, one row a line: NAME<TAB>TOTAL<TAB>SELF
#                as the page shows them, sorted
#   OUT.console  what the page wrote to its console at warning level or
#                above, and uncaught errors (empty when all went well)
#   OUT.title    the page title
set -e
file=$1 view=$2 out=$3
dir=${SPEEDSCOPE_DIR:-/opt/spaa-speedscope}/node_modules/speedscope/dist/release
[ -f "$dir/index.html" ] || { echo "speedscope is not installed in $dir (sh .ci/deps)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# what speedscope's own command line does: the file, base64, in a script
printf 'speedscope.loadFileFromBase64(%s, "%s")\n' "\"$(basename "$file")\"" \
	"$(base64 -w0 "$file")" > "$tmp/profile.js"
# The page, as the package has it, with requestAnimationFrame made of
# setTimeout (and its own files found through <base>): speedscope's tables
# (the sandwich view's) measure their height in an animation frame and show
# no row before it, and headless Chromium gives a real frame only in real
# time, at the compositor's pace, while --virtual-time-budget runs the
# page's timers in virtual time, as fast as they come.  A busy machine's
# frame came after the budget was used up: the DOM was dumped without the
# table.  A timer's frame runs in virtual time, before the budget ends.
sed "s|<head>|<head><base href=\"file://$dir/\"><script>\
window.requestAnimationFrame = function (f) { return setTimeout(function () { f(performance.now()) }, 16) };\
window.cancelAnimationFrame = function (id) { clearTimeout(id) };\
</script>|" "$dir/index.html" > "$tmp/index.html"
timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-unsafe-swiftshader \
	--disable-quic --no-first-run --disable-background-networking \
	--disable-component-update --disable-sync --user-data-dir="$tmp/chrome" \
	--allow-file-access-from-files --window-size=1400,4000 \
	--enable-logging=stderr --v=0 --virtual-time-budget=20000 \
	--dump-dom "file://$tmp/index.html#localProfilePath=$tmp/profile.js&view=$view" \
	> "$out.dom" 2> "$tmp/log" || true
grep -q '<td' "$out.dom" ||
	echo "speedscope-view.sh: no table in the page ($(wc -c < "$out.dom") bytes; $(grep -ac ':CONSOLE' "$tmp/log") console lines)" >&2
grep -a ':CONSOLE' "$tmp/log" | grep -av ':INFO:CONSOLE' > "$out.console" || true
grep -a ':CONSOLE' "$tmp/log" | grep -a 'Uncaught' >> "$out.console" || true
python3 - "$out.dom" > "$out.rows" <<'PY'
import sys
from html.parser import HTMLParser
class Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.title, self.in_title = [], None, None, '', False
    def handle_starttag(self, tag, attrs):
        if tag == 'tr': self.row = []
        elif tag == 'td' and self.row is not None: self.cell = ''
        elif tag == 'title': self.in_title = True
    def handle_endtag(self, tag):
        if tag == 'td' and self.row is not None and self.cell is not None:
            self.row.append(self.cell.strip()); self.cell = None
        elif tag == 'tr' and self.row is not None:
            if len(self.row) == 3: self.rows.append(self.row)
            self.row = None
        elif tag == 'title': self.in_title = False
    def handle_data(self, data):
        if self.cell is not None: self.cell += data
        if self.in_title: self.title += data
p = Rows()
p.feed(open(sys.argv[1], encoding='utf-8').read())
for total, self_, name in sorted(p.rows, key=lambda r: r[2]):
    print(f'{name}\t{total}\t{self_}')
open(sys.argv[1].replace('.dom', '.title'), 'w').write(p.title + '\n')
PY
