# pipeline.mk — experiment runs, included by the Makefile.
#
#   make PDE=poisson_5d RUN=0 PROFILE=quick      one search run (offline proposer unless PF_LLM_URL is set)
#   make PDE=poisson_5d RUN=0 BACKBONE=local     the same with the backbone `local` of llms.json: runs/poisson_5d/pinnforge@local/run0
#   make PDE=poisson_5d RUNS="0 1 2" -j2         several runs; -j trains a generation's candidates in parallel
#   make status PDE=poisson_5d                   one line per run: generations, best MSE, Top-3, state
#   make tables                                  reports/: the paper's tables and statistics from every run
#   make report PDE=poisson_5d                   reports/poisson_5d/: its tables, plots per run, index.md
#   make demo                                    one pf-train candidate (data/specs/typical.json)
#
# Variables (a change that changes results rebuilds exactly what it must:
# each run keeps its settings in context.json, rewritten only when they change):
#   PDE       a benchmark PDE (`build/bin/pf-pde list`) or a path to a .pde file
#             (examples/pdes/; the run folder takes the name the file declares)
#   RUN/RUNS  run numbers; the run number seeds the offline proposer and every training
#   METHOD    pinnforge (default), no_knowledge, no_feedback, no_evolution (appendix A.6),
#             or a baseline: vanilla (PINNacle's default PINN), ropinn (RoPINN's region
#             optimization, a reconstruction), pinnsagent (PINNsAgent's planner over its
#             ten hyperparameters), pinnsformer (the PINNsFormer transformer on vanilla's
#             trainer, a reconstruction) -- see "Baseline runs" below
#   PROFILE   paper (1,000 / 10,000 steps, 2M parameters, 65,536 points), quick (200 / 1,000
#             steps, 5,000 parameters, 2,048 points) or smoke (quick with a tenth of its
#             steps: the pipeline end to end in seconds); budgets only, never code paths
#   LLM       offline (default without PF_LLM_URL), http (default with it) or replay
#             (answers only from the run's llm/ transcripts: copy a run, then LLM=replay)
#   BACKBONE  an LLM backbone of the backbones file (LLMS_FILE, else data/llms.json; docs/llm.md),
#             default PF_LLM_BACKBONE: an LLM-driven method's run (pinnforge, the ablations,
#             pinnsagent) asks it over http (or, under LLM=replay, replays its transcripts) and
#             lives in runs/<pde>/<method>@<name>/run<R>; a method that asks no LLM ignores it.
#             None, or `offline` (the offline proposer), is the plain folder <method>/run<R>,
#             whose proposer LLM says. Part of context.json; checked against the file here.
#             BACKBONE=mix:a,b,c (spelt mix+a+b+c too): each proposal's backbone is drawn
#             among a, b, c by UCB1 (docs/llm.md, "A mixture of backbones"); the run lives in
#             runs/<pde>/<method>@mix+a+b+c/run<R> and context.json says "mix:a,b,c".
#   EVAL      paper (default: one set of evaluation points steers and reports, as the
#             paper) or heldout (a fixed stratified half steers the search and the final
#             choice; final.msgpack's report_mse is the other half's)
#   TRAIN_THREADS  threads per training: auto (default) or a number. auto: with -j N, N
#             trainings run at once, and each also takes the job slots -j N leaves free (make's
#             jobserver), when it starts and every half second while it trains, and yields them
#             when make starts another job, so the last trainings of a generation use the idle
#             cores; 1: one thread each, as before. Results are the same, bit for bit, with
#             any count (docs/building.md, "Threads")
#   TIME_BUDGET    a wall-clock budget per run (45m, 2h, 90s, 300): each training gets a time
#             limit from what is left (src/search/time_budget.h; RUN/time_budget.json) and
#             is scored where it stopped; part of context.json (docs/search.md, "Time budget")
#   LLM_MAX_TOKENS, LLM_MAX_COST  the LLM budget of each run: prompt + completion tokens, and cost
#             in the backbones file's currency (docs/llm.md); checked before each proposal call
#             against the run's stored calls; once spent the search stops and its Top-3 go to
#             high fidelity (final.msgpack: stopped "llm budget"). Recorded in context.json; a
#             change to it alone redoes only the proposals it stopped and what follows them
#             (docs/search.md, "LLM budget")
#   RUNS_ROOT where runs live (default runs; e.g. a copy of a run to replay)
#   REPORTS_ROOT where tables and plots go (default reports)
#   REFERENCE the method the statistics compare against (default pinnforge)
# Each is checked as make reads this file, before any rule runs (below): names are one
# word of letters, digits and _ . / + - (make passes them to the shell unquoted).
# One make per run: each run is made by a sub-make that holds RUN/.lock (locked_goal
# below); a second make on the same run waits for it.
#
# The run folder runs/<pde>/<method>/run<R>/ (src/search/run.h):
#   context.json -> knowledge.msgpack -> gen00: 8 proposals (roles) -> 8 trainings
#   -> select.msgpack (Global Top-3, B.5 control) -> memory.msgpack (M_0) -> gen01: 5
#   proposals (strategies) ... -> gen09 -> hifi/top0..2 (fresh seeds, 10x steps) -> final.msgpack
# Every stage prints a start and a done line on stderr; pf-select adds the
# generation's summary (best, Top-3, next: normal, escape or stop).
# The ten generations are spelled out; one after a stop decision is a no-op
# (skipped proposals, untrained candidates, a select that repeats the stop).
# Training seeds: R*100000 + G*100 + K at low fidelity, R*100000 + 9900 + K at high.
#
# Baseline runs (METHOD=vanilla|ropinn|pinnsformer; src/search/baseline.h; paper 4.3, B.8):
#   context.json -> gen00: 5 proposals of the method's own spec (init0..init4; no LLM)
#   -> 5 trainings at fidelity "baseline" (paper 20,000 steps, quick 1,000), seeds
#   R*100000 + K, each with the physics check -> final.msgpack (the lowest MSE, all five MSEs)
# pinnsagent: gen00..gen04 with one slot each (plan): iteration G's proposal is
#   PINNsAgent's planner (llm/ transcripts; LLM=offline|http|replay as for a search),
#   after iteration G-1 trained; seeds R*100000 + G*100

