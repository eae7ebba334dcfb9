// The functions of libpinnforge that the CUDA backend calls, defined here as
// calls through the table the program passes in when it loads the backend
// (cuda_backend.h: pf_cuda_link), so libpinnforge_cuda.so needs none of the
// program's symbols.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

extern "C" {
#include "cuda_backend.h"
}

namespace {
pf_cuda_host H;
}

extern "C" void pf_cuda_link(const pf_cuda_host *host) { H = *host; }

extern "C" pf_status pf_fail(pf_status st, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return H.fail(st, "%s", msg);
}

extern "C" void pf_abort_at(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    H.abort_at(file, line, "%s", msg);
    abort(); // not reached: abort_at does not return
}

extern "C" int pf_jet_stream(const pf_jet_layout *L, int dir, int k) { return H.jet_stream(L, dir, k); }

extern "C" int pf_jet_collapsed(const pf_jet_layout *L, int c) { return H.jet_collapsed(L, c); }

extern "C" const char *pf_op_name(pf_op op) { return H.op_name(op); }
