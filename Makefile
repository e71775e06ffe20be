# jsonsql: build, test, demo, benchmark, install.
SWIFT ?= swift
PREFIX ?= /usr/local
DEBUG_BIN := .build/debug/jsonsql
RELEASE_BIN := .build/release/jsonsql

.PHONY: all deps build static-libs release test test-citus faults demo examples bench bench-tiny bench-serve bench-deps fuzz install install-files \
  uninstall dist test-dist format lint docs clean

all: build

# The Debian packages jsonsql and its tests need (libreadline8 is the shell's line editor, opened
# at run time; tmux gives the terminal tests a terminal;
# libpq-dev's libpq-fe.h is what a test checks jsonsql's own libpq declarations against (the
# build needs no libpq headers), and postgresql the throwaway server the tests start):
# installed when run as root, otherwise the command is printed.
deps:
	@missing=""; \
	[ -f /usr/include/sqlite3.h ] || missing="$$missing libsqlite3-dev"; \
	/sbin/ldconfig -p 2>/dev/null | grep -q 'libreadline\.so\.8 ' || missing="$$missing libreadline8"; \
	command -v sqlite3 >/dev/null 2>&1 || missing="$$missing sqlite3"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	[ -f /usr/include/postgresql/libpq-fe.h ] || missing="$$missing libpq-dev"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null; \
	  else \
	    echo "jsonsql needs$$missing; install with: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

build: deps
	$(SWIFT) build

# Start-up is mostly the loader's work, so the release binary is linked for a short one:
# - at a fixed address (-no-pie, as Go links by default): no 83,000 relocations to apply to a
#   94 MB static binary at every start (--version: 4.1 -> 2.8 ms of CPU);
# - with libstdc++ (which the static Foundation's ICU needs) and the system's SQLite linked in
#   from their static archives, not loaded: loading them and binding their symbols took a third
#   of --version, and libsqlite3.so alone binds 1,600 symbols at every start (1.06M of a query's
#   4.6M instructions). The one `-lstdc++` the toolchain passes and GRDB's `-lsqlite3` find the
#   archives first in STATIC_LIB_DIR; without an archive, the shared library is loaded as before;
# - exporting only what must be exported, not the 7,994 symbols that `-export-dynamic` gives
#   and dladdr then searches at start; binding the rest on first call, and with no `$ORIGIN`
#   search path to look for libraries in first;
# - with generic type metadata got through its accessor, not by demangling a name: the runtime
#   checks a demangled type's requirements (Key: Hashable) by scanning all 6,293 conformance
#   records of the binary, each time for each new type (query --limit 1: 9.6M -> 6.0M instructions);
# - without the run-time checks of exclusive access, which the tests' debug build keeps: a class's
#   stored property changed in place is checked at every access, on the paths every record of a
#   file takes (3 paths of 100k records selected: 1.94G -> 1.81G instructions, callgrind).
STATIC_LIB_DIR := .build/static-libs
STATIC_CXX := $(shell clang -print-file-name=libstdc++.a 2>/dev/null || cc -print-file-name=libstdc++.a 2>/dev/null)
STATIC_SQLITE := $(shell cc -print-file-name=libsqlite3.a 2>/dev/null)
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -L$(CURDIR)/$(STATIC_LIB_DIR) \
  -Xlinker -no-pie -Xlinker --no-export-dynamic -Xlinker -z -Xlinker lazy --disable-local-rpath \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
  -Xswiftc -enforce-exclusivity=unchecked
static-libs:
	@mkdir -p $(STATIC_LIB_DIR); \
	for lib in "$(STATIC_CXX)" "$(STATIC_SQLITE)"; do \
	  name=$$(basename "$$lib"); \
	  if [ -f "$$lib" ]; then ln -sfn "$$lib" $(STATIC_LIB_DIR)/$$name; \
	  else rm -f $(STATIC_LIB_DIR)/$$name; echo "no $$name: its shared library is loaded at start"; fi; \
	done

release: deps static-libs
	$(SWIFT) build $(RELEASE_FLAGS)

# Every test: the library in-process, then jsonsql end to end (Examples/ included), in one debug
# build of jsonsql and the tests. On a fresh clone on a 2-core machine: 9.6 min from git clone
# to the summary (5.7 to build, 3.8 to run), against 11 min to build an optimized jsonsql with
# its tests (and 2.3 to run them), or both builds, as make test once did. `make release` builds the binary `make install` installs;
# CI's make bench-tiny runs it. Prints a summary, and on failure the failing tests; V=1 prints everything.
V ?= 0
test: deps
	$(SWIFT) build --build-tests