PDE      ?= poisson_5d
RUN      ?= 0
RUNS     ?= $(RUN)
METHOD   ?= pinnforge
PROFILE  ?= paper
LLM      ?= $(if $(PF_LLM_URL),http,offline)
EVAL     ?= paper
ifeq ($(filter $(EVAL),paper heldout),)
$(error EVAL must be paper or heldout, not '$(EVAL)')
endif
TRAIN_THREADS ?= auto
TIME_BUDGET ?=
BACKBONE ?= $(PF_LLM_BACKBONE)
LLM_MAX_TOKENS ?=
LLM_MAX_COST ?=
RUNS_ROOT ?= runs
REPORTS_ROOT ?= reports

# The methods, from their table (src/llm/methods.def: one row "PF_METHOD(ID, name, ...)"
# per method; the baselines are the rows flagged PF_MF_BASELINE).
METHODS_DEF      := src/llm/methods.def
ALL_METHODS      := $(shell sed -n 's/^PF_METHOD\x28[A-Z0-9_]*, *\([a-z0-9_]*\),.*/\1/p' $(METHODS_DEF))
BASELINE_METHODS := $(shell sed -n '/PF_MF_BASELINE/s/^PF_METHOD\x28[A-Z0-9_]*, *\([a-z0-9_]*\),.*/\1/p' $(METHODS_DEF))
# the methods that ask a proposer (flagged PF_MF_LLM): the ones a backbone answers
LLM_METHODS      := $(shell sed -n '/PF_MF_LLM/s/^PF_METHOD\x28[A-Z0-9_]*, *\([a-z0-9_]*\),.*/\1/p' $(METHODS_DEF))
$(if $(ALL_METHODS),,$(error $(METHODS_DEF): no methods read (run make from the checkout's top folder)))
# A baseline's candidates from its row's generations and slots columns:
# BASELINE_SHAPE_<name> = "G S", S slots in each of its first G generations.
$(foreach r,$(shell sed -n '/PF_MF_BASELINE/s/^PF_METHOD\x28[A-Z0-9_]*, *\([a-z0-9_]*\), *"[^"]*", *[0-9]*, *[^,]*, *\([0-9]*\), *\([0-9]*\),.*/\1:\2:\3/p' \
  $(METHODS_DEF)),$(eval BASELINE_SHAPE_$(word 1,$(subst :, ,$(r))) := $(wordlist 2,3,$(subst :, ,$(r)))))
$(foreach m,$(BASELINE_METHODS),$(if $(filter 2,$(words $(BASELINE_SHAPE_$(m)))),,$(error $(METHODS_DEF): \
  no generations and slots read for $(m))))
# The benchmark PDEs (pdes/*.c but the registry: `build/bin/pf-pde list`) and the methods.
ALL_PDES    := $(sort $(filter-out registry,$(basename $(notdir $(wildcard pdes/*.c)))))

# ---- the variables, checked as make reads this file, before any rule runs:
# names go into recipes and folders unquoted, so only what the shell and make
# take as one plain word is allowed (letters, digits and _ . / + -: no spaces,
# quotes, $, ;, & ...), and a PDE, a method and a run number are what they
# claim to be, so that every run folder lies inside RUNS_ROOT.
pf_safe_chars := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
  0 1 2 3 4 5 6 7 8 9 _ . / + -
pf_strip = $(if $(2),$(call pf_strip,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
# $(call pf_check_word,VAR,VALUE): VALUE is one word of those characters
pf_check_word = $(if $(filter-out 1,$(words $(2)))$(call pf_strip,$(2),$(pf_safe_chars)),$(error $(1)='$(2)': \
  make passes it to the shell unquoted, so it must be one word of letters, digits and _ . / + - (no spaces, \
  quotes or other shell characters)))
# $(call pf_check_pde,VAR,P): P is a built-in PDE or a path to a .pde file (one that does
# not exist is pde_declared's to report; one that is not a plain file would hang its readers)
pf_check_pde = $(call pf_check_word,$(1),$(2))$(if $(filter $(ALL_PDES),$(2)),,$(if $(filter %.pde,$(2)),$(if \
  $(wildcard $(2)),$(if $(shell test -f $(2) && echo y),,$(error $(1)=$(2): not a regular file (a .pde file is \
  text)))),$(error $(1)=$(2): no such PDE: neither a built-in one (build/bin/pf-pde list \
  names them) nor a path to a .pde file)))
# $(call pf_not_number,N): empty when N is a decimal number 0..999999999 without leading zeros
pf_digits := 0 1 2 3 4 5 6 7 8 9
pf_not_number = $(call pf_strip,$(1),$(pf_digits))$(filter 0%,$(filter-out 0,$(1)))$(word 10,$(subst 0,0 ,$(subst \
  1,1 ,$(subst 2,2 ,$(subst 3,3 ,$(subst 4,4 ,$(subst 5,5 ,$(subst 6,6 ,$(subst 7,7 ,$(subst 8,8 ,$(subst 9,9 ,$(1))))))))))))
# $(call pf_check_runs,VAR,RUNS): one or more run numbers
pf_check_runs = $(if $(strip $(2)),,$(error $(1) is empty: which run? (RUN=0, RUNS="0 1 2")))$(foreach r,$(2),$(if \
  $(call pf_not_number,$(r)),$(error $(1): '$(r)' is not a run number (0 to 999999999, no leading zeros))))
$(call pf_check_pde,PDE,$(PDE))
$(call pf_check_runs,RUN/RUNS,$(RUNS))
$(if $(filter-out 1,$(words $(METHOD)))$(filter-out $(ALL_METHODS),$(METHOD)),$(error METHOD='$(METHOD)': \
  not a method (known: $(ALL_METHODS))))
$(if $(filter-out 1,$(words $(PROFILE)))$(filter-out paper quick smoke,$(PROFILE)),$(error PROFILE='$(PROFILE)': \
  paper, quick or smoke))
$(if $(filter-out 1,$(words $(LLM)))$(filter-out offline http replay,$(LLM)),$(error LLM='$(LLM)': offline, \
  http or replay))
$(if $(filter-out auto,$(TRAIN_THREADS)),$(if $(filter-out 1,$(words $(TRAIN_THREADS)))$(call \
  pf_not_number,$(TRAIN_THREADS))$(filter 0,$(TRAIN_THREADS)),$(error \
  TRAIN_THREADS='$(TRAIN_THREADS)': a number of threads, 1 or more, or auto)))
$(if $(TIME_BUDGET),$(if $(filter-out 1,$(words $(TIME_BUDGET)))$(call pf_strip,$(call pf_strip,$(TIME_BUDGET),$(pf_digits)),s m   h),$(error TIME_BUDGET='$(TIME_BUDGET)': a wall-clock budget per run such as 45m, 2h, 90s or 300 (seconds))))
$(if $(LLM_MAX_TOKENS),$(if $(filter-out 1,$(words $(LLM_MAX_TOKENS)))$(call pf_not_number,$(LLM_MAX_TOKENS))$(filter \
  0,$(LLM_MAX_TOKENS)),$(error LLM_MAX_TOKENS='$(LLM_MAX_TOKENS)': a whole number of tokens per run, 1 or more)))
$(if $(LLM_MAX_COST),$(if $(filter-out 1,$(words $(LLM_MAX_COST)))$(call pf_strip,$(LLM_MAX_COST),$(pf_digits) .),$(error \
  LLM_MAX_COST='$(LLM_MAX_COST)': a cost per run in the backbones file's currency, such as 2.5)))
$(call pf_check_word,RUNS_ROOT,$(RUNS_ROOT))
$(call pf_check_word,REPORTS_ROOT,$(REPORTS_ROOT))

GENS := 0 1 2 3 4 5 6 7 8 9
LAST := 9
pad   = $(if $(filter 0 1 2 3 4 5 6 7 8 9,$(1)),0$(1),$(1))
prev  = $(word $(1),$(GENS))
slots = $(if $(filter 0,$(1)),0 1 2 3 4 5 6 7,0 1 2 3 4)
B     := $(BUILD)/bin
# Every program a rule of pipeline.mk or study.mk runs: all of stages/ (the
# Makefile's STAGE_BIN), so a stage or tool added there is built before any
# rule can call it. Each rule below that runs one has `| $(TOOLS)`: order-
# only, so rebuilding a program never redoes a run.
TOOLS := $(STAGE_BIN)

# A PDE is a built-in's name or a path to a .pde file (src/pdefile/pdefile.h),
# which the stages take as they take a name. Folders use the name the file
# declares (`pf-pde name FILE`, once per path, as make reads this file: a
# file that does not check stops make here with its errors; pf-pde is built
# first when missing), and context.json records the file's SHA-256 and its
# data files' (pf-context; src/pdefile/fingerprint.h), so editing either
# reruns what depends on them.
pde_file  = $(filter %.pde,$(1))
pde_name  = $(if $(call pde_file,$(1)),$(or $(pde_name_$(1)),$(eval pde_name_$(1) := $(call pde_declared,$(1)))$(pde_name_$(1))),$(1))
pde_tool  = $(call parse_tool,pf-pde,PDE=$(1))
pde_declared = $(eval pde_said := $(shell $(call pde_tool,$(1)) name $(1) 2>&1))$(if $(filter \
  0,$(.SHELLSTATUS)),$(pde_said),$(error PDE=$(1): $(pde_said)))
# $(call parse_tool,NAME,VAR=VALUE): $(B)/NAME for a check as make reads this
# file, built first when missing (by a make told nothing to check).
parse_tool = $(if $(wildcard $(B)/$(1)),,$(if $(findstring n,$(firstword -$(MAKEFLAGS))),$(error $(2): \
  $(B)/$(1) is not built yet, and make -n builds nothing: run make once without -n),$(shell $(MAKE) \
  --no-print-directory -s PDE=poisson_2d PDES=poisson_2d BACKBONE= BACKBONES= $(B)/$(1) >&2)))$(B)/$(1)

# $(call pf_check_backbones,VAR,NAMES): each name is offline or a backbone of
# the backbones file (pf-context --check-backbones lists the file's names
# when one is not), and LLM can ask them: a backbone is asked over http (or
# replayed), offline is the offline proposer (not under LLM=http).
pf_check_backbones = $(if $(filter-out offline,$(2)),$(eval pf_bb_said := $(shell $(call \
  parse_tool,pf-context,$(1)=$(2)) --check-backbones "$(filter-out offline,$(2))" 2>&1))$(if $(filter \
  0,$(.SHELLSTATUS)),,$(error $(1)=$(2): $(subst pf-context: ,,$(pf_bb_said))))$(if $(and $(filter \
  offline,$(LLM)),$(filter-out file default,$(origin LLM))),$(error $(1)=$(2): LLM=offline asks no backbone: \
  leave LLM unset (a backbone is asked over http) or say LLM=replay)))$(if $(and $(filter offline,$(2)),$(filter \
  http,$(LLM))),$(error $(1)=$(2): offline is the offline proposer, but LLM is http$(if $(PF_LLM_URL), \
  (PF_LLM_URL is set)): unset PF_LLM_URL, or name its server in the backbones file))
$(if $(filter-out 0 1,$(words $(BACKBONE))),$(error BACKBONE='$(BACKBONE)': one backbone (a study takes several: \
  BACKBONES="a b")))
# A mixture BACKBONE=mix:a,b,c is spelt mix+a+b+c in make (its run folder
# METHOD@mix+a+b+c; ':' and ',' do not go into make's targets and calls);
# pf-context records mix:a,b,c. $(call bb_word,B): B in make's spelling.
bb_word = $(if $(filter mix:%,$(1)),$(subst $(comma),+,$(patsubst mix:%,mix+%,$(1))),$(1))
$(if $(BACKBONE),$(call pf_check_word,BACKBONE,$(call bb_word,$(BACKBONE)))$(call \
  pf_check_backbones,BACKBONE,$(call bb_word,$(BACKBONE))))
# A run's method folder, its cell: M@B for an LLM-driven method M and a
# backbone B other than offline, else M (src/search/run.h):
# $(call method_cell,M,B); and back, $(call cell_method,C), $(call cell_backbone,C).
method_cell   = $(if $(and $(filter $(1),$(LLM_METHODS)),$(filter-out offline,$(2))),$(1)@$(call bb_word,$(2)),$(1))
cell_method   = $(firstword $(subst @, ,$(1)))
cell_backbone = $(word 2,$(subst @, ,$(1)))
# The proposer a run of cell C records (context.json's llm): a backbone is
# asked over http, or replayed; a run without one has LLM's.
run_llm = $(if $(call cell_backbone,$(1)),$(if $(filter replay,$(LLM)),replay,http),$(LLM))
RUN_CELL := $(call method_cell,$(METHOD),$(BACKBONE))
# Every rule below takes the PDE P, the cell M (the method, or method@backbone)
# and the run R as its first three arguments, so a study's cells (study.mk)
# and one run's are the same rules: run_dir = $(call run_dir,P,M,R).
run_dir = $(RUNS_ROOT)/$(call pde_name,$(1))/$(2)/run$(3)
RUN_FINALS := $(foreach r,$(RUNS),$(call run_dir,$(PDE),$(RUN_CELL),$(r))/final.msgpack)

# The expensive recipes (every pf-train) run through $(launch_env) ... $(call launch,OUT,FIDELITY):
# the training whose folder is OUT, directly (LAUNCH=local) or as a Slurm job
# through srun (LAUNCH=slurm; scripts/launch.sh), which records it as running
# or failed in OUT/launch.txt for `make study-status`. The cheap stages
# (propose, select, posterior, final) always run here, so LLM keys stay off
# compute nodes. Slurm's time limit: SLURM_TIME, else by profile and fidelity.
LAUNCH ?= local
ifeq ($(filter $(LAUNCH),local slurm),)
$(error LAUNCH must be local or slurm, not '$(LAUNCH)')
endif
DEVICE ?= $(PF_DEVICE)
SLURM_TIME_paper_low := 2:00:00
SLURM_TIME_paper_high := 12:00:00
SLURM_TIME_paper_baseline := 24:00:00
SLURM_TIME_quick_low := 0:30:00
SLURM_TIME_quick_high := 1:00:00
SLURM_TIME_quick_baseline := 1:00:00
SLURM_TIME_smoke_low := 0:10:00
SLURM_TIME_smoke_high := 0:10:00
SLURM_TIME_smoke_baseline := 0:10:00
# TRAIN_THREADS=auto: make passes its jobserver only to a recipe marked '+'
# (never under -n, which must run nothing).
train_prefix = $(if $(filter auto,$(TRAIN_THREADS)),$(if $(findstring n,$(firstword -$(MAKEFLAGS))),,+))
launch_env = LAUNCH=$(LAUNCH) TRAIN_THREADS=$(TRAIN_THREADS) PF_DEVICE=$(DEVICE) PF_SLURM_PARTITION=$(SLURM_PARTITION) \
  PF_SLURM_ACCOUNT=$(SLURM_ACCOUNT) PF_SLURM_ARGS="$(SLURM_ARGS)"
launch = scripts/launch.sh $(1) $(or $(SLURM_TIME),$(SLURM_TIME_$(PROFILE)_$(2)),1:00:00) --

# make's -j as the trainings at once, for a time budget's limits (a recipe sees
# -jN in MAKEFLAGS, the parse does not; plain -j: as many as a generation has)
pf_jobs = $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),$(if $(filter -j,$(MAKEFLAGS)),8,1))

.PHONY: search status
search: $(RUN_FINALS)

# A launcher killed after its training's outputs were in place leaves its
# launch.txt behind ("running local <host> <pid>" of a dead process), and
# make never reruns that training: the stage that reads the trainings'
# outputs (pf-select, pf-final) removes those records first, since it runs
# only once every one of them has its outputs. $(call clear_launch,DIRS)
clear_launch = rm -f $(addsuffix /launch.txt,$(1))

# Rules of one run: $(call run_rules,P,M,R). Each define ends with an empty
# line, so the texts that foreach joins stay separate lines.
# A .pde file is recorded by one name however it was given (PDE=a/b.pde,
# ../x/a/b.pde, a link to it): its real path, relative to the checkout when
# inside it. When a finished or started run's settings change (PROFILE, LLM,
# EVAL, the file), make says so: everything after context.json is redone.
pde_key = $(if $(call pde_file,$(1)),$(patsubst $(CURDIR)/%,%,$(or $(realpath $(1)),$(1))),$(1))
# $(call context_cmd,P,M,R): the run's pf-context (also run by locked_goal, below)
context_cmd = $(B)/pf-context --run $(call run_dir,$(1),$(2),$(3)) --pde $(call pde_key,$(1)) \
  --method $(call cell_method,$(2)) --number $(3) --budget $(PROFILE) --llm $(call run_llm,$(2)) --eval $(EVAL)$(if \
  $(TIME_BUDGET), --time-budget $(TIME_BUDGET))$(if $(call cell_backbone,$(2)), --backbone $(call cell_backbone,$(2))) \
  --llm-max-tokens "$(LLM_MAX_TOKENS)" --llm-max-cost "$(LLM_MAX_COST)"
define context_rule
$(call run_dir,$(1),$(2),$(3))/context.json: FORCE | $(TOOLS)
	$(Q)$(call context_cmd,$(1),$(2),$(3))$(if $(PF_RUN_LOCKED), --same-session)

endef

define run_rules
$(call context_rule,$(1),$(2),$(3))
$(call run_dir,$(1),$(2),$(3))/knowledge.msgpack: $(call run_dir,$(1),$(2),$(3))/context.json | $(TOOLS)
	$(Q)$(B)/pf-pde check $(1) >&2
	@echo "pf-knowledge: start $(1)" >&2
	$(Q)$(B)/pf-knowledge --run $$(@D) > /dev/null
	@echo "pf-knowledge: done; wrote $$@" >&2

$(foreach g,$(GENS),$(call gen_rules,$(1),$(2),$(3),$(g)))

$(foreach k,0 1 2,$(call hifi_rules,$(1),$(2),$(3),$(k)))
$(call group_rules,$(1),$(2),$(3),hifi,0 1 2,high)
$(call run_dir,$(1),$(2),$(3))/final.msgpack: $(call group_outputs,$(1),$(2),$(3),hifi,0 1 2) | $(TOOLS)
	$(Q)$(call clear_launch,$(call slot_dirs,$(1),$(2),$(3),hifi,0 1 2))
	$(Q)$(B)/pf-final --run $(call run_dir,$(1),$(2),$(3)) --last-generation $(LAST)

endef

# The high-fidelity proposal of Top-3 design K: $(call hifi_rules,P,M,R,K)
define hifi_rules
$(call run_dir,$(1),$(2),$(3))/hifi/top$(4).proposal.msgpack: $(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(LAST))/select.msgpack | $(TOOLS)
	$(Q)$(B)/pf-final --run $(call run_dir,$(1),$(2),$(3)) --last-generation $(LAST) --hifi-proposal $(4)

endef

# Rules of generation G: $(call gen_rules,P,M,R,G)
define gen_rules
$(foreach k,$(call slots,$(4)),$(call cand_rules,$(1),$(2),$(3),$(4),$(k)))
$(call group_rules,$(1),$(2),$(3),$(4),$(call slots,$(4)),low)
$(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(4))/select.msgpack: $(call group_outputs,$(1),$(2),$(3),$(4),$(call slots,$(4))) | $(TOOLS)
	$(Q)$(call clear_launch,$(call slot_dirs,$(1),$(2),$(3),$(4),$(call slots,$(4))))
	$(Q)$(B)/pf-select --run $(call run_dir,$(1),$(2),$(3)) --generation $(4)

$(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(4))/memory.msgpack: $(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(4))/select.msgpack | $(TOOLS)
	$(Q)$(B)/pf-posterior --run $(call run_dir,$(1),$(2),$(3)) --generation $(4)

endef

# The proposal of candidate K of generation G (after the previous
# generation's select and memory): $(call cand_rules,P,M,R,G,K)
define cand_rules
$(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(4))/cand$(5).proposal.msgpack: $(call run_dir,$(1),$(2),$(3))/knowledge.msgpack \
  $(if $(filter 0,$(4)),,$(foreach f,select memory,$(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(call prev,$(4)))/$(f).msgpack)) | $(TOOLS)
	$(Q)$(B)/pf-propose --run $(call run_dir,$(1),$(2),$(3)) --generation $(4) --slot $(5)

endef

# ---- a group's trainings, longest first (docs/search.md, "Longest first";
# src/search/train_order.h). A group is generation G's candidates, the
# Top-3 (G = hifi) or a baseline's side-by-side slots. make starts a
# target's prerequisites in the order they are listed, fixed when it reads
# this file, before any proposal exists. So the group has a plan (pf-plan:
# the slots by decreasing predicted time, written once every proposal
# exists), the stage that reads its trainings lists the ranks first, 0, 1,
# ..., and rank R's recipe trains the slot at rank R of the plan
# (RANK.done marks it dealt with). Then it lists every slot's outputs, whose
# own rule trains a slot whose outputs are missing or older than its
# proposal (a deleted result is retrained alone; make FILE trains that slot
# alone). Both recipes run pf-train through pf-plan ... -- COMMAND, which
# holds the slot's lock and execs COMMAND only when the slot is to be
# trained, so a slot is never trained twice: not by its two rules, nor after
# a kill.
group_dir = $(call run_dir,$(1),$(2),$(3))/$(if $(filter hifi,$(4)),hifi,gen$(call pad,$(4)))
slot_dir = $(call group_dir,$(1),$(2),$(3),$(4))/$(if $(filter hifi,$(4)),top,cand)$(5)
slot_dirs = $(foreach k,$(5),$(call slot_dir,$(1),$(2),$(3),$(4),$(k)))
group_outputs = $(foreach r,$(5),$(call group_dir,$(1),$(2),$(3),$(4))/rank$(r).done) \
  $(foreach d,$(call slot_dirs,$(1),$(2),$(3),$(4),$(5)),$(d)/evidence.msgpack $(d)/result.h5)
# pf-plan's question about group G: $(call plan_ask,P,M,R,G,OPTIONS)
plan_ask = $(B)/pf-plan --run $(call run_dir,$(1),$(2),$(3)) --generation $(4) $(5)
# Train the slot of group G that WHICH names (--rank R or --slot K) when it is to be done;
# K is that slot (or %K, which pf-plan replaces by the slot at rank R):
# $(call train_slot,P,M,R,G,WHICH,K,FIDELITY)
train_slot = $(launch_env) $(call plan_ask,$(1),$(2),$(3),$(4),$(5)) -- $(call launch,$(call \
  slot_dir,$(1),$(2),$(3),$(4),$(6)),$(7)) $(B)/pf-train --run $(call run_dir,$(1),$(2),$(3)) --generation $(4) \
  --slot $(6) --threads $(TRAIN_THREADS) --jobs $$(pf_jobs) --progress-every 1000000000

# The plan, the ranks and the slots of group G: $(call group_rules,P,M,R,G,SLOTS,FIDELITY)
define group_rules
$(call group_dir,$(1),$(2),$(3),$(4))/plan.json: $(addsuffix .proposal.msgpack,$(call slot_dirs,$(1),$(2),$(3),$(4),$(5))) | $(TOOLS)
	$(Q)$(call plan_ask,$(1),$(2),$(3),$(4))

$(foreach r,$(5),$(call rank_rule,$(1),$(2),$(3),$(4),$(r),$(6)))
$(foreach k,$(5),$(call slot_rule,$(1),$(2),$(3),$(4),$(k),$(6)))
endef

# $(call rank_rule,P,M,R,G,RANK,FIDELITY)
define rank_rule
$(call group_dir,$(1),$(2),$(3),$(4))/rank$(5).done: $(call group_dir,$(1),$(2),$(3),$(4))/plan.json | $(TOOLS)
	$(train_prefix)$(Q)$(call train_slot,$(1),$(2),$(3),$(4),--rank $(5),%K,$(6)) && touch $$@

endef

# $(call slot_rule,P,M,R,G,K,FIDELITY): after the plan, so that make starts the ranks first
# (outputs that are plainly newer than the proposal, as after their rank's training, ask nothing); a
# training that failed under its rank's rule is not retried here in the same make (make -k: a
# failure stays recorded in launch.txt for study-status; the next make retries it)
PF_MAKE_STARTED := $(shell date +%s)
define slot_rule
$(call slot_dir,$(1),$(2),$(3),$(4),$(5))/evidence.msgpack $(call slot_dir,$(1),$(2),$(3),$(4),$(5))/result.h5 &: \
  $(call slot_dir,$(1),$(2),$(3),$(4),$(5)).proposal.msgpack | $(call group_dir,$(1),$(2),$(3),$(4))/plan.json $(TOOLS)
	$(train_prefix)$(Q)test $$(word 1,$$^) -ot $(call slot_dir,$(1),$(2),$(3),$(4),$(5))/evidence.msgpack -a $$(word \
	  1,$$^) -ot $(call slot_dir,$(1),$(2),$(3),$(4),$(5))/result.h5 || \
	  $(call train_slot,$(1),$(2),$(3),$(4),--slot $(5) --not-failed-since $(PF_MAKE_STARTED),$(5),$(6))

endef

# A baseline's candidates as generation.slot pairs, from its table row
# (BASELINE_SHAPE_<name>): vanilla, ropinn and pinnsformer train five slots
# of generation 0 side by side (1 generation, 5 slots); pinnsagent's planner
# plans one per generation (5, 1), each after the one before has trained.
upto = $(wordlist 1,$(1),0 1 2 3 4 5 6 7 8 9)
baseline_gens = $(call upto,$(word 1,$(BASELINE_SHAPE_$(call cell_method,$(1)))))
baseline_slots = $(call upto,$(word 2,$(BASELINE_SHAPE_$(call cell_method,$(1)))))
baseline_cands = $(foreach g,$(call baseline_gens,$(1)),$(foreach k,$(call baseline_slots,$(1)),$(g).$(k)))
cand_g = $(word 1,$(subst ., ,$(1)))
cand_k = $(word 2,$(subst ., ,$(1)))
cand_dir = $(call run_dir,$(1),$(2),$(3))/gen$(call pad,$(call cand_g,$(4)))/cand$(call cand_k,$(4))

# Rules of a baseline run: $(call baseline_rules,P,M,R)
define baseline_rules
$(call context_rule,$(1),$(2),$(3))
$(foreach c,$(call baseline_cands,$(2)),$(call baseline_cand_rules,$(1),$(2),$(3),$(c)))
$(foreach g,$(call baseline_gens,$(2)),$(call group_rules,$(1),$(2),$(3),$(g),$(call baseline_slots,$(2)),baseline))
$(call run_dir,$(1),$(2),$(3))/final.msgpack: $(foreach g,$(call baseline_gens,$(2)),$(call \
  group_outputs,$(1),$(2),$(3),$(g),$(call baseline_slots,$(2)))) | $(TOOLS)
	$(Q)$(call clear_launch,$(foreach c,$(call baseline_cands,$(2)),$(call cand_dir,$(1),$(2),$(3),$(c))))
	$(Q)$(B)/pf-final --run $(call run_dir,$(1),$(2),$(3))

endef

# The proposal of candidate G.K of a baseline run: $(call
# baseline_cand_rules,P,M,R,G.K). A planned candidate (G > 0) waits for the
# one before. Its training: group_rules.
define baseline_cand_rules
$(call cand_dir,$(1),$(2),$(3),$(4)).proposal.msgpack: $(call run_dir,$(1),$(2),$(3))/context.json \
  $(if $(filter 0,$(call cand_g,$(4))),,$(call cand_dir,$(1),$(2),$(3),$(call prev,$(call cand_g,$(4))).0)/evidence.msgpack) | $(TOOLS)
	$(Q)$(B)/pf-pde check $(1) >&2
	$(Q)$(B)/pf-propose --run $(call run_dir,$(1),$(2),$(3)) --generation $(call cand_g,$(4)) --slot $(call cand_k,$(4))

endef

# The rules of the runs P x M x R: $(call cell_rules,PDES,METHODS,RUNS)
cell_rules = $(foreach p,$(1),$(foreach m,$(2),$(foreach r,$(3),$(eval $(call \
  $(if $(filter $(call cell_method,$(m)),$(BASELINE_METHODS)),baseline_rules,run_rules),$(p),$(m),$(r))))))

# One make per run folder at a time. A run's files are made by a make of its
# own that holds the lock on the folder (RUN/.lock, flock(2), stages/pf-lock.c):
# the make you start (or `make study`) turns each run it is asked for, and
# each file of a run named on the command line, into a sub-make
#   pf-lock RUN -- $(MAKE) PF_RUN_LOCKED=1 PDE=P METHOD=M BACKBONE=B RUNS=R GOAL
# which has that run's rules (study.mk evaluates them where PF_RUN_LOCKED is
# set). A second make on the same run says so and waits for the first, then
# finds everything made. The lock belongs to the sub-make and what it runs,
# so it goes when they end or are killed (no stale lock file to remove); the
# jobserver is shared, so -j N still runs N trainings of one run or of many.
# Under -n (plan only) no lock is taken. The run's pf-context runs first, under
# the lock and before the sub-make looks at any file: when only the LLM budget
# changed, it removes the proposals the budget stopped, which the sub-make
# then sees missing and makes again (docs/search.md, "LLM budget").
pf_dry_run = $(findstring n,$(firstword -$(MAKEFLAGS)))
# $(call locked_goal,P,M,R,GOAL): GOAL (a file of run P M R) made under the run's lock
define locked_goal
.PHONY: $(4)
$(4): | $(TOOLS)
	+$(Q)$$(if $$(pf_dry_run),,$(BUILD)/bin/pf-lock $(call run_dir,$(1),$(2),$(3)) -- sh -c '$(call context_cmd,$(1),$(2),$(3)) && exec "$$$$0" "$$$$@"') \
	  $$(MAKE) --no-print-directory PF_RUN_LOCKED=1 PDE=$(1) METHOD=$(call cell_method,$(2)) \
	  BACKBONE=$(call cell_backbone,$(2)) RUNS=$(3) $(4)

endef
# A plan of the study's cells (make -n study) evaluates their rules in one make
# (study.mk): a sub-make per cell would parse 2,000 runs one by one (minutes).
PF_PLAN_STUDY := $(and $(pf_dry_run),$(filter study-cells,$(MAKECMDGOALS)))
ifeq ($(PF_RUN_LOCKED)$(PF_PLAN_STUDY),)
# the run (of RUNS) whose folder holds the file GOAL, if any: $(call goal_run,GOAL)
goal_run = $(firstword $(foreach r,$(RUNS),$(if $(filter $(call run_dir,$(PDE),$(RUN_CELL),$(r))/%,$(1)),$(r))))
PF_LOCKED_GOALS := $(RUN_FINALS) $(foreach g,$(filter-out $(RUN_FINALS),$(MAKECMDGOALS)),$(if $(call goal_run,$(g)),$(g)))
$(foreach g,$(PF_LOCKED_GOALS),$(eval $(call locked_goal,$(PDE),$(RUN_CELL),$(or $(call goal_run,$(g)),$(error \
  $(g): no run of PDE=$(PDE) METHOD=$(METHOD) BACKBONE=$(BACKBONE) RUNS=$(RUNS))),$(g))))
endif

status: | $(TOOLS)
	$(Q)for r in $(RUNS); do d=$(call run_dir,$(PDE),$(RUN_CELL),$$r); [ -d $$d ] && $(B)/pf-final --run $$d --status || true; done

# Tables and plots from the runs that exist; nothing is trained (src/stats/).
REFERENCE ?= pinnforge
$(call pf_check_word,REFERENCE,$(REFERENCE))
.PHONY: tables report
tables: | $(TOOLS)
	$(Q)$(B)/pf-stats --runs $(RUNS_ROOT) --out $(REPORTS_ROOT) --reference $(REFERENCE)

report: | $(TOOLS)
	$(Q)[ -d $(RUNS_ROOT)/$(call pde_name,$(PDE)) ] || { echo "make report: no runs of $(PDE) in $(RUNS_ROOT)/ (make PDE=$(PDE) RUN=0 first)" >&2; exit 1; }
	$(Q)for d in $(RUNS_ROOT)/$(call pde_name,$(PDE))/*/run*; do \
	  [ -f $$d/context.json ] || continue; \
	  $(B)/pf-plot --run $$d --out $(REPORTS_ROOT)/$(call pde_name,$(PDE))/$$(basename $$(dirname $$d))/$$(basename $$d) || exit 1; \
	done
	$(Q)$(B)/pf-stats --runs $(RUNS_ROOT) --pde $(call pde_name,$(PDE)) --out $(REPORTS_ROOT)/$(call pde_name,$(PDE)) --reference $(REFERENCE)
	@echo "report: $(REPORTS_ROOT)/$(call pde_name,$(PDE))/index.md"

# The data: PINNacle's reference files into $(PF_DATA_DIR) and PINNsAgent's
# knowledge base into $(PF_PINNSAGENT_DIR), each verified by its SHA-256
# (data/pinnacle.sha256, data/pinnsagent.sha256): copied from the team's
# ../shared/data when it has them, else downloaded at pinned commits
# (scripts/fetch-data.sh). `make test` runs it first.
.PHONY: data
data:
	$(Q)scripts/fetch-data.sh "$(PF_DATA_DIR)" "$(PF_PINNSAGENT_DIR)"

DEMO_PDE ?= poisson_5d
DEMO_SPEC ?= data/specs/typical.json
DEMO_OUT := runs/demo/$(DEMO_PDE)

.PHONY: demo
demo: | $(TOOLS)
	$(Q)$(BUILD)/bin/pf-train $(DEMO_SPEC) --pde $(DEMO_PDE) --seed 0 --out $(DEMO_OUT) $(DEMO_ARGS)
	$(Q)$(BUILD)/bin/pf-inspect $(DEMO_OUT)/evidence.msgpack
	@echo "(written to $(DEMO_OUT)/result.h5 and evidence.msgpack; pf-inspect reads both)"

# `make PDE=... RUN=...` (a PDE on the command line) means the search.
ifeq ($(origin PDE),command line)
.DEFAULT_GOAL := search
endif
