#include "tensor/jet.h"

#include <string.h>

#include "core/status.h"

pf_jet_layout pf_jet_layout_none(void)
{
    pf_jet_layout L;
    memset(&L, 0, sizeof L);
    return L;
}

int pf_jet_add_dir(pf_jet_layout *L, int order)
{
    PF_ASSERT(L->ndir < PF_JET_MAX_DIRS && L->ncoll == 0);
    PF_ASSERT(order >= 1 && order <= PF_JET_MAX_ORDER);
    L->order[L->ndir] = order;
    return L->ndir++;
}

int pf_jet_add_collapsed(pf_jet_layout *L, const pf_real *w)
{
    PF_ASSERT(L->ncoll < PF_JET_MAX_COLL);
    for (int d = 0; d < PF_JET_MAX_DIRS; d++) L->coll_w[L->ncoll][d] = d < L->ndir ? w[d] : 0;
    return L->ncoll++;
}

int pf_jet_nstreams(const pf_jet_layout *L)
{
    int s = 1 + L->ncoll;
    for (int d = 0; d < L->ndir; d++) s += L->order[d];
    return s;
}

int pf_jet_stream(const pf_jet_layout *L, int dir, int k)
{
    if (k == 0) return 0;
    PF_ASSERT(dir >= 0 && dir < L->ndir && k <= L->order[dir]);
    int s = 1;
    for (int d = 0; d < dir; d++) s += L->order[d];
    return s + k - 1;
}

int pf_jet_collapsed(const pf_jet_layout *L, int c)
{
    PF_ASSERT(c >= 0 && c < L->ncoll);
    return pf_jet_nstreams(L) - L->ncoll + c;
}

int pf_jet_max_order(const pf_jet_layout *L)
{
    int m = L->ncoll ? 2 : 0;
    for (int d = 0; d < L->ndir; d++)
        if (L->order[d] > m) m = L->order[d];
    return m;
}

bool pf_jet_layout_equal(const pf_jet_layout *a, const pf_jet_layout *b)
{
    if (a->ndir != b->ndir || a->ncoll != b->ncoll) return false;
    for (int d = 0; d < a->ndir; d++)
        if (a->order[d] != b->order[d]) return false;
    for (int c = 0; c < a->ncoll; c++)
        for (int d = 0; d < a->ndir; d++)
            if (a->coll_w[c][d] != b->coll_w[c][d]) return false;
    return true;
}

bool pf_jet_layout_valid(const pf_jet_layout *L)
{
    if (L->ndir < 0 || L->ndir > PF_JET_MAX_DIRS || L->ncoll < 0 || L->ncoll > PF_JET_MAX_COLL) {
        pf_fail(PF_ERR_INVALID, "jet layout has %d directions and %d collapsed streams (max %d, %d)",
                L->ndir, L->ncoll, PF_JET_MAX_DIRS, PF_JET_MAX_COLL);
        return false;
    }
    for (int d = 0; d < L->ndir; d++)
        if (L->order[d] < 1 || L->order[d] > PF_JET_MAX_ORDER) {
            pf_fail(PF_ERR_INVALID, "jet direction %d has order %d (allowed 1..%d)", d,
                    L->order[d], PF_JET_MAX_ORDER);
            return false;
        }
    /* every direction has a first-order stream, so only a weight beyond ndir can lack one */
    for (int c = 0; c < L->ncoll; c++)
        for (int d = L->ndir; d < PF_JET_MAX_DIRS; d++)
            if (L->coll_w[c][d] != 0) {
                pf_fail(PF_ERR_INVALID, "collapsed stream %d weights direction %d, but there are %d",
                        c, d, L->ndir);
                return false;
            }
    return true;
}
