#include "geom/lift.h"

#include <string.h>

/* L = I - prod_i (I - P_i) over the axes with data, written as a tensor
 * contraction: with G[s] the data at the projected point s (s_i = free, lo
 * or hi per axis) and c_i = (1, -w_lo(x_i), -w_hi(x_i)),
 *
 *     L = -sum_{s != all free} prod_i c_i(s_i) G[s],
 *
 * contracted one axis at a time (nested, like Horner's rule): a level
 * combines the free, lo and hi branches of its axis as
 * A_free - A_lo - w_hi (A_hi - A_lo) (w_lo + w_hi = 1), so the lift costs
 * (3^m - 1)/2 jet products for m axes with data on both faces, plus the
 * 3^m - 1 data calls; differences of value-only branches stay value-only. */
typedef struct walk {
    pf_pde_ctx *c;
    pf_pde_ctx face; /* graph and PDE, no points: what the callback sees */
    int k, m;        /* output; number of axes with data */
    int axis[PF_PDE_MAX_IN];           /* the axes with data, in input order */
    pf_lift_faces faces[PF_PDE_MAX_IN];
    pf_lift_data data;
    void *user;
    pf_node *free_x[PF_PDE_MAX_IN];    /* the points' coordinates, jets */
    pf_node *at[PF_PDE_MAX_IN][2];     /* lo_i, hi_i as value-only constants */
    pf_node *w_hi[PF_PDE_MAX_IN];      /* (x_i - lo_i)/(hi_i - lo_i), axes with both faces */
    pf_node *x[PF_PDE_MAX_IN];         /* the projected point being built */
    pf_lift_side side[PF_PDE_MAX_IN];
} walk;

static pf_node *sub(pf_graph *g, pf_node *a, pf_node *b) /* NULL is zero */
{
    return !b ? a : !a ? pf_scale(g, b, -1) : pf_sub(g, a, b);
}

/* sum over the states of axes axis[j..m) of prod c(s) G[s] (the all-free
 * point left out when nothing before j moved), or NULL when it is zero */
static pf_node *contract(walk *s, int j, int moved)
{
    if (j >= s->m || j >= PF_PDE_MAX_IN) { /* (the second test tells gcc the bound) */
        if (!moved) return NULL;
        pf_node *gv = s->data(&s->face, s->k, s->x, s->side, s->user);
        PF_ASSERT_MSG(!gv || (pf_node_c(gv) == 1 && pf_node_n(gv) == pf_node_n(s->c->x)),
                      "%s: lift data for %s must be n x 1", s->c->pde->name, s->c->pde->outputs[s->k]);
        return gv;
    }
    int i = s->axis[j];
    pf_node *br[3] = {NULL, NULL, NULL}; /* free, lo, hi */
    br[0] = contract(s, j + 1, moved);
    for (int e = 0; e < 2; e++) {
        if (!(s->faces[i] & (1 << e))) continue;
        s->x[i] = s->at[i][e];
        s->side[i] = e ? PF_LIFT_AT_HI : PF_LIFT_AT_LO;
        br[1 + e] = contract(s, j + 1, moved + 1);
        s->x[i] = s->free_x[i];
        s->side[i] = PF_LIFT_FREE;
    }
    pf_graph *g = s->c->g;
    if (s->faces[i] != PF_LIFT_BOTH) return sub(g, br[0], br[s->faces[i]]);
    pf_node *d = sub(g, br[2], br[1]);
    pf_node *r = sub(g, br[0], br[1]);
    return d ? sub(g, r, pf_mul(g, s->w_hi[i], d)) : r;
}

/* a x + b on a one-channel field (one node) */
static pf_node *affine(pf_graph *g, pf_node *x, double a, double b)
{
    pf_real sa = (pf_real)a, sb = (pf_real)b;
    return pf_affine(g, x, &sa, &sb);
}

pf_node *pf_pde_const(pf_pde_ctx *c, double v) { return affine(c->g, pf_pde_xj(c, 0), 0, v); }

pf_node *pf_pde_lift(pf_pde_ctx *c, int k, const pf_lift_faces *faces, pf_lift_data data, void *user)
{
    const pf_pde *p = c->pde;
    PF_ASSERT(k >= 0 && k < p->d_out && data != NULL);
    walk s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.face.pde = p;
    s.face.g = c->g;
    s.k = k;
    s.data = data;
    s.user = user;
    for (int i = 0; i < p->d_in; i++) {
        PF_ASSERT_MSG((unsigned)faces[i] <= PF_LIFT_BOTH, "%s: bad lift faces %d for %s", p->name,
                      (int)faces[i], p->inputs[i]);
        s.faces[i] = faces[i];
        s.free_x[i] = s.x[i] = pf_pde_xj(c, i);
        if (!faces[i]) continue;
        s.axis[s.m++] = i;
        double lo = p->lo[i], hi = p->hi[i];
        PF_ASSERT_MSG(lo < hi, "%s: a lift across %s needs lo < hi", p->name, p->inputs[i]);
        if (faces[i] & PF_LIFT_LO) s.at[i][0] = affine(c->g, pf_pde_x(c, i), 0, lo);
        if (faces[i] & PF_LIFT_HI) s.at[i][1] = affine(c->g, pf_pde_x(c, i), 0, hi);
        if (faces[i] == PF_LIFT_BOTH) s.w_hi[i] = affine(c->g, s.free_x[i], 1 / (hi - lo), -lo / (hi - lo));
    }
    PF_ASSERT_MSG(s.m > 0, "%s: a lift of %s over no face", p->name, p->outputs[k]);
    pf_node *r = contract(&s, 0, 0);
    if (!r) return pf_pde_const(c, 0);
    r = pf_scale(c->g, r, -1);
    /* value-only (data and weights all constant): give it the points' layout */
    if (pf_node_nstreams(r) < pf_node_nstreams(c->x)) r = pf_add(c->g, pf_pde_const(c, 0), r);
    return r;
}
