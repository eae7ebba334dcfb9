/*
 * replay.c — the replay LLM provider (provider.h): answers only from the
 * transcripts stored under o.transcripts by an earlier run, byte for byte
 * (text, token usage, latency and the name of the provider that answered),
 * and never writes anything. A request with no stored transcript is an
 * error naming the request hash, its slot and the folder; one that another
 * backbone answered than the run's (o.backbone; the offline proposer's
 * answers excepted) is refused, naming both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llm/provider.h"

typedef struct replay_provider {
    char *dir;
    char *backbone; /* the run's, NULL: none named */
} replay_provider;

static pf_status replay_complete(void *self, const pf_llm_request *q, pf_llm_response *r)
{
    const replay_provider *p = self;
    pf_status st = pf_transcript_read(p->dir, q, r);
    const char *want = p->backbone ? p->backbone : "";
    if (st == PF_OK && r->backbone[0] && strcmp(r->backbone, "offline") && strcmp(r->backbone, want)) {
        st = pf_fail(PF_ERR_INVALID, "replay: the transcript of slot '%s' in '%s' was answered by the backbone '%s', "
                                     "but this run's backbone is %s%s%s: replay a run in its own folder "
                                     "(METHOD@BACKBONE) with its BACKBONE",
                     q->slot ? q->slot : "", p->dir, r->backbone, *want ? "'" : "", *want ? want : "none",
                     *want ? "'" : "");
        pf_llm_response_release(r);
        return st;
    }
    if (st == PF_OK) return PF_OK;
    if (st == PF_ERR_IO)
        return pf_fail(st, "replay: %s; replay answers only from stored transcripts: run with the original provider "
                           "(PF_LLM_PROVIDER=http or offline) to record this call",
                       pf_errmsg());
    return pf_fail(st, "replay: %s", pf_errmsg());
}

static void replay_free(void *self)
{
    replay_provider *p = self;
    if (!p) return;
    free(p->dir);
    free(p->backbone);
    free(p);
}

static const pf_llm_vtable REPLAY_VT = {replay_complete, replay_free};

pf_status pf_llm_replay_alloc(const pf_llm_options *o, const pf_llm_vtable **vt, void **self)
{
    *vt = NULL;
    *self = NULL;
    struct stat sb;
    if (stat(o->transcripts, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return pf_fail(PF_ERR_IO, "replay: '%s' is not a folder of transcripts (run with the original provider "
                                  "first to record them)", o->transcripts);
    replay_provider *p = calloc(1, sizeof *p);
    if (!p || !(p->dir = strdup(o->transcripts)) || (o->backbone && !(p->backbone = strdup(o->backbone)))) {
        replay_free(p);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    *vt = &REPLAY_VT;
    *self = p;
    return PF_OK;
}