ifeq ($(V),1)
	$(SWIFT) test --skip-build
else
	@echo "$(SWIFT) test --skip-build  (full output in .build/test.log; make test V=1 prints it)"; \
	if $(SWIFT) test --skip-build > .build/test.log 2>&1; then \
	  grep -E '^. Test run .*(passed|failed)|Executed [1-9][0-9]* tests' .build/test.log | tail -n 2; \
	else \
	  status=$$?; \
	  grep -E '✘|error:|Fatal error|fatal error|Assertion failed' .build/test.log | head -n 80; \
	  tail -n 3 .build/test.log; \
	  echo "make test: FAILED (exit $$status); see .build/test.log"; \
	  exit $$status; \
	fi
endif

# jsonsql end to end on a real Citus cluster, a coordinator and two workers on unix sockets that
# Tests/citus/run.sh starts and removes (Tests/citus/cluster.sh): every command through the
# coordinator, counts compared with the input's, plans with index scans on the shards, and no raw
# server line in any output. Citus is no Debian package, so where it is not installed the script
# says so and passes (docs/citus.md). PLAYERS=N sets the rows (default 50000).
test-citus: deps
	$(SWIFT) build
	Tests/citus/run.sh $(DEBUG_BIN)

# Every I/O call of every editing command failing in turn, on make test's build: the fault
# injector Faults/faultshim.c (loaded with LD_PRELOAD, never linked into jsonsql) fails the Nth
# read, write, sync, truncate, lock, open, rename or unlink under the test's directory with EIO,
# ENOSPC, EINTR or a short transfer, for every N the command reaches, and the test checks the exit
# status, the files left and the database's state after each run. Prints the table of points and
# outcomes. `make test` runs a few random points of each (FaultInjectionTests).
FAULT_SHIM := .build/faults/libjsonsqlfaults.so
$(FAULT_SHIM): Faults/faultshim.c
	@mkdir -p $(dir $@)
	cc -O1 -Wall -Wextra -shared -fPIC -o $@ $< -ldl

faults: deps $(FAULT_SHIM)
	$(SWIFT) build --build-tests
	@echo "JSONSQL_FAULTS=all $(SWIFT) test --skip-build --filter FaultInjectionTests  (output in .build/faults.log)"; \
	: > .build/faults-table; \
	JSONSQL_FAULTS=all JSONSQL_FAULT_SHIM=$(CURDIR)/$(FAULT_SHIM) JSONSQL_FAULT_TABLE=$(CURDIR)/.build/faults-table \
	  $(SWIFT) test --skip-build --filter FaultInjectionTests > .build/faults.log 2>&1; status=$$?; \
	echo "| command | fault points (per kind) | runs | error | error (written) | success | not reached | problems |"; \
	echo "|---|---|---|---|---|---|---|---|"; \
	sed 's/^fault-sweep //' .build/faults-table; \
	if [ $$status -ne 0 ]; then grep -E '✘|error:|Fatal error' .build/faults.log | head -n 40; echo "make faults: FAILED"; fi; \
	exit $$status

# Builds the release jsonsql (the one make install installs, several times faster than a debug
# build), creates demo.sqlite (or DEMO_DB) from Examples/, queries it as a table and as JSON, and
# prints three commands to try on it. An existing file of that name is left alone: a demo
# database made before is shown again with the commands, any other file stops the demo.
DEMO_DB ?= demo.sqlite
demo: release
	PATH="$(CURDIR)/.build/release:$$PATH" Examples/demo.sh $(DEMO_DB)

examples: demo

# Side-by-side with the sqlite3 shell, sqlite-utils, DuckDB and jq, and with psql on a throwaway
# PostgreSQL server (skipped when none can start; see bench/run.sh --help);
# results in bench/out/results.md. By default 100k, 1M and 10M records (10M: 2.6 GB of data,
# generated once into bench/out/data); SIZES="100000 1000000" for fewer, BENCH_FLAGS=--full-peers
# to run the insert peers at 10M too. Up to 1M, the shapes rows run twelve real query shapes on
# an events file (bench/gen_events.py) and the players file, jsonsql beside DuckDB with the answers
# compared (a table of their own). bench-tiny runs every row once on a few thousand records (CI).
SIZES ?=
BENCH_FLAGS ?=
bench: release bench-deps
	bench/run.sh $(if $(strip $(SIZES)),--sizes "$(strip $(SIZES))") $(BENCH_FLAGS)
	bench/serve.sh $(RELEASE_BIN)

