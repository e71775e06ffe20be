# jsonsql: build, test, demo, benchmark, install.
SWIFT ?= swift
PREFIX ?= /usr/local
DEBUG_BIN := .build/debug/jsonsql
RELEASE_BIN := .build/release/jsonsql

.PHONY: all deps build release test demo examples bench bench-tiny bench-deps fuzz install uninstall format lint clean

all: build

# The Debian packages jsonsql needs: installed when run as root, otherwise the command is printed.
deps:
	@missing=""; \
	[ -f /usr/include/sqlite3.h ] || missing="$$missing libsqlite3-dev"; \
	[ -f /usr/include/readline/readline.h ] || missing="$$missing libreadline-dev"; \
	command -v sqlite3 >/dev/null 2>&1 || missing="$$missing sqlite3"; \
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

release: deps
	$(SWIFT) build -c release --static-swift-stdlib

# Every test: the library in-process, then the built binary end to end (including Examples/).
test: build
	$(SWIFT) test

# Builds jsonsql, creates a sample database from Examples/ and queries it as a table and as JSON.
demo: build
	PATH="$(CURDIR)/.build/debug:$$PATH" Examples/demo.sh

examples: demo

# Side-by-side with sqlite-utils (installed with pip when missing) and the sqlite3 shell.
bench: release bench-deps
	bench/run.sh

bench-tiny: release bench-deps
	bench/run.sh --tiny

# GNU time measures peak memory; without it the figures include the harness's own.
bench-deps:
	@command -v /usr/bin/time >/dev/null 2>&1 || { 	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq time >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq time >/dev/null); 	  else echo "for peak memory figures: sudo apt-get install -y time"; fi; }

# libFuzzer for FUZZ_SECONDS in all: a quarter each on the --where parser and the JSON reader,
# half on whole command lines run by a jsonsql built with ASan (see Fuzz/run.sh).
FUZZ_SECONDS ?= 180
fuzz: deps
	Fuzz/run.sh $(FUZZ_SECONDS)

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/jsonsql

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/jsonsql

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build .build-fuzz
