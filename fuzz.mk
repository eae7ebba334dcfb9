# fuzz.mk — fuzzing the parsers (issue 22), included by the Makefile.
#
#   make fuzz                          every harness for FUZZ_SECONDS seconds
#   make fuzz FUZZ_SECONDS=600 FUZZ_RUNS=1000000 FUZZ_HARNESSES="spec dat"
#   make fuzz-replay                   the replay programs of the normal build
#                                      (make test runs them: tests/t1010-fuzz-replay.sh)
#
# One libFuzzer harness per parser, tests/fuzz/fuzz_<name>.c, over the real
# entry points of libpinnforge (docs/building.md, "Fuzzing", lists what each covers),
# with a seed corpus of real inputs in tests/fuzz/corpus/<name>/ and the
# inputs of fixed findings in tests/fuzz/regressions/<name>/.
#
# make fuzz builds the library and the harnesses with clang,
# -fsanitize=fuzzer,address,undefined (UBSan fatal, LeakSanitizer on) into
# $(FUZZ_BUILD)/ (its own flags file, so the normal build is untouched), then
# scripts/fuzz.sh runs the harnesses one after the other: each for
# FUZZ_SECONDS (default 60) or FUZZ_RUNS executions (default 0: no limit),
# whichever ends first, growing its working corpus $(FUZZ_BUILD)/corpus/<name>/
# from the repository's seeds (which it never writes), crash inputs into
# $(FUZZ_BUILD)/crashes/<name>/, its log into $(FUZZ_BUILD)/logs/<name>.log.
# One line per harness: executions, executions per second, crashes and their
# files; the exit status is non-zero when any harness crashed. Without clang
# or its libFuzzer runtime it runs scripts/install-deps.sh fuzz (as
# INSTALL_DEPS says) and stops, naming what is missing, if they stay absent.
#
# The same harness sources, compiled by the build's compiler without
# libFuzzer and linked with tests/fuzz/replay_main.c, are
# $(BUILD)/bin/pf-fuzz-replay-<name>: make test replays the seeds and the
# regression inputs through each (under SANITIZE=1 with the sanitizers).

FUZZ_SECONDS   ?= 60
FUZZ_RUNS      ?= 0
FUZZ_BUILD     ?= build/fuzz
FUZZ_SRC       := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_ALL       := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_HARNESSES ?= $(FUZZ_ALL)
FUZZ_SUPPORT   := tests/fuzz/input.c tests/fuzz/replay_main.c
FUZZ_OBJ       := $(FUZZ_SRC:%.c=$(BUILD)/obj/%.o) $(FUZZ_SUPPORT:%.c=$(BUILD)/obj/%.o)
REPLAY_BIN     := $(FUZZ_ALL:%=$(BUILD)/bin/pf-fuzz-replay-%)
FUZZ_BIN       := $(FUZZ_ALL:%=$(BUILD)/bin/fuzz-%)

.PHONY: fuzz fuzz-replay fuzz-bins fuzz-toolchain
.SECONDARY: $(FUZZ_OBJ)

ifneq ($(filter-out $(FUZZ_ALL),$(FUZZ_HARNESSES)),)
$(error FUZZ_HARNESSES: no harness named $(filter-out $(FUZZ_ALL),$(FUZZ_HARNESSES)) (tests/fuzz/ has: $(FUZZ_ALL)))
endif

fuzz-replay: $(REPLAY_BIN)
test-run: $(REPLAY_BIN)

$(BUILD)/bin/pf-fuzz-replay-%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay_main.o \
                               $(BUILD)/obj/tests/fuzz/input.o $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS_ALL)

# Inside the fuzz build only (make fuzz sets CFLAGS=-fsanitize=fuzzer-no-link):
# libFuzzer's main instead of replay_main.c.
fuzz-bins: $(FUZZ_BIN)
$(BUILD)/bin/fuzz-%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/input.o $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS_ALL)

# clang (FUZZ_CC) and its libFuzzer runtime (Debian: clang, libclang-rt-dev),
# checked by linking an empty harness.
FUZZ_CC ?= clang
fuzz-toolchain:
	$(Q)mkdir -p $(FUZZ_BUILD); probe() { command -v $(FUZZ_CC) >/dev/null 2>&1 && \
	  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' | \
	  $(FUZZ_CC) -fsanitize=fuzzer,address,undefined -x c - -o $(FUZZ_BUILD)/probe 2>$(FUZZ_BUILD)/probe.err; }; \
	  probe && exit 0; \
	  if command -v $(FUZZ_CC) >/dev/null 2>&1; then \
	    why="$(FUZZ_CC) cannot link -fsanitize=fuzzer (no libFuzzer runtime: $$(tail -n 1 $(FUZZ_BUILD)/probe.err))"; \
	  else why="$(FUZZ_CC) not found"; fi; \
	  echo "make fuzz: $$why; running scripts/install-deps.sh fuzz (INSTALL_DEPS=$(INSTALL_DEPS))" >&2; \
	  INSTALL_DEPS='$(INSTALL_DEPS)' scripts/install-deps.sh fuzz || exit 1; \
	  probe || { echo "make fuzz: still: $$why (Debian packages: clang, libclang-rt-dev)" >&2; exit 1; }

fuzz: fuzz-toolchain
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CUDA=0 SANITIZE=1 PRECISION=float \
	  OPT=-O2 CFLAGS=-fsanitize=fuzzer-no-link fuzz-bins
	$(Q)scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_RUNS) $(FUZZ_HARNESSES)

-include $(FUZZ_OBJ:.o=.d)
