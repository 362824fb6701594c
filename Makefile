# hearth: `make run` for a demo, `make test` for everything.
GO      ?= go
BIN     := bin/hearth
DATA    ?= ./data/demo
ADDR    ?= 127.0.0.1:8080
# HOSTS: names the phone addresses hearth by besides loopback (serve --host),
# such as the tailnet name of tailscale serve; the demo's banner says how.
HOSTS   ?=

.PHONY: build run test unit fuzz e2e chromium bench bench-years lint generate schema check-generated deps clean lighthouse screenshots

build: generate
	$(GO) build -o $(BIN) ./cmd/hearth

## run: build, migrate and start hearth with demo data on $(ADDR); it
## prints how to open it on a phone (make run HOSTS=NAME.TAILNET.ts.net)
run: build
	./$(BIN) serve --demo --data $(DATA) --addr $(ADDR)$(if $(HOSTS), --host $(HOSTS))

## test: lint, unit and integration tests (race detector), e2e, and a short fuzz run
test: lint check-generated unit e2e fuzz

unit:
	$(GO) test -race -count=1 -timeout=30m $$($(GO) list ./... | grep -v /e2e)

e2e: chromium
	$(GO) test -count=1 -timeout=30m ./e2e/...

## chromium: the browser tests need Debian's chromium; install it when missing
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

## fuzz: a brief run of each fuzz target. Budgets are execution counts, not
## durations: a duration races Go's fuzz coordinator and can fail with a bare
## "context deadline exceeded" (go.dev/issue/75804, fixed in Go 1.27).
FUZZ_DECODE ?= 150000x
FUZZ_PARSE  ?= 10000x
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZ_DECODE) -fuzzminimizetime=100x ./internal/strictjson
	$(GO) test -run='^$$' -fuzz='^FuzzCanonical$$' -fuzztime=$(FUZZ_DECODE) -fuzzminimizetime=100x ./internal/strictjson
	$(GO) test -run='^$$' -fuzz='^FuzzParseResult$$' -fuzztime=$(FUZZ_PARSE) -fuzzminimizetime=100x ./internal/contract
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZ_DECODE) -fuzzminimizetime=100x ./internal/instant

## bench: every benchmark, with the figures the README quotes
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./models/... ./internal/... ./handlers/... ./e2e/...

