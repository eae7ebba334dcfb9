# pipeline.mk — experiment runs, included by the Makefile.
#
# Until the search pipeline exists (issue 6), the one run is the demo: a real
# PINN training on an analytic PDE with the offline tooling of this build.
#
#   make demo                       poisson5d (PINNacle PoissonND, 5-D), ~2 min on 2 cores
#   make demo DEMO_PDE=poisson1d    the 1-D Poisson problem, seconds
#   make demo DEMO_ARGS='--adam 5000 --width 128'
#
# The summary is written to runs/demo/<pde>.txt (atomically: a temporary
# file renamed once the training has finished), progress goes to the terminal.

# Reference data: the PINNacle files, downloaded where a network exists and
# verified by SHA-256 (data/pinnacle.sha256), into $(PF_DATA_DIR).
.PHONY: data
data:
	$(Q)scripts/fetch-data.sh "$(PF_DATA_DIR)"

DEMO_PDE ?= poisson5d
DEMO_OUT := runs/demo/$(DEMO_PDE).txt

.PHONY: demo
demo: $(BUILD)/bin/pf-demo
	@mkdir -p $(dir $(DEMO_OUT))
	$(Q)$(BUILD)/bin/pf-demo --pde $(DEMO_PDE) $(DEMO_ARGS) > $(DEMO_OUT).tmp
	@mv $(DEMO_OUT).tmp $(DEMO_OUT)
	@cat $(DEMO_OUT)
	@echo "(written to $(DEMO_OUT))"
