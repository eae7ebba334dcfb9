/*
 * memory_tree.h — PINNsAgent's hyperparameter importance scores ("memory
 * tree", database/memory_tree.py of qingpowuwu/PINNsAgent_Codes;
 * docs/baselines.md, "PINNsAgent: memory-tree scores and UCT"): how much each of the ten hyperparameters moved
 * the MSE on the PDEs of the knowledge base (pinnsagent/db.h), and
 * the UCT bonus its prompt adds for parameters already tried.
 *
 *     double s[PF_PA_PARAM_COUNT];
 *     int others;
 *     PF_TRY(pf_memtree_target(db, "burgers_1d", s, &others));  // mean over the others
 *     for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
 *         printf("%s %.3f\n", pf_pa_param_name(p), pf_memtree_uct(s[p], visits[p], PF_MEMTREE_LAMBDA));
 *
 * ------------------------------------------------------------- one PDE
 *
 * Over the rows of one task (exact repeats included, as PINNsAgent keeps
 * them). A row takes part when its mse is > 0 (mse <= 0 has no log) and,
 * for a continuous parameter, when the row has the value (a point count
 * may be missing, pinnsagent/db.h). y = log10(mse).
 *
 * Categorical (activation, net, optimizer, initializer): group the rows by
 * value; only values with rows count. With one group or none the score is
 * 0. Otherwise
 *
 *   gap       = max over values of mean(y) - min over values of mean(y)
 *   threshold = the 25th percentile of y over all the rows taken, with
 *               linear interpolation (NumPy's default; GSL's
 *               gsl_stats_quantile_from_sorted_data): sorted y, position
 *               h = (n - 1) 0.25, y[floor h] + (h - floor h) (y[floor h + 1] - y[floor h])
 *   rate(v)   = the fraction of v's rows with y < threshold (strictly)
 *   sd        = the POPULATION standard deviation (divisor: the number of
 *               values, NumPy's np.std) of the rates
 *   raw       = gap * min(1 + sd, 2)
 *
 * Continuous (lr, width, depth, the three point counts; lr as a number,
 * as memory_tree.py has it): with fewer than PF_MEMTREE_MIN_SAMPLES = 6
 * rows the score is 0 (memory_tree.py returns 0.0, which then takes part
 * in the normalisation like any score). Otherwise sort the rows by the
 * value, ties in file order (a stable sort; NumPy's default argsort is not
 * stable, so its order among equal values is unspecified), and
 *
 *   low       = the first floor(n/3) rows' y, high = the LAST ceil(n/3)
 *               rows' y (memory_tree.py's sorted[:n//3] and sorted[-n//3:];
 *               Python reads -n//3 as (-n)//3 = -ceil(n/3), so for n not a
 *               multiple of 3 the top third has one row more)
 *   rho       = Spearman's rank correlation of value and y: Pearson's
 *               correlation of the ranks, tied values sharing the mean of
 *               their ranks (scipy.stats.spearmanr; gsl_stats_spearman);
 *               0 when undefined (all values or all y equal)
 *   raw       = |mean(high) - mean(low)| * (1 + |rho|)
 *
 * Normalised per PDE over its ten raw scores: (raw - min) / (max - min),
 * or 0.5 for all ten when max = min.
 *
 * ------------------------------------------------------------- a target
 *
 * The target's scores are the mean of the normalised scores of every task
 * of the database that is not the target (by task or PDE name), its own
 * rows left out (--simulate_new_pde). A PDE without rows (allen_cahn_1d)
 * averages over all tasks. memory_tree.py rounds to 3 decimals for the
 * prompt; these are not rounded.
 *
 * UCT: a parameter set N >= 1 times so far in the run gets
 * score + lambda sqrt(ln(N + 1) / (N + 1)), lambda = PF_MEMTREE_LAMBDA =
 * 1.4; an unvisited one (N = 0) keeps its score.
 */
#ifndef PF_PINNSAGENT_MEMORY_TREE_H
#define PF_PINNSAGENT_MEMORY_TREE_H

#include "core/status.h"
#include "pinnsagent/db.h"

#define PF_MEMTREE_LAMBDA 1.4
#define PF_MEMTREE_MIN_SAMPLES 6
#define PF_MEMTREE_SUCCESS_QUANTILE 0.25

/* The raw scores (above) of the rows rows[0..n) of db. PF_ERR_NOMEM only. */
pf_status pf_memtree_raw(const pf_pa_db *db, const int *rows, int n, double raw[PF_PA_PARAM_COUNT]);

/* Min-max normalisation of ten raw scores into score (may alias raw). */
void pf_memtree_normalise(const double raw[PF_PA_PARAM_COUNT], double score[PF_PA_PARAM_COUNT]);

/* Task t's normalised scores. */
pf_status pf_memtree_task(const pf_pa_db *db, int t, double score[PF_PA_PARAM_COUNT]);

/* The mean of the other tasks' normalised scores; *nother (may be NULL)
 * the number averaged. PF_ERR_INVALID when there is no other task. */
pf_status pf_memtree_target(const pf_pa_db *db, const char *target, double score[PF_PA_PARAM_COUNT], int *nother);

/* score plus the UCT bonus for a parameter visited `visits` >= 0 times. */
double pf_memtree_uct(double score, int visits, double lambda);

#endif
