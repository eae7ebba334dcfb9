/*
 * geom_internal.h — PRIVATE to src/geom/: the layout of a pf_geom and the
 * piece-level primitives that geometry.c and sample.c share. Nothing outside
 * src/geom/ may include it; the public API is geometry.h and sample.h.
 *
 * A geometry node holds its own data (box bounds, ball, polygon) or its
 * operands (CSG, space x time), plus a FLAT list of boundary pieces. A piece
 * is a carrier surface of one primitive (a box face, a sphere, a polygon
 * edge, or a time face of a space x time node) together with the CSG clips
 * that decide which of its points are kept, the sign that turns the
 * primitive's outward normal into the domain's, and the part it belongs to.
 * Sampling a piece = sampling its carrier uniformly and rejecting the points
 * a clip removes; its measure = carrier measure x kept fraction.
 */
#ifndef PF_GEOM_GEOM_INTERNAL_H
#define PF_GEOM_GEOM_INTERNAL_H

#include <stdbool.h>

#include "core/rng.h"
#include "geom/geometry.h"

typedef enum geom_kind {
    GEOM_BOX,
    GEOM_BALL,
    GEOM_POLYGON,
    GEOM_DIFFERENCE,
    GEOM_UNION,
    GEOM_SPACE_TIME,
} geom_kind;

/* Keep a point where sdf(g, x) < -tol (inside) or > tol (outside). */
typedef struct geom_clip {
    const pf_geom *g;
    bool keep_inside;
    double tol;
} geom_clip;

typedef enum piece_kind {
    PIECE_FACE,      /* face index/2 of a box, side index%2 (0 lo, 1 hi) */
    PIECE_SPHERE,    /* the sphere of a ball */
    PIECE_EDGE,      /* edge `index` of a polygon */
    PIECE_TIME_FACE, /* index 0: t = t0, 1: t = t1, of a space x time node */
} piece_kind;

typedef struct geom_piece {
    piece_kind kind;
    const pf_geom *prim; /* the node owning the carrier */
    int index;
    double sign;         /* +1, or -1 on a hole's boundary */
    bool timed;          /* a spatial piece of a space x time node */
    double t0, t1;       /* when timed */
    int part;
    double measure;      /* of the kept portion */
    double plo[PF_GEOM_MAX_DIM], phi[PF_GEOM_MAX_DIM]; /* carrier bbox (spatial) */
    int nclip;
    geom_clip *clip;
} geom_piece;

struct pf_geom {
    geom_kind kind;
    int dim;
    double lo[PF_GEOM_MAX_DIM], hi[PF_GEOM_MAX_DIM]; /* bbox; the box itself for GEOM_BOX */
    double volume;
    double tol;          /* clipping tolerance: 1e-9 x bbox diagonal */
    /* GEOM_BALL */
    double center[PF_GEOM_MAX_DIM], radius;
    /* GEOM_POLYGON: nv vertices (x, y), outward unit edge normals, edge lengths */
    int nv;
    double *vxy, *enrm, *elen;
    /* GEOM_DIFFERENCE, GEOM_UNION: operands; GEOM_SPACE_TIME: a = space */
    pf_geom *a, *b;
    double t0, t1;
    /* boundary */
    int npiece;
    geom_piece *piece;
    int npart;
    char (*part_name)[PF_GEOM_NAME_MAX];
    double *part_measure;
    bool *part_time;
};

/* One attempt at a uniform point of piece p of g: the carrier point in x
 * (g->dim coordinates) and, when nrm is not NULL, the domain's outward unit
 * normal. Returns false when a clip rejects the point (x is then garbage). */
bool pf_geom_piece_try(const pf_geom *g, const geom_piece *p, pf_rng *r, double *x, double *nrm);

/* Coordinates of the unit-cube point that pf_geom_piece_map() takes for
 * piece p: a box face its ds - 1 free axes (0 for an interval's end), a
 * circle its angle, an n-sphere (n >= 3) its ds inverse-normal coordinates
 * (DeepXDE's Hypersphere), a 1-D ball's two ends 1, an edge its arc
 * parameter, a time face the ds axes of the spatial bounding box; plus the
 * time, LAST, on a timed piece. */
int pf_geom_piece_udim(const geom_piece *p);

/* The point of piece p that unit-cube point u (pf_geom_piece_udim(p)
 * coordinates in [0, 1), none on the ends of a 1-D box) maps to, as
 * pf_geom_piece_try() but deterministic: false when a clip (or, on a time
 * face, the spatial domain) rejects it. */
bool pf_geom_piece_map(const pf_geom *g, const geom_piece *p, const double *u, double *x, double *nrm);

/* Fraction of a box volume that the domain fills (volume / bbox volume). */
double pf_geom_fill_fraction(const pf_geom *g);

#endif
