/*
 * threads.h — the CPU backend's threads: OpenMP's, which OpenBLAS (Debian's
 * OpenMP build) shares, set up so that they behave on shared cores.
 *
 *     int main(int argc, char **argv)
 *     {
 *         pf_threads_passive_wait(argv, "pf-train"); // first: may re-execute the program
 *         ...
 *         int n = pf_threads_auto("pf-train");       // or a number the user gave
 *         pf_threads_set(n);
 *         ...                                        // between steps, every ~0.5 s:
 *         n = pf_threads_regrant();                  // the free slots now (auto only)
 *
 * Passive waiting: an idle OpenMP thread sleeps instead of spinning. libgomp
 * reads OMP_WAIT_POLICY once, as it is loaded (before main), so a program
 * that finds neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT in its environment
 * sets OMP_WAIT_POLICY=passive and re-executes itself (/proc/self/exe, same
 * arguments and descriptors). A user's own setting is kept.
 *
 * No nested BLAS threads: pf_threads_set allows one active level of
 * parallelism, so a BLAS call made inside one of the engine's parallel
 * regions runs on its thread alone; top-level GEMMs use all n threads.
 * docs/building.md, "Threads".
 */
#ifndef PF_TENSOR_THREADS_H
#define PF_TENSOR_THREADS_H

/* Re-execute this program with OMP_WAIT_POLICY=passive unless the
 * environment sets OMP_WAIT_POLICY or GOMP_SPINCOUNT (returns then). Call
 * before anything opens a file or starts a thread. When the re-execution
 * fails it says so on stderr, naming prog, and returns. */
void pf_threads_passive_wait(char **argv, const char *prog);

/* The thread count "auto": this process's own job slot plus the free slots
 * of make's jobserver (taken now, given back at exit), up to the CPUs it
 * may use (core/cpus.h); without a jobserver, those CPUs. A jobserver named
 * in MAKEFLAGS but not usable is said on stderr (naming prog), and auto is
 * then 1. With a usable jobserver, pf_threads_regrant() may change the
 * count later. */
int pf_threads_auto(const char *prog);

/* How long pf_threads_regrant() leaves make to take the slots it gives back
 * before it takes what is free again. */
#define PF_THREADS_HANDBACK_US 1000

/* After pf_threads_auto() found a usable jobserver: give the extra slots
 * back, wait PF_THREADS_HANDBACK_US (a make that waits for a slot to start
 * a job takes it then), take the free ones again without waiting, up to
 * the CPUs this process may use less its own slot, and set the count to 1
 * + the slots held (pf_threads_set, only when it changed). Call it between
 * pieces of work, every half second or so: the count grows when other jobs
 * end, and shrinks when make starts new ones. Returns the count now;
 * when pf_threads_auto() was not called or found no usable jobserver, it
 * changes nothing and returns pf_threads_count(). Results must not depend
 * on the count (the engine's do not: docs/building.md, "Threads"). */
int pf_threads_regrant(void);

/* n threads for OpenMP and OpenBLAS, one active level. */
void pf_threads_set(int n);

/* The thread count now (OpenMP's: what pf_threads_set last set, or
 * OMP_NUM_THREADS, or the CPUs). */
int pf_threads_count(void);

#endif
