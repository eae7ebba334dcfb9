# study.mk — the paper's study as one DAG: every PDE x method x run is a run
# folder of pipeline.mk, built by the same rules, so a study resumes, replays
# and extends (more methods or runs later) with no work done twice.
#
#   make study [PDES="..."] [METHODS="..."] [RUNS="0 1 ..."] [PROFILE=paper|quick|smoke] -j N
#   make study-status [the same variables] [WATCH=S]
#
#   PDES      default: all 25 benchmark PDEs; a path to a .pde file stands for
#             the PDE it declares (pipeline.mk)
#   METHODS   default: every method (pinnforge, the three ablations, the four baselines)
#   BACKBONES LLM backbones of the backbones file (default BACKBONE, none): every LLM-driven
#             method (pinnforge, the ablations, pinnsagent) runs once per backbone, in
#             runs/<pde>/<method>@<backbone>/ (offline: the offline proposer, <method>/);
#             the methods that ask no LLM run once. The study's cells are STUDY_CELLS.
#   RUNS      default for a study: 0 .. 9 (RUN and RUNS given on the command line win)
#   LAUNCH    local (default) or slurm: see pipeline.mk and docs/study.md, "On a Slurm cluster"
#   TIME_BUDGET  a wall-clock budget for each run (not the study): pipeline.mk
#
# `make study` keeps going when a training fails (make -k inside): every other
# cell is built, then `make tables` from the runs that finished; it exits 1
# when a cell failed. A failed training leaves OUT/launch.txt saying so
# (study-status counts it) and no artifact; rerunning `make study` retries
# exactly what is missing.
# ALL_PDES and ALL_METHODS: pipeline.mk.
PDES    ?= $(ALL_PDES)
METHODS ?= $(ALL_METHODS)
BACKBONES ?= $(BACKBONE)
# The study's cells: each method, an LLM-driven one once per backbone
# (pipeline.mk's method_cell: method@backbone, or the method alone).
STUDY_CELLS = $(foreach m,$(METHODS),$(if $(filter $(m),$(LLM_METHODS)),$(foreach \
  b,$(or $(BACKBONES),offline),$(call method_cell,$(m),$(b))),$(m)))

# PDES, METHODS and RUNS are checked as pipeline.mk checks PDE, METHOD and
# RUNS, before any rule runs: one word each of letters, digits and _ . / + -,
# a PDES entry a built-in PDE or an existing .pde file.
ifneq ($(filter study study-cells study-status,$(MAKECMDGOALS)),)
$(foreach p,$(PDES),$(call pf_check_pde,PDES,$(p)))
ifneq ($(filter-out $(ALL_PDES) $(wildcard $(filter %.pde,$(PDES))),$(PDES)),)
$(error PDES: unknown $(filter-out $(ALL_PDES) $(wildcard $(filter %.pde,$(PDES))),$(PDES)) (known: $(ALL_PDES), or a path to a .pde file))
endif
ifeq ($(strip $(PDES)),)
$(error PDES is empty: which PDEs? (known: $(ALL_PDES), or a path to a .pde file))
endif
ifneq ($(filter-out $(ALL_METHODS),$(METHODS)),)
$(error METHODS: unknown $(filter-out $(ALL_METHODS),$(METHODS)) (known: $(ALL_METHODS)))
endif
ifeq ($(strip $(METHODS)),)
$(error METHODS is empty: which methods? (known: $(ALL_METHODS)))
endif
STUDY_RUNS := $(if $(filter command line environment,$(origin RUNS) $(origin RUN)),$(RUNS),0 1 2 3 4 5 6 7 8 9)
$(call pf_check_runs,RUNS,$(STUDY_RUNS))
$(foreach b,$(BACKBONES),$(call pf_check_word,BACKBONES,$(call bb_word,$(b))))
$(if $(filter-out $(words $(BACKBONES)),$(words $(sort $(BACKBONES)))),$(error BACKBONES='$(BACKBONES)': a backbone \
  named twice))
$(if $(BACKBONES),$(call pf_check_backbones,BACKBONES,$(foreach b,$(BACKBONES),$(call bb_word,$(b)))))
endif
# The rules of a run only in the make that holds its lock (pipeline.mk,
# locked_goal): one run's. The study's make has one locked sub-make per cell
# (parsing all 2,000 runs of the full study at once took make about 7 s;
# each sub-make parses its own run).
ifneq ($(PF_RUN_LOCKED),)
$(call cell_rules,$(PDE),$(RUN_CELL),$(RUNS))
else ifneq ($(PF_PLAN_STUDY),)
# make -n study: the plan of every cell from one make, no locks (pipeline.mk)
STUDY_FINALS := $(foreach p,$(PDES),$(foreach m,$(STUDY_CELLS),$(foreach r,$(STUDY_RUNS),$(call run_dir,$(p),$(m),$(r))/final.msgpack)))
$(call cell_rules,$(PDES),$(STUDY_CELLS),$(STUDY_RUNS))
else ifneq ($(filter study-cells,$(MAKECMDGOALS)),)
STUDY_FINALS := $(foreach p,$(PDES),$(foreach m,$(STUDY_CELLS),$(foreach r,$(STUDY_RUNS),$(call run_dir,$(p),$(m),$(r))/final.msgpack)))
$(foreach p,$(PDES),$(foreach m,$(STUDY_CELLS),$(foreach r,$(STUDY_RUNS),$(if $(filter \
  $(call run_dir,$(p),$(m),$(r))/final.msgpack,$(PF_LOCKED_GOALS)),,$(eval $(call \
  locked_goal,$(p),$(m),$(r),$(call run_dir,$(p),$(m),$(r))/final.msgpack))))))
endif

# The study's progress table (pf-study), after a study and for study-status.
# make -n runs the study's recipe (it calls $(MAKE), whose plan it prints),
# so there the progress line is printed and not run.
study_progress = $(B)/pf-study --runs $(RUNS_ROOT) --pdes "$(PDES)" --methods "$(STUDY_CELLS)" \
  --run-numbers "$(STUDY_RUNS)" --budget $(PROFILE) --llm $(LLM) --eval $(EVAL)$(if $(TIME_BUDGET), --time-budget $(TIME_BUDGET))

study_backbones = $(if $(BACKBONES), (backbones $(BACKBONES): $(words $(STUDY_CELLS)) cells $(STUDY_CELLS)))

.PHONY: study study-cells study-status
study-cells: $(STUDY_FINALS)

study: | $(TOOLS)
	@echo "study: $(words $(PDES)) PDEs x $(words $(METHODS)) methods$(study_backbones) x $(words $(STUDY_RUNS)) runs, profile $(PROFILE), launch $(LAUNCH)" >&2
	$(Q)rc=0; $(MAKE) --no-print-directory -k study-cells || rc=$$?; \
	  $(if $(pf_dry_run),: not run under make -n:) $(study_progress); \
	  $(MAKE) --no-print-directory tables || rc=1; \
	  [ $$rc -eq 0 ] || echo "study: some cells failed (above; make study-status); make study again retries them" >&2; \
	  exit $$rc

study-status: | $(TOOLS)
	$(Q)$(study_progress) $(if $(WATCH),--watch $(WATCH))
