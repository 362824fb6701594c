#!/usr/bin/env bash
# lighthouse.sh: Lighthouse mobile on Home, Messages, Routines and /weight of a
# fresh demo hearth, with Debian's Chromium. Prints the four category scores
# per page (the median of RUNS runs by performance) and fails when
# performance, accessibility, best practices or SEO is below MIN_PERF /
# MIN_A11Y / MIN_BEST / MIN_SEO. Lighthouse is
# installed (pinned) under $HOME/.cache/hearth, never into the repository.
# Used by `make lighthouse`.
set -euo pipefail

LH_VERSION=${LH_VERSION:-13.5.0}
MIN_PERF=${MIN_PERF:-100}
MIN_A11Y=${MIN_A11Y:-100}
MIN_BEST=${MIN_BEST:-100}
MIN_SEO=${MIN_SEO:-100}
RUNS=${RUNS:-3}
BIN=${BIN:-bin/hearth}
# PAGES narrows the run (PAGES=/routines); KEEP names a directory that keeps
# every run's JSON report (page-run.json) and its trace (page-run.trace.json,
# the main thread's tasks at their real, unthrottled length) to read what
# blocked.
PAGES=${PAGES:-/ /messages /routines /weight}
KEEP=${KEEP:-}
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}

lhdir="$HOME/.cache/hearth/lighthouse-$LH_VERSION"
lh="$lhdir/node_modules/.bin/lighthouse"
if [ ! -x "$lh" ]; then
	echo "installing lighthouse@$LH_VERSION into $lhdir"
	mkdir -p "$lhdir"
	npm install --silent --no-audit --no-fund --prefix "$lhdir" "lighthouse@$LH_VERSION" >/dev/null
fi
[ -x "$CHROME_PATH" ] || { echo "no Chromium at $CHROME_PATH (make chromium)"; exit 1; }

work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# A free loopback port: ask the kernel for one.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$BIN" serve --demo --data "$work/data" --addr "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	curl -fsS -o /dev/null "$base/login" 2>/dev/null && break
	sleep 0.2
done

# Log in as the demo owner; Lighthouse gets the session as a Cookie header.
cookie=$(curl -fsS -o /dev/null -D - -H "Origin: $base" \
	--data-urlencode "password=hearth-demo" "$base/login" |
	tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p' | head -1)
[ -n "$cookie" ] || { echo "login failed"; cat "$work/serve.log"; exit 1; }
headers=$(printf '{"Cookie":"%s"}' "$cookie")

fail=0
printf '%-10s %5s %5s %5s %5s   %s\n' page perf a11y best seo "performance of each run"
for page in $PAGES; do
	reports=()
	for i in $(seq "$RUNS"); do
		out="$work/report-$i.json"
		assets=()
		[ -n "$KEEP" ] && assets=(--save-assets)
		"$lh" "$base$page" "${assets[@]}" --quiet --form-factor=mobile --output=json --output-path="$out" \
			--extra-headers="$headers" --chrome-flags="--headless=new --no-sandbox" >/dev/null 2>"$work/lh.log" ||
			{ echo "lighthouse failed on $page:"; cat "$work/lh.log"; exit 1; }
		reports+=("$out")
		if [ -n "$KEEP" ]; then
			mkdir -p "$KEEP"
			name=$(printf '%s' "${page#/}" | tr '/' '_')
			cp "$out" "$KEEP/${name:-home}-$i.json"
			mv "$work/report-$i-0.trace.json" "$KEEP/${name:-home}-$i.trace.json"
			rm -f "$work/report-$i"-0.devtoolslog.json
		fi
	done
	# The median run by performance (Lighthouse's own advice for variance);
	# accessibility, best practices and SEO do not depend on timing.
	node -e '
		const page = process.argv[1];
		const runs = process.argv.slice(2).map(f => require(f));
		const s = (r, k) => Math.round((r.categories[k].score ?? 0) * 100);
		for (const r of runs) if (!r.finalDisplayedUrl.endsWith(page)) {
			console.error("redirected to " + r.finalDisplayedUrl); process.exit(1);
		}
		const perfs = runs.map(r => s(r, "performance"));
		runs.sort((a, b) => s(a, "performance") - s(b, "performance"));
		const r = runs[Math.floor((runs.length - 1) / 2)];
		console.log([s(r, "performance"), Math.min(...runs.map(r => s(r, "accessibility"))), s(r, "best-practices"), s(r, "seo"), perfs.join(",")].join(" "));
		for (const k of ["performance", "accessibility", "best-practices", "seo"]) for (const ref of r.categories[k].auditRefs) {
			const a = r.audits[ref.id];
			if (ref.weight > 0 && a.score !== null && a.score < 1) {
				const items = (a.details && a.details.items || []).slice(0, 3).map(i => i.href || i.url || (i.node && i.node.snippet) || "").filter(Boolean);
				console.error("  " + k + ": " + a.id + " " + a.score + " " + (a.displayValue || "") + (items.length ? " " + JSON.stringify(items) : ""));
			}
		}
		for (const id of ["render-blocking-insight", "render-blocking-resources"]) {
			const a = r.audits[id];
			if (a && a.score !== null && a.score < 1) console.error("  " + id + ": " + (a.displayValue || "") + " " + JSON.stringify((a.details && a.details.items || []).map(i => i.url)));
		}' "$page" "${reports[@]}" >"$work/scores" 2>"$work/why.log" || { cat "$work/why.log"; exit 1; }
	read -r perf a11y best seo each <"$work/scores"
	printf '%-10s %5s %5s %5s %5s   %s\n' "$page" "$perf" "$a11y" "$best" "$seo" "$each"
	if [ -s "$work/why.log" ]; then cat "$work/why.log"; fi
	if [ "$perf" -lt "$MIN_PERF" ] || [ "$a11y" -lt "$MIN_A11Y" ] || [ "$best" -lt "$MIN_BEST" ] || [ "$seo" -lt "$MIN_SEO" ]; then fail=1; fi
done
if [ "$fail" = 1 ]; then
	echo "below the thresholds: performance $MIN_PERF, accessibility $MIN_A11Y, best practices $MIN_BEST, SEO $MIN_SEO"
	exit 1
fi
