# PINNForge — build, test and benchmark.
#
#   make                 libpinnforge.a and every stage executable (build/bin/)
#   make test            build and run the Criterion suite and the shell tests
#                        (float with the CUDA backend when nvcc exists, double without)
#   make test-gpu        the GPU tests alone (tests/gpu/; skipped without a GPU)
#   make gpu-check       on a GPU machine, in at most 12 minutes: test-gpu, compute-sanitizer
#                        on one training, the bench on the GPU, a paper-profile candidate on
#                        GPU and CPU, a quick search on the GPU; build/gpu-check/ (docs/gpu.md)
#   make bench           time training steps against the PyTorch comparator
#   make bench-search    time whole searches and a smoke study: build/bench/search.jsonl
#                        (BENCH_SEARCH_CASES picks some; docs/gpu.md)
#   make PDE=P RUN=R     a search run; `make tables`, `make report PDE=P` (see pipeline.mk)
#                        (-j N trainings at once; TRAIN_THREADS=auto, the default, lets them
#                        grow into idle job slots; TRAIN_THREADS=1 keeps one thread each)
#   make study           every PDE x method x run, then tables; LAUNCH=slurm for a
#                        cluster; make study-status (see study.mk)
#   make demo            train one PINN candidate on Poisson-5D
#   make refs            our references of the PDEs whose PINNacle files are lost
#                        (refs/), into $PF_REFS_DIR (data/generated); PDE=name for one
#   make fuzz            libFuzzer over every parser, FUZZ_SECONDS each (see fuzz.mk)
#   make hdr-check       every header of src/ pdes/ tests/ kernels/ compiles on its own
#   make clang-check     clang's warnings over every C file (part of make test)
#   make help            this text
#   make clean           remove build/
#
# Knobs (validated below):
#   PRECISION=float|double   scalar type pf_real; double builds into build/double/
#   SANITIZE=1               AddressSanitizer + UndefinedBehaviorSanitizer (build/asan*/);
#                            make test then fails on any report, leaks included
#   CUDA=0|1|auto            the CUDA backend: kernels/*.cu with nvcc, linked into
#                            every program (auto: when nvcc and its toolkit's
#                            cuBLAS exist; a CUDA=0 build where nvcc exists goes
#                            to build/<...>-cpu). NVCC=, CUDA_HOME= override
#                            what is found.
#   ARCH=native              -march= for the host code
#   OPT=-O3                  optimisation flags
#   V=1                      show full command lines
#   BUILD=dir                override the output folder
#   INSTALL_DEPS=ask|yes|no  what to do when pkg-config (or PATH) misses a
#                            dependency. scripts/install-deps.sh first prints
#                            the missing Debian packages and the apt-get
#                            command, then: ask (default) installs without
#                            asking only as root and either with CI=true or
#                            with no terminal on stdin, asks y/N on a terminal
#                            (then runs it, through sudo when not root), and
#                            otherwise stops with the command to run; yes
#                            installs (sudo when not root); no never installs
#                            and stops with the command.
# Changing a knob that changes flags rebuilds what it must: the flags are kept
# in $(BUILD)/FLAGS and every object depends on that file.

PRECISION ?= float
SANITIZE  ?= 0
CUDA      ?= auto
ARCH      ?= native
OPT       ?= -O3
INSTALL_DEPS ?= ask

ifeq ($(filter $(PRECISION),float double),)
$(error PRECISION must be float or double, not '$(PRECISION)')
endif
ifeq ($(filter $(SANITIZE),0 1),)
$(error SANITIZE must be 0 or 1, not '$(SANITIZE)')
endif
ifeq ($(filter $(CUDA),0 1 auto),)
$(error CUDA must be 0, 1 or auto, not '$(CUDA)')
endif
ifeq ($(filter $(INSTALL_DEPS),ask yes no),)
$(error INSTALL_DEPS must be ask, yes or no, not '$(INSTALL_DEPS)')
endif

NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
NVCC := $(NVCC)
# The toolkit's own folder, as nvcc reports it: the nvcc on PATH may be a
# wrapper script outside the toolkit (/usr/local/bin/nvcc), so its folder
# says nothing about where cuBLAS and the runtime live.
ifneq ($(NVCC),)
CUDA_HOME ?= $(abspath $(shell $(NVCC) --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p'))
CUDA_LIBDIR ?= $(patsubst %/,%,$(dir $(firstword $(wildcard $(CUDA_HOME)/lib64/libcublas.so \
                 $(CUDA_HOME)/targets/*/lib/libcublas.so))))
CUDA_HOME := $(CUDA_HOME)
CUDA_LIBDIR := $(CUDA_LIBDIR)
CUDA_MISSING := $(if $(CUDA_HOME),$(if $(CUDA_LIBDIR),$(if $(wildcard $(CUDA_LIBDIR)/libcudart.so),,the CUDA runtime (libcudart.so in $(CUDA_LIBDIR))),cuBLAS (libcublas.so under $(CUDA_HOME))),the toolkit folder ($(NVCC) --dryrun names none))
endif
ifeq ($(CUDA),auto)
USE_CUDA := $(if $(and $(NVCC),$(if $(CUDA_MISSING),,1)),1,0)
ifneq ($(and $(NVCC),$(CUDA_MISSING),$(filter 0,$(MAKELEVEL))),)
$(info note: nvcc found but not $(CUDA_MISSING); building without the CUDA backend)
endif
else
USE_CUDA := $(CUDA)
endif
ifeq ($(USE_CUDA)$(NVCC),1)
$(error CUDA=1 but nvcc was not found)
endif
ifeq ($(USE_CUDA)$(if $(CUDA_MISSING),x),1x)
$(error CUDA=1 but nvcc's toolkit lacks $(CUDA_MISSING))
endif

empty :=
space := $(empty) $(empty)
variant := $(subst $(space),-,$(strip $(if $(filter double,$(PRECISION)),double) \
             $(if $(filter 1,$(SANITIZE)),asan) $(if $(and $(NVCC),$(filter 0,$(USE_CUDA))),cpu)))
BUILD ?= build$(if $(variant),/$(variant))

# ---------------------------------------------------------------- dependencies
# pkg-config modules, then programs (h5dump and gnuplot for the stages and
# tests, python3 for the shell tests' fixtures). When one is missing,
# scripts/install-deps.sh names the Debian packages and the apt-get command,
# and installs them or not as INSTALL_DEPS says (see the knobs above).
PKGS      := openblas hdf5 msgpack libcurl jansson gsl libcrypto criterion fftw3
DEP_PROGS := h5dump gnuplot python3
# SuiteSparse's UMFPACK (the finite-volume reference, refs/fv_poisson.h):
# its own UMFPACK.pc from SuiteSparse 7 on; Debian 12's 5.12 ships none,
# so then its header folder and -l flags.
UMF_PC    := $(shell pkg-config --exists UMFPACK 2>/dev/null && echo UMFPACK)
UMF_INC   ?= /usr/include/suitesparse
umf_ok     = $(if $(UMF_PC),y,$(shell test -f $(UMF_INC)/umfpack.h && echo y))
deps_ok      = $(shell pkg-config --exists $(PKGS) 2>/dev/null && for p in $(DEP_PROGS); do command -v $$p >/dev/null || exit 1; done && test -n '$(umf_ok)' && echo yes)
deps_missing = $(foreach m,$(PKGS),$(if $(shell pkg-config --exists $m 2>/dev/null && echo y),,$m)) \
               $(foreach p,$(DEP_PROGS),$(if $(shell command -v $p 2>/dev/null),,$p)) \
               $(if $(umf_ok),,umfpack.h)
ifneq ($(call deps_ok),yes)
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(info deps: not found: $(strip $(deps_missing)); running scripts/install-deps.sh (INSTALL_DEPS=$(INSTALL_DEPS)))
DEPS_RC := $(shell INSTALL_DEPS='$(INSTALL_DEPS)' scripts/install-deps.sh >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error missing dependencies were not installed (scripts/install-deps.sh says why above))
endif
ifneq ($(call deps_ok),yes)
$(error still not found after scripts/install-deps.sh: $(strip $(deps_missing)); the Debian packages it knows of are installed, so check pkg-config's search path (PKG_CONFIG_PATH) and PATH)
endif
endif
endif

# ---------------------------------------------------------------- flags
CC       ?= cc
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L
PREC_DEF := $(if $(filter double,$(PRECISION)),-DPF_DOUBLE=1)
comma    := ,
SAN      := $(if $(filter 1,$(SANITIZE)),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
              $(if $(UMF_PC),$(shell pkg-config --cflags UMFPACK),-I$(UMF_INC))
# OpenBLAS provides the CBLAS that GSL calls; its own reference CBLAS would
# only shadow or be shadowed by it depending on link order.
PKG_LIBS   := $(filter-out -lgslcblas,$(shell pkg-config --libs $(PKGS) 2>/dev/null)) \
              $(if $(UMF_PC),$(shell pkg-config --libs UMFPACK),-lumfpack -lamd -lsuitesparseconfig)
# One OpenMP runtime: OpenBLAS uses GNU libgomp, so clang must too (its own
# libomp would add a second thread pool, which oversubscribes the cores).
OPENMP   := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),-fopenmp=libgomp,-fopenmp)
# With CUDA the backend is its own shared library, $(BUILD)/lib/
# libpinnforge_cuda.so, the only thing that links cuBLAS and the CUDA
# runtime: tensor/device.c (PF_WITH_CUDA) loads it when a run asks for a
# GPU (tensor/device.h), so no other process pays for loading them.
CUDA_DEF  := $(if $(filter 1,$(USE_CUDA)),-DPF_WITH_CUDA=1 -Ikernels)
CUDA_LINK := $(if $(filter 1,$(USE_CUDA)),-ldl)
CFLAGS_ALL := $(CSTD) $(OPT) -g -march=$(ARCH) -fno-math-errno $(OPENMP) $(WARN) $(PREC_DEF) $(CUDA_DEF) $(SAN) -Isrc -Ipdes $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(SAN) $(OPENMP) $(CUDA_LINK) $(PKG_LIBS) -lmvec -lm $(LDLIBS)

NVCCFLAGS ?= -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCC_ALL  := $(NVCCFLAGS) $(PREC_DEF) -Isrc -Ikernels -Xcompiler -Wall,-Werror,-fPIC,-fvisibility=hidden

# quiet output unless V=1
ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2);
endif

# ---------------------------------------------------------------- sources
LIB_SRC   := $(sort $(wildcard src/*/*.c) $(wildcard pdes/*.c))
STAGE_SRC := $(sort $(wildcard stages/*.c))
TEST_SRC  := $(sort $(wildcard tests/*.c))
GPU_TEST_SRC := $(sort $(wildcard tests/gpu/*.c))
TEST_SH   := $(sort $(wildcard tests/t[0-9]*.sh))
REFS_SRC  := $(sort $(wildcard refs/*.c))
CU_SRC    := $(sort $(wildcard kernels/*.cu))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
STAGE_BIN := $(STAGE_SRC:stages/%.c=$(BUILD)/bin/%)
REFS_BIN  := $(REFS_SRC:refs/%.c=$(BUILD)/bin/pf-ref-%)
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
CU_OBJ    := $(CU_SRC:%.cu=$(BUILD)/obj/%.o)
LIB       := $(BUILD)/lib/libpinnforge.a
CUDA_LIB  := $(BUILD)/lib/libpinnforge_cuda.so
TEST_BIN  := $(BUILD)/bin/pf-tests
GPU_TEST_OBJ := $(GPU_TEST_SRC:%.c=$(BUILD)/obj/%.o)
GPU_TEST_BIN := $(BUILD)/bin/pf-gpu-tests
LINK_DEPS := $(LIB) $(if $(filter 1,$(USE_CUDA)),$(CUDA_LIB))
BENCH_BIN := $(BUILD)/bin/pf-bench
BENCH_SEARCH_BIN := $(BUILD)/bin/pf-bench-search
FLAGS_FILE := $(BUILD)/FLAGS

.PHONY: all lib test test-build test-run test-deps test-gpu gpu-check bench bench-search clean hdr-check clang-check help cuda refs
.DEFAULT_GOAL := all
# Objects are kept (never deleted as intermediates). Listed by name: a bare
# .SECONDARY would make every file intermediate, and Make re-walks the
# prerequisites of missing intermediates on every path, which is
# exponential on the pipeline's ten-generation DAG.
.SECONDARY: $(LIB_OBJ) $(TEST_OBJ) $(GPU_TEST_OBJ) $(CU_OBJ) $(STAGE_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/bench/pf-bench.o \
            $(BUILD)/obj/bench/pf-bench-search.o $(REFS_SRC:%.c=$(BUILD)/obj/%.o)

all: lib $(STAGE_BIN) $(REFS_BIN) $(if $(filter 1,$(USE_CUDA)),cuda)
lib: $(LIB)
cuda: $(CUDA_LIB)

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' Makefile

# The flags file changes only when the flags do, so objects rebuild exactly then.
# Several makes may check it at once (a study's locked sub-makes, one per run):
# each writes a temp of its own and renames it over the file. Make compares
# it with the flags as it reads this file, and the rule is forced only when
# they differ (or it is missing): a rule forced every time would, under
# make -n, be taken as remade and list every object as rebuilt.
FLAGS_TEXT := $(CC) $(CFLAGS_ALL) | $(LDLIBS_ALL) | $(NVCC) $(NVCC_ALL)
ifneq ($(file <$(FLAGS_FILE)),$(FLAGS_TEXT))
$(FLAGS_FILE): FORCE
endif
$(FLAGS_FILE):
	@mkdir -p $(@D)
	@t=$@.tmp.$$$$; echo '$(FLAGS_TEXT)' > $$t && \
	  if cmp -s $$t $@; then rm -f $$t; else mv -f $$t $@; fi
FORCE:

$(BUILD)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(NVCC_ALL) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

$(CUDA_LIB): $(CU_OBJ)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(NVCC) -shared -o $@ $^ -L$(CUDA_LIBDIR) -Xlinker -rpath,$(CUDA_LIBDIR) -lcublas -lcudart

$(BUILD)/bin/%: $(BUILD)/obj/stages/%.o $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

# The reference solvers: one main per PDE in refs/, over src/refs/.
$(BUILD)/bin/pf-ref-%: $(BUILD)/obj/refs/%.o $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

$(TEST_BIN): $(TEST_OBJ) $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -o $@ $(TEST_OBJ) $(LIB) $(LDLIBS_ALL)

$(GPU_TEST_BIN): $(GPU_TEST_OBJ) $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -o $@ $(GPU_TEST_OBJ) $(LIB) $(LDLIBS_ALL)

$(BENCH_BIN) $(BENCH_SEARCH_BIN): $(BUILD)/bin/%: $(BUILD)/obj/bench/%.o $(LINK_DEPS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

# ---------------------------------------------------------------- test
# `make test` runs the suite in the float build and the double build (the
# gradient checks need double); the tests themselves say which precision they
# need. Criterion forks one process per test; each uses one OpenMP thread.
# Then the shell-level stage tests, tests/tNNNN-*.sh BUILD/bin PRECISION,
# each exiting non-zero on failure. With SANITIZE=1 both runs use the
# sanitizer builds. Where nvcc exists the float build has the CUDA backend
# (kernels compiled, every program linked with it, then the GPU tests) and
# the double build is CUDA=0, so both kinds of build are checked each run.
#
# The data, never committed: PINNacle's reference files (PF_DATA_DIR,
# io/data_dir.h; data/pinnacle.sha256) and PINNsAgent's knowledge base
# (PF_PINNSAGENT_DIR, pinnsagent/db.h; data/pinnsagent.sha256). Each
# is the team's ../shared/data/pinnacle or ../shared/data/pinnsagent when
# that holds every file of its manifest (read in place), else the
# checkout's git-ignored data/ref or data/ref/pinnsagent, which `make data`
# (scripts/fetch-data.sh) fills: from ../shared when it has a file, else
# from the network. `make test` runs `make data` first, and goes on without
# what it cannot get: the tests that need it skip, saying "data missing:".
data_listed = $(shell sed -n 's/^[0-9a-f]\{64\}  *//p' data/$(1).sha256 2>/dev/null)
data_shared = $(if $(strip $(foreach f,$(call data_listed,$(1)),$(if $(wildcard ../shared/data/$(1)/$(f)),,$(f)))),,$(abspath ../shared/data/$(1)))
ifeq ($(origin PF_DATA_DIR),undefined)
PF_DATA_DIR := $(or $(call data_shared,pinnacle),$(abspath data/ref))
endif
export PF_DATA_DIR
ifeq ($(origin PF_PINNSAGENT_DIR),undefined)
PF_PINNSAGENT_DIR := $(or $(call data_shared,pinnsagent),$(abspath data/ref/pinnsagent))
endif
export PF_PINNSAGENT_DIR
# Our own references (make refs; io/data_dir.h): in the checkout, git-ignored.
PF_REFS_DIR ?= $(abspath data/generated)
export PF_REFS_DIR
TEST_JOBS ?= 2
# The shell tests run SH_JOBS at a time (tests/run.sh: each test's output in
# one piece; a test marked "# make test: alone" by itself); one at a time
# under SANITIZE=1, so that a sanitizer report names the test that made it.
SH_JOBS ?= $(if $(filter 1,$(SANITIZE)),1,$(TEST_JOBS))

# With SANITIZE=1, leak checking is on whatever the environment says
# (detect_leaks=1), and a sanitizer report cannot pass unseen:
# - AddressSanitizer and LeakSanitizer write their reports to files under
#   $(SAN_LOG), and the run fails, printing them, when there is one
#   (Criterion does not fail a test whose process leaks at exit);
# - a report ends the process with exit code 86 (ASan, LSan) or 87 (UBSan,
#   whose reports stay on stderr: it ignores log_path next to ASan), which
#   no test expects, where the default 1 reads as an expected failure;
# - tests/lsan.supp names the one leak that is not ours (Criterion's, per
#   skipped test).
SAN_LOG   := $(abspath $(BUILD))/sanitizer-reports
SAN_ENV   := $(if $(filter 1,$(SANITIZE)),ASAN_OPTIONS=detect_leaks=1:exitcode=86:log_path=$(SAN_LOG)/asan \
               LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 UBSAN_OPTIONS=print_stacktrace=1:exitcode=87)
san_reset  = $(if $(filter 1,$(SANITIZE)),rm -rf $(SAN_LOG) && mkdir -p $(SAN_LOG) &&)
san_check  = $(if $(filter 1,$(SANITIZE)),if ls $(SAN_LOG)/* >/dev/null 2>&1; then cat $(SAN_LOG)/* >&2; \
               echo "$(1): sanitizer reports above (also in $(SAN_LOG))" >&2; exit 1; fi,:)

# make test builds with TEST_JOBS jobs when it was given no -j of its own
# (CI's plain `make test`: the float build with nvcc and the double build
# are most of its first minutes), then runs the tests in a make without -j,
# as before: their own makes and TRAIN_THREADS=auto see no jobserver of ours.
test_build_jobs = $(if $(or $(findstring jobserver,$(MAKEFLAGS)),$(filter -j%,$(MAKEFLAGS))),,-j$(TEST_JOBS))
test:
	$(Q)$(MAKE) --no-print-directory data || \
	  echo "make test: going on without the data above; the tests that need them skip (\"data missing:\")" >&2
	$(Q)$(MAKE) --no-print-directory $(test_build_jobs) PRECISION=float test-build
	$(Q)$(MAKE) --no-print-directory PRECISION=float test-run
	$(Q)$(MAKE) --no-print-directory $(test_build_jobs) PRECISION=double CUDA=0 test-build
	$(Q)$(MAKE) --no-print-directory PRECISION=double CUDA=0 test-run
	$(Q)$(MAKE) --no-print-directory clang-check

# Warnings are errors under both compilers: when clang exists, every C file
# must also pass clang's checks (syntax and warnings only, no build).
CLANG ?= $(shell command -v clang 2>/dev/null)
clang-check:
ifneq ($(CLANG),)
	$(Q)printf '%s\n' $(LIB_SRC) $(STAGE_SRC) $(REFS_SRC) $(TEST_SRC) $(FUZZ_SRC) $(FUZZ_SUPPORT) bench/pf-bench.c bench/pf-bench-search.c | \
	  xargs -P $(TEST_JOBS) -n 8 $(CLANG) $(subst -fopenmp,-fopenmp=libgomp,$(filter-out -march=% -fopenmp=libgomp,$(CFLAGS_ALL))) -march=$(ARCH) -fsyntax-only
	@echo "clang-check: no warnings from $(notdir $(CLANG))"
else
	@echo "clang-check: clang not found, skipped"
endif

# The programs some tests start (FreeFEM's references and its 3D mesh
# plugins, a one-node Slurm cluster): installed by scripts/install-deps.sh, as INSTALL_DEPS says, when
# missing; the tests that need one skip, naming it, when it is still missing.
TEST_PROGS := FreeFem++ munged slurmctld slurmd srun
TEST_FILES := /usr/lib/freefem++/tetgen.so
test-deps:
	$(Q)missing=; for p in $(TEST_PROGS); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  for f in $(TEST_FILES); do [ -e $$f ] || missing="$$missing $$f"; done; \
	  [ -z "$$missing" ] || { echo "make test: not found:$$missing; running scripts/install-deps.sh (INSTALL_DEPS=$(INSTALL_DEPS))" >&2; \
	  INSTALL_DEPS='$(INSTALL_DEPS)' scripts/install-deps.sh || echo "make test: not installed; the tests that need them will skip" >&2; }

# The tests skipped for want of data (tests/data_fixture.h, tests/lib.sh's
# data_missing) are counted, one line at the end (also after a failure):
# the Criterion skips whose message starts "data missing:", from a TAP
# report the run writes beside its usual output, and the shell tests'
# lines in $(DATA_SKIPS).log (PF_DATA_SKIPS).
DATA_SKIPS := $(abspath $(BUILD))/data-skips
data_skips = c=$$(grep -c '\# SKIP data missing:' $(DATA_SKIPS).tap 2>/dev/null); s=$$(cat $(DATA_SKIPS).log 2>/dev/null | wc -l); \
  if [ "$${c:-0}" -gt 0 ] || [ "$$s" -gt 0 ]; then echo "make test ($(PRECISION)): $$(($${c:-0} + s)) skipped for want of data: \
  $${c:-0} Criterion tests, $$s parts of shell tests (run \`make data\`, or set PF_DATA_DIR / PF_PINNSAGENT_DIR)"; \
  else echo "make test ($(PRECISION)): none skipped for want of data"; fi
test-build: all $(TEST_BIN) $(BENCH_SEARCH_BIN) $(if $(filter 1,$(USE_CUDA)),$(GPU_TEST_BIN))
test-run: test-build test-deps
	@echo "== tests ($(PRECISION)$(if $(filter 1,$(SANITIZE)), + sanitizers), $(if $(filter 1,$(USE_CUDA)),with,without) the CUDA backend) =="
	$(Q)rm -f $(DATA_SKIPS).tap $(DATA_SKIPS).log; \
	  $(san_reset) $(SAN_ENV) OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(TEST_BIN) --jobs $(TEST_JOBS) --tap=$(DATA_SKIPS).tap $(TEST_ARGS); \
	  rc=$$?; $(call san_check,pf-tests); [ $$rc -eq 0 ] || { $(data_skips); }; exit $$rc
	$(Q)PF_DATA_SKIPS=$(DATA_SKIPS).log $(SAN_ENV) OMP_NUM_THREADS=1 tests/run.sh -j $(SH_JOBS) \
	  $(if $(filter 1,$(SANITIZE)),--after '$(call san_check,$$1)') $(BUILD)/bin $(PRECISION) $(TEST_SH) || \
	  { $(data_skips); exit 1; }
ifeq ($(USE_CUDA),1)
	$(Q)$(MAKE) --no-print-directory test-gpu
endif
	$(Q)$(data_skips)

# The GPU tests (tests/gpu/): CUDA backend against the CPU one. Their own
# binary, one test per process, each initialising CUDA itself; without a
# GPU every test says so and is skipped.
test-gpu: $(GPU_TEST_BIN)
	@echo "== GPU tests ($(PRECISION)) =="
	$(Q)out=$$($(GPU_TEST_BIN) --jobs 1 --verbose $(GPU_TEST_ARGS) 2>&1); rc=$$?; \
	  printf '%s\n' "$$out" | grep -v '^\[RUN \]'; exit $$rc

# The checks to run first on a machine with a GPU, in one go and at most
# GPU_CHECK_SECONDS (720): scripts/gpu-check.sh first asks whether this build
# has the CUDA backend and nvidia-smi sees a GPU, and stops at once (exit 1,
# one line saying why) when not, before building anything; then it builds
# and runs the GPU tests, compute-sanitizer's memcheck over one quick
# training, the bench on the GPU beside PyTorch's, one paper-profile
# low-fidelity candidate (data/specs/paper_low.json) on the GPU and on the
# CPU, and a quick darcy_flow_2d search with PF_DEVICE=cuda, each under the
# time left. Everything goes to $(BUILD)/gpu-check/, summary.txt first;
# docs/gpu.md has the figures of its runs.
COMPUTE_SANITIZER ?= $(shell command -v compute-sanitizer 2>/dev/null || ls $(CUDA_HOME)/bin/compute-sanitizer 2>/dev/null)
GPU_CHECK_SECONDS ?= 720
NVIDIA_SMI ?= nvidia-smi
gpu-check:
	$(Q)GPU_CHECK_CUDA=$(USE_CUDA) GPU_CHECK_SECONDS=$(GPU_CHECK_SECONDS) NVIDIA_SMI='$(NVIDIA_SMI)' \
	  COMPUTE_SANITIZER='$(COMPUTE_SANITIZER)' INSTALL_DEPS='$(INSTALL_DEPS)' BENCH_ARGS='$(BENCH_ARGS)' \
	  scripts/gpu-check.sh '$(MAKE_COMMAND)' '$(BUILD)' '$(PRECISION)'

# ---------------------------------------------------------------- refs
# `make refs` writes the reference of every PDE with a solver in refs/ (one
# main each, named after the PDE) into $(PF_REFS_DIR)/<pde>.dat (default
# data/generated/, apart from the PINNacle files, which may be read-only),
# with <pde>.manifest.json beside it (solver, resolutions, time steps, wall
# time, self-convergence, SHA-256). `make refs PDE=name` makes one. Each
# file is made once: the solver is an order-only prerequisite, so rebuilding
# the code does not redo a reference; delete the file to make it again.
# REFS_ARGS reach the solver (--n N --substeps S: the coarse run's grid and
# steps per sample interval; the fine run, which is written, doubles both).
REFS_PDES := $(REFS_SRC:refs/%.c=%)
REFS_DIR  := $(PF_REFS_DIR)
REFS_WANT := $(if $(filter command line environment,$(origin PDE)),$(PDE),$(REFS_PDES))
refs: $(REFS_WANT:%=$(REFS_DIR)/%.dat)
ifneq ($(filter refs,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(REFS_PDES),$(REFS_WANT)),)
$(error make refs: no solver for PDE=$(filter-out $(REFS_PDES),$(REFS_WANT)) (refs/ has: $(REFS_PDES)))
endif
endif
# A finite-element solver (a refs/<pde>.edp beside its main) needs FreeFem++,
# and a 3D one (its script loads tetgen) the plugins of libfreefem++, which
# only make refs does: install-deps.sh installs them when missing, as
# INSTALL_DEPS says.
# The folder must be writable by its mode, not only to root (who could
# write anyway): a read-only PF_REFS_DIR is refused before any solving.
$(REFS_DIR)/%.dat: | $(BUILD)/bin/pf-ref-%
	$(Q)if [ -f refs/$*.edp ] && [ -z "$$PF_FREEFEM" ] && { ! command -v FreeFem++ >/dev/null 2>&1 || \
	  { grep -q 'load "tetgen"' refs/$*.edp && [ ! -e /usr/lib/freefem++/tetgen.so ] && [ -z "$$FF_LOADPATH" ]; }; }; then \
	  echo "make refs: $* needs FreeFem++ (and its 3D plugins, libfreefem++), not found; running scripts/install-deps.sh (INSTALL_DEPS=$(INSTALL_DEPS))" >&2; \
	  INSTALL_DEPS='$(INSTALL_DEPS)' scripts/install-deps.sh || exit 1; fi
	$(Q)mkdir -p '$(@D)' 2>/dev/null; [ -n "$$(find '$(@D)' -maxdepth 0 -perm -u+w 2>/dev/null)" ] || \
	  { echo "make refs: PF_REFS_DIR=$(@D) is not a writable folder; set PF_REFS_DIR to one" >&2; exit 1; }
	$(Q)$(BUILD)/bin/pf-ref-$* --out $@ --manifest $(@D)/$*.manifest.json $(REFS_ARGS)

# ---------------------------------------------------------------- bench
bench: $(BENCH_BIN) $(BUILD)/bin/pf-train
	$(Q)INSTALL_DEPS='$(INSTALL_DEPS)' scripts/install-deps.sh bench
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(BENCH_BIN) --out $(BUILD)/bench/engine.jsonl $(BENCH_ARGS)

# `make bench-search`: whole searches timed one after another, each made by a
# make of its own into a fresh runs folder under $(BUILD)/bench/search-runs/
# (never runs/), with this make's -j (default 2) and TRAIN_THREADS; one JSON
# line per case in $(BENCH_SEARCH_OUT) (bench/pf-bench-search.c says what the
# fields mean; docs/gpu.md has the figures). BENCH_SEARCH_CASES picks cases;
# BENCH_SEARCH_PROFILE=smoke runs them all at the smoke profile (what the
# test does; the line's "profile" says so).
# The cases' makes (and gpu-check's script) are $(MAKE_COMMAND), not $(MAKE):
# makes of their own, which make -n must plan, not run.
BENCH_SEARCH_CASES ?= darcy_quick pinnsformer_quick vanilla_quick study_smoke
BENCH_SEARCH_OUT   ?= $(BUILD)/bench/search.jsonl
BENCH_SEARCH_DIR   ?= $(BUILD)/bench/search-runs
BENCH_SEARCH_JOBS   = $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),2)
bench_search_profile = $(or $(BENCH_SEARCH_PROFILE),$(bench_profile_$(1)))
bench_profile_darcy_quick       := quick
bench_profile_pinnsformer_quick := quick
bench_profile_vanilla_quick     := quick
bench_profile_study_smoke       := smoke
bench_goal_darcy_quick          = PDE=darcy_flow_2d RUN=0
bench_goal_pinnsformer_quick    = PDE=burgers_1d RUN=0 METHOD=pinnsformer
bench_goal_vanilla_quick        = PDE=burgers_1d RUN=0 METHOD=vanilla
bench_goal_study_smoke          = study PDES="burgers_1d poisson_5d" RUNS=0
ifneq ($(filter bench-search,$(MAKECMDGOALS)),)
$(foreach c,$(BENCH_SEARCH_CASES),$(if $(bench_profile_$(c)),,$(error BENCH_SEARCH_CASES: no case '$(c)' (known: \
  darcy_quick pinnsformer_quick vanilla_quick study_smoke))))
$(if $(filter-out quick smoke paper,$(BENCH_SEARCH_PROFILE)),$(error BENCH_SEARCH_PROFILE='$(BENCH_SEARCH_PROFILE)': \
  quick, smoke or paper (empty: each case's own)))
endif
bench-search: all $(BENCH_SEARCH_BIN)
	$(Q)mkdir -p $(dir $(BENCH_SEARCH_OUT)) $(BENCH_SEARCH_DIR) && rm -f $(BENCH_SEARCH_OUT)
	$(Q)$(foreach c,$(BENCH_SEARCH_CASES),rm -rf $(BENCH_SEARCH_DIR)/$(c) && mkdir -p $(BENCH_SEARCH_DIR)/$(c) && \
	  $(BENCH_SEARCH_BIN) --case $(c) --runs $(BENCH_SEARCH_DIR)/$(c) --out $(BENCH_SEARCH_OUT) \
	  --jobs $(BENCH_SEARCH_JOBS) --threads $(TRAIN_THREADS) --profile $(call bench_search_profile,$(c)) \
	  --log $(BENCH_SEARCH_DIR)/$(c).log -- $(MAKE_COMMAND) --no-print-directory -j$(BENCH_SEARCH_JOBS) \
	  BUILD=$(BUILD) PRECISION=$(PRECISION) CUDA=$(CUDA) TRAIN_THREADS=$(TRAIN_THREADS) \
	  RUNS_ROOT=$(BENCH_SEARCH_DIR)/$(c) REPORTS_ROOT=$(BENCH_SEARCH_DIR)/$(c)/reports \
	  PROFILE=$(call bench_search_profile,$(c)) $(bench_goal_$(c)) &&) true
	@echo "bench-search: $(BENCH_SEARCH_OUT)"

# Every header compiles on its own, the way it is meant to be compiled and
# included as its users include it (src/core/log.h as "core/log.h",
# pdes/registry.h as "registry.h"):
# - src/, pdes/, tests/ headers and kernels/cuda_backend.h (the backend's
#   pure-C interface, included by tensor/device.c) as C, with the build's
#   flags;
# - kernels/cuda_ops.h (C++, for nvcc only) and cuda_backend.h again (the
#   .cu files include it) with nvcc and the build's NVCC flags, whenever
#   nvcc and its toolkit's cuBLAS exist (whatever CUDA says); else skipped
#   with a note.
HDR_C    := $(sort $(wildcard src/*/*.h pdes/*.h tests/*.h tests/*/*.h)) kernels/cuda_backend.h
HDR_CU   := kernels/cuda_backend.h kernels/cuda_ops.h
HDR_NVCC := $(and $(NVCC),$(if $(CUDA_MISSING),,1))
hdr-check:
	$(Q)fail=0; for h in $(HDR_C); do \
	  printf '#include "%s"\n' "$${h#*/}" | $(CC) $(CFLAGS_ALL) -Ikernels -Itests -x c -fsyntax-only - || \
	    { echo "hdr-check: $$h does not compile on its own (as C)" >&2; fail=1; }; done; exit $$fail
ifneq ($(HDR_NVCC),)
	$(Q)mkdir -p $(BUILD)/hdr-check; fail=0; for h in $(HDR_CU); do \
	  b=$(BUILD)/hdr-check/$$(basename $$h .h); printf '#include "%s"\n' "$${h#*/}" > $$b.cu; \
	  $(NVCC) $(NVCC_ALL) -c $$b.cu -o $$b.o || \
	    { echo "hdr-check: $$h does not compile on its own (with nvcc)" >&2; fail=1; }; done; exit $$fail
	@echo "hdr-check: all headers compile on their own ($(words $(HDR_C)) as C, $(words $(HDR_CU)) with nvcc)"
else
	@echo "hdr-check: all headers compile on their own ($(words $(HDR_C)) as C); $(HDR_CU) not checked with nvcc: $(if $(NVCC),nvcc's toolkit lacks $(CUDA_MISSING),no nvcc)"
endif

clean:
	rm -rf build

include pipeline.mk
include study.mk
include fuzz.mk

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(GPU_TEST_OBJ:.o=.d) $(STAGE_SRC:stages/%.c=$(BUILD)/obj/stages/%.d) $(CU_OBJ:.o=.d) $(BUILD)/obj/bench/pf-bench.d \
  $(BUILD)/obj/bench/pf-bench-search.d