# jsonsql serve beside Datasette: requests/s, p99, errors and memory for a filtered page of 50 rows
# of 1M players with wrk; a page of events in headless Chromium (bench/serve.sh; bench/out/serve.md).
bench-serve: release
	bench/serve.sh $(RELEASE_BIN)

bench-tiny: release bench-deps
	bench/run.sh --tiny $(BENCH_FLAGS)

# GNU time measures peak memory (without it the figures include the harness's own); jq is a peer.
# Installed when run as root, otherwise the command is printed. bench/run.sh installs the pip
# peers (sqlite-utils, duckdb) itself and leaves out, with a note, a peer it cannot get.
bench-deps:
	@missing=""; \
	command -v /usr/bin/time >/dev/null 2>&1 || missing="$$missing time"; \
	command -v jq >/dev/null 2>&1 || missing="$$missing jq"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get install -y -qq$$missing >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq$$missing >/dev/null) \
	      || echo "could not install$$missing; the benchmark goes on without it"; \
	  else echo "for the full benchmark: sudo apt-get install -y$$missing"; fi; \
	fi

# libFuzzer for FUZZ_SECONDS in all: a quarter each on the --where parser, the JSON reader, and
# whole command lines run by a jsonsql built with ASan on SQLite and on a throwaway PostgreSQL
# server (see Fuzz/run.sh; FUZZ_TARGETS picks some).
FUZZ_SECONDS ?= 180
fuzz: deps
	Fuzz/run.sh $(FUZZ_SECONDS)

# A stripped binary, its manual pages (man jsonsql, man jsonsql-query, ...: generated from the
# commands' own --help by packaging/manpages.sh), and completion scripts where bash-completion,
# zsh and fish look under PREFIX. install-files copies an existing release build (make dist
# stages the archive and the package with it).
BASH_COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR := $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR := $(PREFIX)/share/fish/vendor_completions.d
MAN_DIR := $(PREFIX)/share/man/man1
install: release
	@$(MAKE) --no-print-directory install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR) $(DESTDIR)$(FISH_COMPLETION_DIR)
	install -m 755 -s $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/jsonsql
	install -m 755 -s $(dir $(RELEASE_BIN))jsonsql-serve $(DESTDIR)$(PREFIX)/bin/jsonsql-serve
	$(RELEASE_BIN) --generate-completion-script bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/jsonsql
	$(RELEASE_BIN) --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_jsonsql
	$(RELEASE_BIN) --generate-completion-script fish > $(DESTDIR)$(FISH_COMPLETION_DIR)/jsonsql.fish
	packaging/manpages.sh $(RELEASE_BIN) $(DESTDIR)$(MAN_DIR)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/jsonsql $(DESTDIR)$(PREFIX)/bin/jsonsql-serve $(DESTDIR)$(BASH_COMPLETION_DIR)/jsonsql $(DESTDIR)$(ZSH_COMPLETION_DIR)/_jsonsql \
	  $(DESTDIR)$(FISH_COMPLETION_DIR)/jsonsql.fish $(DESTDIR)$(MAN_DIR)/jsonsql.1 $(DESTDIR)$(MAN_DIR)/jsonsql-*.1

# The release archive jsonsql-VERSION-linux-x86_64.tar.gz (make install's files under a folder
# of that name, and README.md) and the Debian package jsonsql_VERSION_amd64.deb, in DIST_DIR.
# The version is the VERSION file's, which --version prints. See packaging/dist.sh.
VERSION := $(shell sed -n 1p VERSION)
DIST_DIR ?= .build/dist
dist: release
	packaging/dist.sh $(RELEASE_BIN) $(VERSION) $(DIST_DIR)

# Installs the package into a minimal Debian 12 (debootstrapped once into .build/dist-test,
# about 200 MB) with dpkg and then apt, and runs the quick start, the man pages and bash
# completion there, without readline and libpq and then with what apt brings. Needs root (chroot).
test-dist: dist
	packaging/test-dist.sh $(DIST_DIR)/jsonsql_$(VERSION)_$$(dpkg --print-architecture).deb \
	  $(DIST_DIR)/jsonsql-$(VERSION)-linux-$$(uname -m).tar.gz

# The command reference (docs/reference) and the --where summary in docs/where.md, from the
# commands' own --help; DocumentationTests fails when what is committed differs.
docs: release
	docs/reference/generate.sh $(RELEASE_BIN) docs

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build .build-fuzz
