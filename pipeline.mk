# pipeline.mk — experiment runs, included by the Makefile.
#
# Until the search pipeline exists (issue 6), the one run is the demo: one
# candidate trained for real by pf-train, from a typical spec
# (data/specs/typical.json: 4 x 64 tanh, 4,096 Sobol points with RAD,
# Adam 900 + L-BFGS 100 = the 1,000-step low-fidelity budget).
#
#   make demo                          poisson_5d, about 30 s on 2 cores
#   make demo DEMO_PDE=burgers_1d      any PDE of `pf-pde list`
#   make demo DEMO_SPEC=my.json DEMO_ARGS='--fidelity high'
#
# It writes runs/demo/<pde>/result.h5 and evidence.msgpack (both atomically)
# and prints the evidence.

# Reference data: the PINNacle files, downloaded where a network exists and
# verified by SHA-256 (data/pinnacle.sha256), into $(PF_DATA_DIR).
.PHONY: data
data:
	$(Q)scripts/fetch-data.sh "$(PF_DATA_DIR)"

DEMO_PDE ?= poisson_5d
DEMO_SPEC ?= data/specs/typical.json
DEMO_OUT := runs/demo/$(DEMO_PDE)

.PHONY: demo
demo: $(BUILD)/bin/pf-train $(BUILD)/bin/pf-inspect
	$(Q)$(BUILD)/bin/pf-train $(DEMO_SPEC) --pde $(DEMO_PDE) --seed 0 --out $(DEMO_OUT) $(DEMO_ARGS)
	$(Q)$(BUILD)/bin/pf-inspect $(DEMO_OUT)/evidence.msgpack
	@echo "(written to $(DEMO_OUT)/result.h5 and evidence.msgpack; pf-inspect reads both)"
