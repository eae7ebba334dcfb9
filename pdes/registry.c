#include "registry.h"

#include <stdio.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/names.h"
#include "geom/geometry.h"
#include "pdefile/compile.h"
#include "pdefile/pdefile.h"

/* in the order of docs/pdes.md's numbering (its section numbers on the right) */
static const pf_pde *const all[] = {
    &pf_pde_burgers_1d,                   /*  1 */
    &pf_pde_burgers_2d,                   /*  2 */
    &pf_pde_gray_scott_2d,                /*  3 */
    &pf_pde_heat_2d_complex_geometry,     /*  4 */
    &pf_pde_heat_2d_long_time,            /*  5 */
    &pf_pde_heat_2d_multiscale,           /*  6 */
    &pf_pde_heat_2d_varying_coefficient,  /*  7 */
    &pf_pde_heat_5d,                      /*  8 */
    &pf_pde_heat_inverse_2d,              /*  9 */
    &pf_pde_kuramoto_sivashinsky_1d,      /* 10 */
    &pf_pde_navier_stokes_2d_backstep,    /* 11 */
    &pf_pde_navier_stokes_2d_classic,     /* 12 */
    &pf_pde_navier_stokes_2d_long_time,   /* 13 */
    &pf_pde_poisson_2d_classic,           /* 14 */
    &pf_pde_poisson_boltzmann_2d,         /* 15 */
    &pf_pde_poisson_2d_many_area,         /* 16 */
    &pf_pde_poisson_3d_complex_geometry,  /* 17 */
    &pf_pde_poisson_5d,                   /* 18 */
    &pf_pde_poisson_inverse_2d,           /* 19 */
    &pf_pde_wave_1d,                      /* 20 */
    &pf_pde_wave_2d_heterogeneous,        /* 21 */
    &pf_pde_allen_cahn_1d,                /* 22 */
    &pf_pde_darcy_flow_2d,                /* 23 */
    &pf_pde_shallow_water_2d,             /* 24 */
    &pf_pde_kovasznay_flow_2d,            /* 25 */
};
#define NPDES (int)(sizeof all / sizeof all[0])
_Static_assert(sizeof all / sizeof all[0] == 25, "update the registry count with a new PDE");

int pf_pdes_count(void) { return NPDES; }

const pf_pde *pf_pdes_at(int i)
{
    PF_ASSERT(i >= 0 && i < NPDES);
    return all[i];
}

pf_status pf_pdes_lookup(const char *name, const pf_pde **out)
{
    if (pf_pdefile_is_path(name)) {
        /* only a regular file of at most 1 MiB: a FIFO named x.pde would
         * block the reader, /dev/zero would never end (core/file.h); a path
         * that does not exist is pf_pdefile_open's to name */
        struct stat sb;
        if (stat(name, &sb) == 0) PF_TRY(pf_file_check(name, PF_FILE_PDE, NULL));
        return pf_pdefile_open(name, out);
    }
    const char *names[NPDES];
    for (int i = 0; i < NPDES; i++) names[i] = all[i]->name;
    int i;
    if (pf_name_lookup("pde", name, names, NPDES, &i) != PF_OK) return PF_ERR_USAGE;
    *out = all[i];
    return PF_OK;
}

const char *pf_pdes_key(const pf_pde *p)
{
    const pf_pdefile *f = pf_pdefile_of(p);
    return f ? f->path : p->name;
}

pf_status pf_pdes_box_space(const pf_pde *p, pf_geom **out)
{
    /* the spatial inputs, in order, and their faces named <input>_lo/_hi */
    double lo[PF_PDE_MAX_IN], hi[PF_PDE_MAX_IN];
    char names[2 * PF_PDE_MAX_IN][PF_GEOM_NAME_MAX];
    const char *faces[2 * PF_PDE_MAX_IN];
    int d = 0;
    for (int i = 0; i < p->d_in; i++) {
        if (i == p->time_input) continue;
        lo[d] = p->lo[i];
        hi[d] = p->hi[i];
        snprintf(names[2 * d], PF_GEOM_NAME_MAX, "%s_lo", p->inputs[i]);
        snprintf(names[2 * d + 1], PF_GEOM_NAME_MAX, "%s_hi", p->inputs[i]);
        faces[2 * d] = names[2 * d];
        faces[2 * d + 1] = names[2 * d + 1];
        d++;
    }
    return pf_geom_box_alloc(d, lo, hi, faces, out);
}

pf_status pf_pdes_box_geometry(const pf_pde *p, pf_geom **out)
{
    pf_geom *space;
    PF_TRY(pf_pdes_box_space(p, &space));
    if (p->time_input < 0) {
        *out = space;
        return PF_OK;
    }
    PF_ASSERT_MSG(p->time_input == p->d_in - 1, "%s: time must be the last input", p->name);
    return pf_geom_space_time_alloc(space, p->lo[p->time_input], p->hi[p->time_input], out);
}

pf_status pf_pdes_box_minus_balls(const pf_pde *p, int n, const pf_pdes_hole *holes, pf_geom **out)
{
    /* a failure anywhere travels down the chain to the last call (geometry.h) */
    pf_geom *g, *hole;
    pf_pdes_box_space(p, &g);
    int dim = p->d_in - (p->time_input >= 0);
    for (int i = 0; i < n; i++) {
        pf_geom_ball_alloc(dim, holes[i].c, holes[i].r, holes[i].name, &hole);
        pf_geom_difference_alloc(g, hole, &g);
    }
    if (p->time_input < 0) {
        *out = g;
        return g ? PF_OK : PF_ERR_INVALID;
    }
    return pf_geom_space_time_alloc(g, p->lo[p->time_input], p->hi[p->time_input], out);
}
