/*
 * registry.h — the benchmark PDEs, by name, and PDE files by path.
 *
 *     const pf_pde *p;
 *     if (pf_pdes_lookup("poisson_5d", &p) != PF_OK) { puts(pf_errmsg()); ... }
 *     for (int i = 0; i < pf_pdes_count(); i++) puts(pf_pdes_at(i)->name);
 *
 * Each PDE file in pdes/ defines one `const pf_pde`; the registry array in
 * registry.c lists them in the paper's order.
 */
#ifndef PF_PDES_REGISTRY_H
#define PF_PDES_REGISTRY_H

#include "geom/pde.h"

extern const pf_pde pf_pde_burgers_1d;
extern const pf_pde pf_pde_gray_scott_2d;
extern const pf_pde pf_pde_heat_2d_complex_geometry;
extern const pf_pde pf_pde_heat_2d_long_time;
extern const pf_pde pf_pde_heat_2d_multiscale;
extern const pf_pde pf_pde_heat_5d;
extern const pf_pde pf_pde_kuramoto_sivashinsky_1d;
extern const pf_pde pf_pde_navier_stokes_2d_backstep;
extern const pf_pde pf_pde_navier_stokes_2d_classic;
extern const pf_pde pf_pde_navier_stokes_2d_long_time;
extern const pf_pde pf_pde_poisson_2d_classic;
extern const pf_pde pf_pde_poisson_boltzmann_2d;
extern const pf_pde pf_pde_poisson_3d_complex_geometry;
extern const pf_pde pf_pde_poisson_5d;
extern const pf_pde pf_pde_wave_1d;
extern const pf_pde pf_pde_allen_cahn_1d;
extern const pf_pde pf_pde_darcy_flow_2d;
extern const pf_pde pf_pde_shallow_water_2d;
extern const pf_pde pf_pde_kovasznay_flow_2d;
extern const pf_pde pf_pde_burgers_2d;
extern const pf_pde pf_pde_heat_2d_varying_coefficient;
extern const pf_pde pf_pde_heat_inverse_2d;
extern const pf_pde pf_pde_poisson_2d_many_area;
extern const pf_pde pf_pde_poisson_inverse_2d;
extern const pf_pde pf_pde_wave_2d_heterogeneous;

int pf_pdes_count(void);
const pf_pde *pf_pdes_at(int i);

/* The PDE called `name`; PF_ERR_USAGE naming the valid ones otherwise.
 * A path to a .pde file (pf_pdefile_is_path: it ends in .pde or is an
 * existing file) is that file compiled (pdefile/compile.h, once per
 * process: the descriptor lives until the process ends); its errors are
 * pf_pdefile_open's (FILE:LINE:COL messages, PF_ERR_IO for a file that
 * cannot be read). Every stage looks its PDE up here, so each accepts a
 * path wherever it accepts a name. */
pf_status pf_pdes_lookup(const char *name, const pf_pde **out);

/* What pf_pdes_lookup takes to find p again: a built-in's name, or the path
 * a .pde file was opened by (what run files that name their PDE record). */
const char *pf_pdes_key(const pf_pde *p);

/* A hole of a box problem: a ball (a disk in 2-D) whose sphere is the
 * boundary part `name` (holes of one radius usually share a name). */
typedef struct pf_pdes_hole {
    double c[3], r;
    const char *name;
} pf_pdes_hole;

/* The spatial bounding box of p minus n balls, times [lo_t, hi_t] when p has
 * a time input. */
pf_status pf_pdes_box_minus_balls(const pf_pde *p, int n, const pf_pdes_hole *holes, struct pf_geom **out);

/* Geometry of a box problem: [lo, hi] over the spatial inputs, with faces
 * named <input>_lo and <input>_hi (x_lo, x_hi, y_lo, ...), times [lo_t, hi_t]
 * (parts "initial" and "final") when the PDE has a time input. */
pf_status pf_pdes_box_geometry(const pf_pde *p, struct pf_geom **out);

/* The spatial box alone, faces named as above, never extruded in time: the
 * outer shape that problems with holes cut (pf_geom_difference_alloc) before
 * adding time themselves. */
pf_status pf_pdes_box_space(const pf_pde *p, struct pf_geom **out);

#endif