## bench-years: seed one week and $(YEARS) years of one owner's use (`hearth
## seed`), then compare Home (served and rendered), People, Messages,
## Routines, the agent context, publish, serve's start-up and resident
## memory on the two (BenchmarkYears* in e2e; ratios are years/week). The
## seeds are cached under $(YEARS_CACHE)/{week,years-N}-<schema version>
## and reused on the day they were seeded (the seed ends today, so an older
## one would have no today). Not part of `make test`: timings never gate.
YEARS           ?= 5
YEARS_BENCHTIME ?= 2s
YEARS_CACHE     ?= $(HOME)/.cache/hearth
YEARS_SCHEMA    := $(shell ls migrations/*.sql | tail -n 1 | xargs basename | cut -c1-5)
bench-years: build
	@set -e; today=$$(date -u +%F); \
	for spec in "week-$(YEARS_SCHEMA) --days 7" "years-$(YEARS)-$(YEARS_SCHEMA) --years $(YEARS)"; do \
		name=$${spec%% *}; args=$${spec#* }; dir="$(YEARS_CACHE)/$$name"; \
		if [ "$$(cat "$$dir/seeded-on" 2>/dev/null)" = "$$today" ]; then \
			echo "reusing $$dir, seeded today:"; tail -n 40 "$$dir/seed.log"; \
		else \
			rm -rf "$$dir"; mkdir -p "$$dir"; echo "seeding $$dir (hearth seed $$args)"; uptime; \
			./$(BIN) seed $$args --data "$$dir/data" | tee "$$dir/seed.log"; \
			echo "$$today" > "$$dir/seeded-on"; \
		fi; \
	done; \
	HEARTH_BENCH_WEEK="$(YEARS_CACHE)/week-$(YEARS_SCHEMA)/data" HEARTH_BENCH_YEARS="$(YEARS_CACHE)/years-$(YEARS)-$(YEARS_SCHEMA)/data" \
		$(GO) test -run='^$$' -bench='^BenchmarkYears' -benchtime=$(YEARS_BENCHTIME) -count=1 -timeout=60m ./e2e/

## lighthouse: Lighthouse mobile (pinned, installed under ~/.cache/hearth) with
## Debian's Chromium on Home, Messages, Routines and /weight of a fresh demo;
## prints the four scores per page (median of LIGHTHOUSE_RUNS runs) and fails
## below MIN_PERF / MIN_A11Y / MIN_BEST / MIN_SEO, all 100 by default. Not
## part of `make test`: performance depends on the machine's load (on a
## shared 2-core machine at load ~12 single runs fall to 70-99 through Total
## Blocking Time alone, Lighthouse's 4x CPU slowdown on top of the load), so
## run it on a quiet machine, or pass MIN_PERF=90 to check the other three
## there. Accessibility, best practices and SEO do not vary.
LIGHTHOUSE      ?= 13.5.0
LIGHTHOUSE_RUNS ?= 3
MIN_PERF        ?= 100
MIN_A11Y        ?= 100
MIN_BEST        ?= 100
MIN_SEO         ?= 100
lighthouse: build chromium
	LH_VERSION=$(LIGHTHOUSE) RUNS=$(LIGHTHOUSE_RUNS) MIN_PERF=$(MIN_PERF) MIN_A11Y=$(MIN_A11Y) MIN_BEST=$(MIN_BEST) MIN_SEO=$(MIN_SEO) BIN=./$(BIN) ./e2e/lighthouse.sh

## screenshots: the README's screenshots (Home, /weight and its weeks by routine, Routines, People (rhythm and voice), the waiting list, the quick add and More's notifications at
## 390×844), taken by the e2e run of a fresh demo, written into docs/
screenshots: chromium
	HEARTH_SCREENSHOT_DIR=$(CURDIR)/docs $(GO) test -count=1 -run '^(TestHomeDemoAt390ShowsTheBriefAndItsRows|TestWeightPageShowsTheDemoTrendAndChangesAt390|TestRoutinesOfTheDemoFitsUnder2500PxAndOpensWithToday|TestPeopleOfTheDemoSayEachRhythmAndThatJonasIsDriftingAt390|TestQuickAddAt390PutsCallAnaUnderTomorrowAndInTheContextExport|TestPeopleShowsTheOwnersVoiceWithEachPersonAt390|TestWaitingListGathersEveryKindOnHomeAt390|TestWeightWeeksOfTheDemoComparedByEveningWindDownAt390|TestMoreOfTheDemoSaysWhatWasNotifiedAndWhyAt390)$$' ./e2e/

## lint: go vet, gofmt, and staticcheck's check for unused code (U1000,
## tests included), pinned and fetched by go run on first use
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run $(STATICCHECK) -checks U1000 ./...
	@if git grep -nE '^(<<<<<<<|>>>>>>>) ' -- . >/dev/null 2>&1; then echo "merge conflict markers left:"; git grep -nE '^(<<<<<<<|>>>>>>>) ' -- .; exit 1; fi

## generate: templ's code, by the templ that go.mod's tool line pins (go get
## -tool github.com/a-h/templ/cmd/templ@vX moves it with the library); no
## version in the output, so a templ upgrade alone changes no committed file;
## -log-level warn keeps its progress lines out of make run
TEMPL_FLAGS := -include-version=false -log-level warn
generate:
	@$(GO) tool templ generate $(TEMPL_FLAGS)

## schema: regenerate the committed JSON Schemas of the agent contract (internal/contract/schema)
schema:
	$(GO) run ./internal/contract/schema/gen

## check-generated: fail when committed generated code is stale: templ's own
## check (it compares and writes nothing) and the JSON Schemas, regenerated
## and diffed
check-generated: schema
	@$(GO) tool templ generate -check $(TEMPL_FLAGS) || (echo "generated templ code is out of date: run make generate and commit"; exit 1)
	@git diff --exit-code -- internal/contract/schema || (echo "the committed JSON Schemas are out of date: run make schema and commit"; exit 1)

## deps: the modules go.mod requires that have a newer version served, as
## "path current -> newest". Move them with go get path@latest, then go mod
## tidy, make generate, make test. modernc.org/libc and modernc.org/memory
## follow modernc.org/sqlite's go.mod, and chromedp/cdproto follows chromedp:
## move the parent, not them. The npm packages e2e installs are pinned in
## e2e/npm_test.go on purpose and are not listed here.
deps:
	@$(GO) list -m -u -f '{{if .Update}}{{.Path}} {{.Version}} -> {{.Update.Version}}{{if .Indirect}} (indirect){{end}}{{end}}' \
		$$(awk '/^require \(/ {r = 1; next} r && /^\)/ {r = 0} r {print $$1} /^require [^(]/ {print $$2}' go.mod)

clean:
	rm -rf bin data
