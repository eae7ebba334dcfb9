#include "tensor/device.h"

#include <stdlib.h>
#include <string.h>

#ifdef PF_WITH_CUDA
#include "cuda_backend.h"
#endif

bool pf_device_cuda_built(void)
{
#ifdef PF_WITH_CUDA
    return true;
#else
    return false;
#endif
}

static pf_status open_cuda(const pf_backend **out)
{
#ifdef PF_WITH_CUDA
    return pf_cuda_backend_open(out);
#else
    *out = NULL;
    return pf_fail(PF_ERR_UNSUPPORTED,
                   "this build has no CUDA backend (nvcc was not found at build time, or CUDA=0)");
#endif
}

pf_status pf_device_open(const char *name, const pf_backend **out)
{
    const char *env = getenv("PF_DEVICE");
    bool automatic = !name || !*name || !strcmp(name, "auto");
    if (automatic && env && *env && strcmp(env, "auto") != 0) {
        name = env;
        automatic = false;
    }
    if (automatic) {
#ifdef PF_WITH_CUDA
        if (pf_cuda_device_count() > 0) return open_cuda(out);
#endif
        *out = pf_backend_cpu();
        return PF_OK;
    }
    if (!strcmp(name, "cpu")) {
        *out = pf_backend_cpu();
        return PF_OK;
    }
    if (!strcmp(name, "cuda")) return open_cuda(out);
    *out = NULL;
    return pf_fail(PF_ERR_INVALID, "unknown device '%s'%s (expected cpu, cuda or auto)", name,
                   name == env ? " in PF_DEVICE" : "");
}
